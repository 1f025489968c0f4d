package main

import (
	"fmt"

	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/otf"
)

// toOTF converts in to the OTF trace whose master file is out.
func toOTF(in modelInput, out string, o *otfFlags) error {
	if o.form != "short" && o.form != "long" {
		return fmt.Errorf("-form %q: want short or long", o.form)
	}
	return withOTFOutput(out, func(create otf.Creator, stub string) error {
		return writeOTF(in, create, stub, o)
	})
}

// otfConv holds the token tables of a conversion to OTF. Process, function,
// process group, counter and source-location tokens are the model ids, so
// only function groups, source files and collective operations need tables.
type otfConv struct {
	sc      *scan
	shift   model.Time // added to every time: OTF times are unsigned
	groups  map[string]uint32
	files   map[string]uint32
	scls    map[model.Site]uint32
	colls   map[collKey]uint32
	open    stacks
	comment []byte
}

// writeOTF writes the definitions from a first pass over in, then the
// events of a second pass, to the trace stub created through c.
func writeOTF(in modelInput, c otf.Creator, stub string, o *otfFlags) error {
	sc, err := scanModel(in)
	if err != nil {
		return err
	}
	cv := &otfConv{sc: sc, groups: map[string]uint32{}, files: map[string]uint32{},
		scls: map[model.Site]uint32{}, colls: map[collKey]uint32{}}
	if sc.min < 0 {
		cv.shift = -sc.min
	}
	// One stream per location with events, or -streams of them round
	// robin; locations without events are defined but in no stream.
	var procs []uint32
	for _, l := range sc.defs.Locations() {
		if sc.count[l.ID] > 0 {
			procs = append(procs, uint32(l.ID))
		}
	}
	m := len(procs)
	if o.streams > 0 {
		m = min(o.streams, m)
	}
	streams := make([]otf.Stream, max(m, 1))
	for i := range streams {
		streams[i].ID = uint32(i + 1)
	}
	for i, p := range procs {
		s := &streams[i%len(streams)]
		s.Processes = append(s.Processes, p)
	}
	w, err := otf.NewTraceWriter(c, stub, &otf.TraceWriterOptions{
		WriterOptions: otf.WriterOptions{Long: o.form == "long", Zlib: o.zlib, ZlibBlockSize: o.zlibBlock},
		Streams:       streams,
	})
	if err != nil {
		return err
	}
	if err := cv.writeDefs(w); err != nil {
		w.Close()
		return err
	}
	src, closeSrc, err := in()
	if err != nil {
		w.Close()
		return err
	}
	var rec otf.Record
	for src.Next() {
		ev := src.Event()
		for i, ok := 0, true; ok; i++ {
			ok = cv.event(&rec, ev, i, src.Defs())
			if rec.Kind == otf.KindUnknown {
				continue
			}
			if err := w.Write(&rec); err != nil {
				w.Close()
				return closeAll(err, closeSrc)
			}
		}
	}
	if err := src.Err(); err != nil {
		w.Close()
		return closeAll(err, closeSrc)
	}
	return closeAll(w.Close(), closeSrc)
}

func (cv *otfConv) writeDefs(w *otf.TraceWriter) error {
	d := cv.sc.defs
	var err error
	def := func(set func(*otf.Record)) {
		if err != nil {
			return
		}
		var rec otf.Record
		set(&rec)
		err = w.Write(&rec)
	}
	def(func(r *otf.Record) { r.SetDefCreator(otf.DefCreator{Creator: []byte("hpctrace traceconv")}) })
	def(func(r *otf.Record) {
		r.SetDefTimerResolution(otf.DefTimerResolution{TicksPerSecond: max(d.TimeBase.TicksPerSecond, 1)})
	})
	// Processes; a thread's parent is the main thread of its process.
	mainThread := map[int32]model.LocID{}
	for _, l := range d.Locations() {
		if l.Thread == 0 {
			if _, ok := mainThread[l.Process]; !ok {
				mainThread[l.Process] = l.ID
			}
		}
	}
	for _, l := range d.Locations() {
		p := otf.DefProcess{Process: uint32(l.ID), Name: []byte(l.Name)}
		if l.Thread != 0 {
			p.Parent = uint32(mainThread[l.Process])
		}
		def(func(r *otf.Record) { r.SetDefProcess(p) })
	}
	for _, c := range d.Comms() {
		g := otf.DefProcessGroup{Group: uint32(c.ID), Name: []byte(c.Name)}
		for _, m := range c.Members {
			g.Members = append(g.Members, uint32(m))
		}
		def(func(r *otf.Record) { r.SetDefProcessGroup(g) })
	}
	// Source locations: every site, then the regions' own file and line.
	scl := func(s model.Site) uint32 {
		s.ID = 0
		if t, ok := cv.scls[s]; ok {
			return t
		}
		f, ok := cv.files[s.File]
		if !ok {
			f = uint32(len(cv.files) + 1)
			cv.files[s.File] = f
			def(func(r *otf.Record) { r.SetDefSCLFile(otf.DefSCLFile{SCLFile: f, Name: []byte(s.File)}) })
		}
		t := uint32(len(cv.scls) + 1)
		cv.scls[s] = t
		def(func(r *otf.Record) { r.SetDefSCL(otf.DefSCL{SCL: t, SCLFile: f, Line: uint32(s.Line)}) })
		return t
	}
	for _, s := range d.Sites() {
		scl(s)
	}
	for _, reg := range d.Regions() {
		g := reg.Group
		if g == "" {
			switch reg.Kind {
			case model.RegionComm, model.RegionCollective:
				g = "MPI"
			case model.RegionIO:
				g = "I/O"
			default:
				g = "Application"
			}
		}
		gt, ok := cv.groups[g]
		if !ok {
			gt = uint32(len(cv.groups) + 1)
			cv.groups[g] = gt
			def(func(r *otf.Record) { r.SetDefFunctionGroup(otf.DefFunctionGroup{Group: gt, Name: []byte(g)}) })
		}
		f := otf.DefFunction{Function: uint32(reg.ID), Group: gt, Name: []byte(reg.Name)}
		if reg.File != "" || reg.Line != 0 {
			f.Source = scl(model.Site{File: reg.File, Line: reg.Line})
		}
		def(func(r *otf.Record) { r.SetDefFunction(f) })
	}
	for i, k := range cv.sc.colls {
		t := uint32(i + 1)
		cv.colls[k] = t
		name := k.class.String()
		if reg, ok := d.Region(k.region); ok && reg.Name != "" {
			name = reg.Name
		}
		def(func(r *otf.Record) {
			r.SetDefCollOp(otf.DefCollOp{CollOp: t, Name: []byte(name), Type: uint32(k.class)})
		})
	}
	if len(d.Counters()) > 0 {
		def(func(r *otf.Record) { r.SetDefCounterGroup(otf.DefCounterGroup{Group: 1, Name: []byte("counters")}) })
	}
	for _, c := range d.Counters() {
		props := uint32(1) // absolute, unsigned 64-bit
		if c.Accumulating {
			props = 0
		}
		def(func(r *otf.Record) {
			r.SetDefCounter(otf.DefCounter{Counter: uint32(c.ID), Group: 1, Name: []byte(c.Name),
				Properties: props, Unit: []byte(c.Unit)})
		})
	}
	return err
}

// event sets rec to the i-th OTF record for ev and reports whether another
// follows. rec.Kind is KindUnknown when ev gives no record.
func (cv *otfConv) event(rec *otf.Record, ev *model.Event, i int, d *model.Defs) (more bool) {
	*rec = otf.Record{Time: uint64(ev.Time + cv.shift), Process: uint32(ev.Loc)}
	switch ev.Kind {
	case model.KindEnter:
		if ev.Region == 0 {
			return false // an undefined region: nothing to enter
		}
		cv.open.enter(ev.Loc, ev.Region)
		v := otf.Enter{Function: uint32(ev.Region)}
		if site, ok := d.Site(ev.Site); ok {
			v.Source = cv.scls[model.Site{File: site.File, Line: site.Line}]
		}
		rec.SetEnter(v)
	case model.KindLeave:
		r, ok := cv.open.leave(ev.Loc, ev.Region)
		if !ok && r == 0 {
			return false // nothing open to leave
		}
		rec.SetLeave(otf.Leave{Function: uint32(r)})
	case model.KindSend:
		rec.SetSend(otf.Send{Receiver: uint32(ev.Peer), Length: clamp32(ev.Bytes), Tag: uint32(ev.Tag), Communicator: uint32(ev.Comm)})
	case model.KindRecv:
		rec.SetReceive(otf.Receive{Sender: uint32(ev.Peer), Length: clamp32(ev.Bytes), Tag: uint32(ev.Tag), Communicator: uint32(ev.Comm)})
	case model.KindCollBegin:
		rec.SetBeginCollOp(otf.BeginCollOp{CollOp: cv.colls[collKey{ev.Region, ev.Class}], MatchingID: ev.Match,
			Communicator: uint32(ev.Comm), Root: uint32(ev.Peer), Sent: uint64(max(ev.Bytes, 0)), Received: uint64(max(ev.Recvd, 0))})
	case model.KindCollEnd:
		rec.SetEndCollOp(otf.EndCollOp{MatchingID: ev.Match})
	case model.KindCounter:
		rec.SetCounter(otf.Counter{Counter: uint32(ev.Counter), Value: uint64(ev.Value)})
	case model.KindMarker:
		// A marker of a region is a zero-length visit; its text a comment.
		steps := 0
		if ev.Region != 0 {
			steps = 2
		}
		switch {
		case i < steps && i == 0:
			rec.SetEnter(otf.Enter{Function: uint32(ev.Region)})
		case i < steps:
			rec.SetLeave(otf.Leave{Function: uint32(ev.Region)})
		case ev.Text != 0 || steps == 0:
			cv.comment = append(cv.comment[:0], d.String(ev.Text)...)
			rec.SetEventComment(otf.EventComment{Comment: cv.comment})
		}
		last := steps - 1
		if ev.Text != 0 || steps == 0 {
			last = steps
		}
		return i < last
	}
	return false
}

func clamp32(n int64) uint32 { return uint32(min(max(n, 0), 1<<32-1)) }
