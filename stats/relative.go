package stats

import (
	"slices"

	"github.com/hpctrace/hpctrace/model"
)

// relativeDefaults returns a copy of p, relative to {-1} if p names no
// region, and to at most 64 regions (a frame holds a bit for each); with
// no Kinds, of time, count and volume (with no ids).
func relativeDefaults(p *model.RelativeStats) *model.RelativeStats {
	r := *p
	r.RelativeTo = slices.Clone(p.RelativeTo)
	if len(r.RelativeTo) == 0 {
		r.RelativeTo = []int64{-1}
	}
	if len(r.RelativeTo) > 64 {
		r.RelativeTo = r.RelativeTo[:64]
	}
	r.Kinds = slices.Clone(p.Kinds)
	if len(r.Kinds) == 0 {
		r.Kinds = []model.RelativeKind{{Kind: model.RecordedTime}, {Kind: model.RecordedCount}, {Kind: model.RecordedVolume}}
	}
	r.UnknownVolume = slices.Clone(p.UnknownVolume)
	r.Groups = slices.Clone(p.Groups)
	return &r
}

// relLoc is the state of the statistics relative to one region E
// (model.RelativeStats) on one location.
type relLoc struct {
	eOpen  int32
	xs     table[relX, *relX]
	active []model.RegionID
}

type relX struct {
	counted             int32 // open X instances that count toward E
	since               model.Time
	time, count, volume int64
	activeIdx           int32
}

func (p *relLoc) x(r model.RegionID) *relX {
	return p.xs.get(r)
}

func (x *relX) inUse() bool { return x.counted != 0 || x.count != 0 || x.time != 0 || x.volume != 0 }

func (a *Accumulator) relInit(ls *locState) {
	ls.more().rel = make([]relLoc, len(a.opts.Relative.RelativeTo))
	for e, n := range a.opts.Relative.RelativeTo {
		if n == -1 {
			ls.rel[e].eOpen = 1
		}
	}
}

// relReg returns the region of the e-th relative-to event type, 0 for the
// whole trace or a type not (yet) defined.
func (a *Accumulator) relReg(e int) model.RegionID {
	if a.relRegID[e] == 0 {
		if n := a.opts.Relative.RelativeTo[e]; n != -1 {
			a.relRegID[e], _ = a.defs.RegionByNative(n)
		}
	}
	return a.relRegID[e]
}

func (a *Accumulator) relEnter(ls *locState, r model.RegionID, t model.Time) uint64 {
	var mask uint64
	for e := range ls.relLocs() {
		st := &ls.rel[e]
		if er := a.relReg(e); er != 0 && r == er {
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

func (a *Accumulator) relLeave(ls *locState, r model.RegionID, mask uint64, t model.Time) {
	for e := range ls.relLocs() {
		st := &ls.rel[e]
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
		if er := a.relReg(e); er != 0 && r == er {
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

func (a *Accumulator) relMark(ls *locState, r model.RegionID) {
	for e := range ls.relLocs() {
		if st := &ls.rel[e]; st.eOpen > 0 && r != a.relReg(e) {
			st.x(r).count++
		}
	}
}

func (a *Accumulator) relVolume(ls *locState, bytes int64) {
	n := len(ls.stack)
	if n == 0 {
		return
	}
	r := ls.stack[n-1].region
	for e := range ls.relLocs() {
		if st := &ls.rel[e]; st.eOpen > 0 && r != a.relReg(e) {
			a.addSat(&st.x(r).volume, bytes)
		}
	}
}
