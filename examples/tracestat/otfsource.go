package main

import (
	"io/fs"
	"iter"
	"strings"

	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/otf"
)

// otfSource maps a merged OTF trace onto model events (stats spec 2.5). The
// otf package has no model adapter yet, so this example builds one on the
// otf package's public API: definitions first (global and local), then the
// events of every stream merged by time.
//
// Not mapped: file operations, RMA records and the deprecated CollOp record
// are counted as ignored; key-value lists are dropped.
type otfSource struct {
	tr      *otf.TraceReader
	defs    model.Defs
	ev      model.Event
	pending []model.Event // events waiting to be delivered (an OTF record may give two)
	ignored int64

	locs   []model.LocID // by process token, 0 = not yet defined
	regs   []model.RegionID
	sites  map[uint32]model.SiteID
	comms  map[uint32]model.CommID
	class  map[uint32]model.Class // collective operation token → class
	cnts   map[uint32]model.CounterID
	stacks [][]model.RegionID // open regions per location, for "leave innermost"
}

// openOTF opens the trace whose master file is name (a .otf file) in fsys.
func openOTF(fsys fs.FS, name string) (*otfSource, error) {
	t, err := otf.Open(fsys, name)
	if err != nil {
		return nil, err
	}
	s := &otfSource{sites: map[uint32]model.SiteID{}, comms: map[uint32]model.CommID{},
		class: map[uint32]model.Class{}, cnts: map[uint32]model.CounterID{}}
	if err := s.readDefs(t); err != nil {
		return nil, err
	}
	s.tr, err = t.NewReader(nil)
	if err != nil {
		return nil, err
	}
	return s, nil
}

func (s *otfSource) readDefs(t *otf.Trace) error {
	dr, err := t.NewReader(&otf.TraceReaderOptions{File: otf.FileDef})
	if err != nil {
		return err
	}
	defer dr.Close()
	groups := map[uint32]string{}
	files := map[uint32]string{}
	type fn struct {
		id    uint32
		name  string
		group uint32
		scl   uint32
	}
	type scl struct{ file, line uint32 }
	var fns []fn
	var scls []struct {
		id uint32
		scl
	}
	for dr.Next() {
		rec := dr.Record()
		switch rec.Kind {
		case otf.KindDefTimerResolution:
			v, _ := rec.DefTimerResolution()
			s.defs.TimeBase.TicksPerSecond = v.TicksPerSecond
		case otf.KindDefProcess:
			v, _ := rec.DefProcess()
			s.loc(v.Process, string(v.Name))
		case otf.KindDefFunctionGroup:
			v, _ := rec.DefFunctionGroup()
			groups[v.Group] = string(v.Name)
		case otf.KindDefFunction:
			v, _ := rec.DefFunction()
			fns = append(fns, fn{v.Function, string(v.Name), v.Group, v.Source})
		case otf.KindDefSCLFile:
			v, _ := rec.DefSCLFile()
			files[v.SCLFile] = string(v.Name)
		case otf.KindDefSCL:
			v, _ := rec.DefSCL()
			scls = append(scls, struct {
				id uint32
				scl
			}{v.SCL, scl{v.SCLFile, v.Line}})
		case otf.KindDefProcessGroup:
			v, _ := rec.DefProcessGroup()
			c := model.Comm{Native: int64(v.Group), Name: string(v.Name)}
			for _, m := range v.Members {
				c.Members = append(c.Members, s.loc(m, ""))
			}
			s.comms[v.Group] = s.defs.AddComm(c)
		case otf.KindDefCollOp:
			v, _ := rec.DefCollOp()
			if v.Type <= 4 {
				s.class[v.CollOp] = model.Class(v.Type)
			}
		case otf.KindDefCounter:
			v, _ := rec.DefCounter()
			s.cnts[v.Counter] = s.defs.AddCounter(model.Counter{Native: int64(v.Counter), Name: string(v.Name),
				Unit: string(v.Unit), Accumulating: v.Properties&3 == 0})
		}
	}
	if err := dr.Err(); err != nil {
		return err
	}
	for _, x := range scls {
		s.sites[x.id] = s.defs.AddSite(model.Site{File: files[x.file], Line: int32(x.line)})
	}
	for _, f := range fns {
		g := groups[f.group]
		kind := model.RegionFunction
		if g == "MPI" || strings.HasPrefix(f.name, "MPI_") {
			kind = model.RegionComm
			switch n := strings.ToLower(strings.TrimPrefix(f.name, "MPI_")); {
			case n == "barrier", strings.HasPrefix(n, "bcast"), strings.HasPrefix(n, "reduce"), strings.HasPrefix(n, "all"),
				strings.HasPrefix(n, "gather"), strings.HasPrefix(n, "scatter"), strings.HasPrefix(n, "scan"), strings.HasPrefix(n, "exscan"):
				kind = model.RegionCollective
			}
		}
		site, _ := s.defs.Site(s.sites[f.scl])
		id := s.defs.AddRegion(model.Region{Native: int64(f.id), Name: f.name, Kind: kind, Group: g, File: site.File, Line: site.Line})
		for int(f.id) >= len(s.regs) {
			s.regs = append(s.regs, make([]model.RegionID, len(s.regs)+1)...)
		}
		s.regs[f.id] = id
	}
	return nil
}

// loc returns the location of an OTF process token, defining it if needed.
func (s *otfSource) loc(p uint32, name string) model.LocID {
	if int(p) < len(s.locs) && s.locs[p] != 0 {
		return s.locs[p]
	}
	id := s.defs.AddLocation(model.Location{Native: int64(p), Name: name, Process: int32(p)})
	if p < 1<<24 {
		for int(p) >= len(s.locs) {
			s.locs = append(s.locs, make([]model.LocID, len(s.locs)+1)...)
		}
		s.locs[p] = id
	}
	return id
}

func (s *otfSource) region(f uint32) model.RegionID {
	if int(f) < len(s.regs) && s.regs[f] != 0 {
		return s.regs[f]
	}
	if id, ok := s.defs.RegionByNative(int64(f)); ok {
		return id
	}
	return s.defs.AddRegion(model.Region{Native: int64(f)})
}

func (s *otfSource) comm(c uint32) model.CommID {
	if id, ok := s.comms[c]; ok {
		return id
	}
	id := s.defs.AddComm(model.Comm{Native: int64(c)})
	s.comms[c] = id
	return id
}

func (s *otfSource) stack(l model.LocID) *[]model.RegionID {
	for int(l) >= len(s.stacks) {
		s.stacks = append(s.stacks, nil)
	}
	return &s.stacks[l]
}

func (s *otfSource) Defs() *model.Defs   { return &s.defs }
func (s *otfSource) Event() *model.Event { return &s.ev }
func (s *otfSource) Err() error          { return s.tr.Err() }

func (s *otfSource) All() iter.Seq2[*model.Event, error] { return model.All(s) }

// Close closes the trace files.
func (s *otfSource) Close() error { return s.tr.Close() }

func (s *otfSource) Next() bool {
	if len(s.pending) > 0 {
		s.ev = s.pending[0]
		s.pending = s.pending[1:]
		return true
	}
	for s.tr.Next() {
		rec := s.tr.Record()
		e := model.Event{Time: model.Time(rec.Time), Loc: s.loc(rec.Process, "")}
		switch rec.Kind {
		case otf.KindEnter:
			v, _ := rec.Enter()
			e.Kind, e.Region = model.KindEnter, s.region(v.Function)
			if v.Source != 0 {
				e.Site = s.sites[v.Source]
			}
			st := s.stack(e.Loc)
			*st = append(*st, e.Region)
		case otf.KindLeave:
			v, _ := rec.Leave()
			e.Kind = model.KindLeave
			st := s.stack(e.Loc)
			if v.Function != 0 {
				e.Region = s.region(v.Function)
			} else if n := len(*st); n > 0 {
				e.Region = (*st)[n-1]
			}
			for i := len(*st) - 1; i >= 0; i-- {
				if (*st)[i] == e.Region {
					*st = (*st)[:i]
					break
				}
			}
		case otf.KindSend:
			v, _ := rec.Send()
			e.Kind, e.Peer, e.Tag, e.Comm, e.Bytes = model.KindSend, s.loc(v.Receiver, ""), int32(v.Tag), s.comm(v.Communicator), int64(v.Length)
		case otf.KindReceive:
			v, _ := rec.Receive()
			e.Kind, e.Peer, e.Tag, e.Comm, e.Bytes = model.KindRecv, s.loc(v.Sender, ""), int32(v.Tag), s.comm(v.Communicator), int64(v.Length)
		case otf.KindBeginCollOp:
			v, _ := rec.BeginCollOp()
			e.Kind, e.Comm, e.Match, e.Class = model.KindCollBegin, s.comm(v.Communicator), v.MatchingID, s.class[v.CollOp]
			if v.Root != 0 {
				e.Peer = s.loc(v.Root, "")
			}
			e.Bytes, e.Recvd = int64(v.Sent), int64(v.Received)
		case otf.KindEndCollOp:
			v, _ := rec.EndCollOp()
			e.Kind, e.Match = model.KindCollEnd, v.MatchingID
		case otf.KindCounter:
			v, _ := rec.Counter()
			id, ok := s.cnts[v.Counter]
			if !ok {
				id = s.defs.AddCounter(model.Counter{Native: int64(v.Counter)})
				s.cnts[v.Counter] = id
			}
			e.Kind, e.Counter, e.Value = model.KindCounter, id, int64(v.Value)
		case otf.KindEventComment:
			v, _ := rec.EventComment()
			e.Kind, e.Text = model.KindMarker, s.defs.InternBytes(v.Comment)
		case otf.KindBeginProcess, otf.KindEndProcess:
			e.Kind = model.KindMarker
		default:
			s.ignored++
			continue
		}
		s.ev = e
		return true
	}
	return false
}
