package stats

import "github.com/hpctrace/hpctrace/model"

// piclLoc is the state of the PICL statistics relative to one event type E
// on one location.
type piclLoc struct {
	eOpen  int32
	xs     table[piclX, *piclX]
	active []model.RegionID
}

type piclX struct {
	counted             int32 // open X instances that count toward E
	since               model.Time
	time, count, volume int64
	activeIdx           int32
}

func (p *piclLoc) x(r model.RegionID) *piclX {
	return p.xs.get(r)
}

func (x *piclX) inUse() bool { return x.counted != 0 || x.count != 0 || x.time != 0 || x.volume != 0 }

func (a *Accumulator) piclInit(ls *locState) {
	ls.more().picl = make([]piclLoc, len(a.opts.PICL.RelativeTo))
	for e, n := range a.opts.PICL.RelativeTo {
		if n == -1 {
			ls.picl[e].eOpen = 1
		}
	}
}

// piclReg returns the region of the e-th relative-to event type, 0 for the
// whole trace or a type not (yet) defined.
func (a *Accumulator) piclReg(e int) model.RegionID {
	if a.piclRegs[e] == 0 {
		if n := a.opts.PICL.RelativeTo[e]; n != -1 {
			a.piclRegs[e], _ = a.defs.RegionByNative(n)
		}
	}
	return a.piclRegs[e]
}

func (a *Accumulator) piclEnter(ls *locState, r model.RegionID, t model.Time) uint64 {
	var mask uint64
	for e := range ls.piclLocs() {
		st := &ls.picl[e]
		if er := a.piclReg(e); er != 0 && r == er {
			st.eOpen++
			if st.eOpen == 1 {
				for _, x := range st.active {
					st.x(x).since = t
				}
			}
			continue
		}
		if st.eOpen <= 0 {
			continue
		}
		xs := st.x(r)
		xs.count++
		if xs.counted == 0 {
			xs.since = t
			xs.activeIdx = int32(len(st.active))
			st.active = append(st.active, r)
		}
		xs.counted++
		mask |= 1 << e
	}
	return mask
}

func (a *Accumulator) piclLeave(ls *locState, r model.RegionID, mask uint64, t model.Time) {
	for e := range ls.piclLocs() {
		st := &ls.picl[e]
		if mask&(1<<e) != 0 {
			xs := st.x(r)
			xs.counted--
			if xs.counted == 0 {
				if st.eOpen > 0 {
					a.addSat(&xs.time, max(int64(t-xs.since), 0))
				}
				// Remove r from the active list.
				last := st.active[len(st.active)-1]
				st.active[xs.activeIdx] = last
				st.x(last).activeIdx = xs.activeIdx
				st.active = st.active[:len(st.active)-1]
			}
		}
		if er := a.piclReg(e); er != 0 && r == er {
			st.eOpen--
			if st.eOpen == 0 {
				for _, x := range st.active {
					xs := st.x(x)
					a.addSat(&xs.time, max(int64(t-xs.since), 0))
				}
			}
		}
	}
}

func (a *Accumulator) piclMark(ls *locState, r model.RegionID) {
	for e := range ls.piclLocs() {
		if st := &ls.picl[e]; st.eOpen > 0 && r != a.piclReg(e) {
			st.x(r).count++
		}
	}
}

func (a *Accumulator) piclVolume(ls *locState, bytes int64) {
	n := len(ls.stack)
	if n == 0 {
		return
	}
	r := ls.stack[n-1].region
	for e := range ls.piclLocs() {
		if st := &ls.picl[e]; st.eOpen > 0 && r != a.piclReg(e) {
			a.addSat(&st.x(r).volume, bytes)
		}
	}
}
