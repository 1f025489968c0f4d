package waitstate_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/hpctrace/hpctrace"
	"github.com/hpctrace/hpctrace/eventjson"
	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/otf"
	"github.com/hpctrace/hpctrace/otf2"
	"github.com/hpctrace/hpctrace/picl"
	"github.com/hpctrace/hpctrace/waitstate"
	"pgregory.net/rapid"
)

// A traceFormat writes a hand case with the SDK's own writer and names
// the file hpctrace.Open reads back.
type traceFormat struct {
	name string
	// write writes the events to dir and returns the file to open.
	write func(t rapid.TB, dir string, defs *model.Defs, events []model.Event) string
	// keep returns the events the format can express (see keepModel).
	keep func(events []model.Event) []model.Event
	// requests: the format records requests itself (DUMPI's MPI_Irecv and
	// MPI_Wait*), so it is written from all the events and compared with
	// the original report when its model yields them.
	requests bool
	// dumpi: the format records no MPI-3 function, so the non-blocking
	// collectives and the calls that start them are not written
	// (noICollCalls), whatever keep and requests say.
	dumpi bool
	opts  *hpctrace.Options
}

// kept returns the events f can express: keep's, and for DUMPI without
// the non-blocking collectives' calls; all is whether to keep requests too
// (f.requests and the events read back have them).
func (f *traceFormat) kept(defs *model.Defs, events []model.Event, all bool) []model.Event {
	if !all {
		events = f.keep(events)
	}
	if f.dumpi {
		events = noICollCalls(defs)(events)
	}
	return events
}

// keepModel drops what no model writer of this tree writes: request ids
// (RecvPost, SendDone and the Match of sends and receives). Such a trace
// reads back as the model says of formats without postings: every
// receive was posted by the call that completes it, every send completes
// in its own call.
func keepModel(events []model.Event) []model.Event {
	var out []model.Event
	for _, e := range events {
		switch e.Kind {
		case model.KindRecvPost, model.KindSendDone:
			continue
		case model.KindSend, model.KindRecv:
			e.Match = 0
		}
		out = append(out, e)
	}
	return out
}

// keepNoICollective drops, besides, the non-blocking collectives (CollPost
// and CollDone), which OTF 1.x cannot express.
func keepNoICollective(events []model.Event) []model.Event {
	return noICollEvents(keepModel(events))
}

func noICollEvents(events []model.Event) []model.Event {
	var out []model.Event
	for _, e := range events {
		if e.Kind != model.KindCollPost && e.Kind != model.KindCollDone {
			out = append(out, e)
		}
	}
	return out
}

// noICollCalls drops the non-blocking collectives with the calls that
// start them: DUMPI records no MPI-3 function.
func noICollCalls(defs *model.Defs) func([]model.Event) []model.Event {
	return func(events []model.Event) []model.Event {
		var out []model.Event
		for _, e := range noICollEvents(events) {
			if e.Kind == model.KindEnter || e.Kind == model.KindLeave {
				if r, _ := defs.Region(e.Region); isICollName(r.Name) {
					continue
				}
			}
			out = append(out, e)
		}
		return out
	}
}

// isICollName reports whether name is one of the non-blocking collectives
// the hand cases and generated programs call.
func isICollName(name string) bool {
	return slices.Contains([]string{"MPI_Ibarrier", "MPI_Iallreduce", "MPI_Ibcast", "MPI_Ireduce", "MPI_Iscan"}, name)
}

// keepPICL also drops collective operations: PICL's model writer keeps the
// region around a collective, not the operation (PICL has no
// communicators or roots).
func keepPICL(events []model.Event) []model.Event {
	var out []model.Event
	for _, e := range keepNoICollective(events) {
		if e.Kind != model.KindCollBegin && e.Kind != model.KindCollEnd {
			out = append(out, e)
		}
	}
	return out
}

var traceFormats = []traceFormat{
	{name: "OTF2", keep: keepModel, write: func(t rapid.TB, dir string, defs *model.Defs, events []model.Event) string {
		w, err := otf2.NewModelWriter(model.DirCreator(dir), defs, nil)
		if err != nil {
			t.Fatal(err)
		}
		writeAll(t, events, w.Write, w.Close)
		return filepath.Join(dir, "traces.otf2")
	}},
	{name: "OTF", keep: keepNoICollective, write: func(t rapid.TB, dir string, defs *model.Defs, events []model.Event) string {
		create := model.CreateFunc(func(name string) (io.WriteCloser, error) { return os.Create(filepath.Join(dir, name)) })
		w, err := otf.NewModelWriter(create, defs, &otf.ModelWriterOptions{Stub: "trace"})
		if err != nil {
			t.Fatal(err)
		}
		writeAll(t, events, w.Write, w.Close)
		return filepath.Join(dir, "trace.otf")
	}},
	{name: "JSON", keep: keepModel, write: func(t rapid.TB, dir string, defs *model.Defs, events []model.Event) string {
		var buf bytes.Buffer
		w, err := eventjson.NewWriter(&buf, defs, nil)
		if err != nil {
			t.Fatal(err)
		}
		writeAll(t, events, w.Write, w.Close)
		name := filepath.Join(dir, "trace.json")
		if err := os.WriteFile(name, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return name
	}},
	{name: "PICL", keep: keepPICL, opts: &hpctrace.Options{PICL: &picl.ModelOptions{TicksPerSecond: 1e9}},
		write: func(t rapid.TB, dir string, defs *model.Defs, events []model.Event) string {
			var buf bytes.Buffer
			w, err := picl.NewModelWriter(&buf, defs, nil)
			if err != nil {
				t.Fatal(err)
			}
			writeAll(t, events, w.Write, w.Close)
			name := filepath.Join(dir, "trace.trf")
			if err := os.WriteFile(name, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			return name
		}},
	{name: "DUMPI", keep: keepModel, dumpi: true, requests: true, write: writeDUMPI},
}

func writeAll(t rapid.TB, events []model.Event, write func(*model.Event) error, closeW func() error) {
	t.Helper()
	for i := range events {
		if err := write(&events[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := closeW(); err != nil {
		t.Fatal(err)
	}
}

// lost says, for each hand case a format cannot express, why: what the
// format (or its writer in this tree) does not keep and the pattern that
// therefore changes. Every other (case, format) pair must give the
// original report.
var lost = map[string]map[string]string{
	"late_receiver_isend_wait": {
		"OTF2":  "no SendDone: the Isend call completes the send and returned before the posting, so no late receiver",
		"OTF":   "no request records: as OTF2",
		"JSON":  "the JSON form has no request fields yet: as OTF2",
		"PICL":  "no requests: as OTF2",
		"DUMPI": "the DUMPI model gives no SendDone for the MPI_Wait yet: as OTF2",
	},
	"wait_barrier":          {"PICL": "PICL's model writer keeps no collective operation (sync0 is not written for MPI_Barrier)"},
	"wait_nxn":              {"PICL": "no collective operations, no bytes received"},
	"late_broadcast":        {"PICL": "no collective operations and no roots"},
	"early_reduce":          {"PICL": "no collective operations and no roots"},
	"early_scan":            {"PICL": "no collective operations and no communicator ranks"},
	"wait_inxn":             icollLost,
	"late_ibroadcast":       icollLost,
	"early_ireduce":         icollLost,
	"early_iscan":           icollLost,
	"wait_ibarrier_waitall": icollLost,
}

// icollLost is what the formats without non-blocking collectives lose of
// their hand cases.
var icollLost = map[string]string{
	"OTF":   "OTF 1.x has no non-blocking collective records: no wait of §2.6",
	"PICL":  "no collective operations: no wait of §2.6",
	"DUMPI": "DUMPI records no MPI-3 function: neither the non-blocking collectives nor the calls that start them",
}

// TestReferenceEveryFormat writes every hand case in every format, reads
// it back with hpctrace.Open and checks that the reference gives the same
// report from it as from the events the format keeps, and that those give
// the original report unless the table lost says why not.
func TestReferenceEveryFormat(t *testing.T) {
	for _, h := range waitstate.HandTraces() {
		want := waitstate.ReferenceReport(h.Defs, h.Events)
		for _, f := range traceFormats {
			t.Run(h.Name+"/"+f.name, func(t *testing.T) {
				kept := f.kept(h.Defs, h.Events, false)
				keptRep := waitstate.ReferenceReport(h.Defs, kept)
				same := cmp.Diff(want, keptRep, reportOpts...) == ""
				if why := lost[h.Name][f.name]; (why == "") != same {
					t.Errorf("the events %s keeps give the original report: %v; the table says lost %q", f.name, same, why)
				}
				written := kept
				if f.requests {
					written = h.Events
				}
				name := f.write(t, t.TempDir(), h.Defs, written)
				d, events, orig := readBack(t, name, f.opts, h.Defs)
				got := waitstate.ReferenceReport(d, events)
				renumber(got, d)
				if orig {
					keptRep = waitstate.ReferenceReport(h.Defs, f.kept(h.Defs, h.Events, true)) // the format kept the request ids
				}
				if diff := cmp.Diff(keptRep, got, reportOpts...); diff != "" {
					t.Errorf("report read back from %s (-want +got):\n%s", f.name, diff)
				}
			})
		}
	}
}

// TestReferenceEveryFormatGenerated writes generated MPI programs in every
// format and checks that the reference gives the same report from the file
// read back as from the events the format keeps.
func TestReferenceEveryFormatGenerated(t *testing.T) {
	root := t.TempDir()
	n := 0
	rapid.Check(t, func(rt *rapid.T) {
		h := waitstate.GenTrace().Draw(rt, "program")
		for _, f := range traceFormats {
			kept := f.kept(h.Defs, h.Events, false)
			want := waitstate.ReferenceReport(h.Defs, kept)
			written := kept
			if f.requests {
				written = h.Events
			}
			n++
			dir := filepath.Join(root, strconv.Itoa(n))
			if err := os.Mkdir(dir, 0o755); err != nil {
				rt.Fatal(err)
			}
			name := f.write(rt, dir, h.Defs, written)
			d, events, orig := readBack(rt, name, f.opts, h.Defs)
			if orig {
				want = waitstate.ReferenceReport(h.Defs, f.kept(h.Defs, h.Events, true))
			}
			got := waitstate.ReferenceReport(d, events)
			renumber(got, d)
			if diff := cmp.Diff(want, got, reportOpts...); diff != "" {
				rt.Fatalf("report read back from %s (-want +got):\n%s", f.name, diff)
			}
		}
	})
}

var reportOpts = []cmp.Option{cmpopts.EquateEmpty(), cmpopts.EquateApprox(0, 1e-9),
	cmpopts.IgnoreFields(waitstate.Report{}, "TimeBase")}

// readBack opens name and reads every event but those of the tracing
// system's regions (PICL's tracenode … traceexit bracket); it reports
// whether the events have request ids (RecvPost, SendDone).
func readBack(t rapid.TB, name string, opts *hpctrace.Options, defs *model.Defs) (*model.Defs, []model.Event, bool) {
	t.Helper()
	tr, err := hpctrace.Open(name, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	var events []model.Event
	requests := false
	src := noTracing{tr}
	for src.Next() {
		e := src.Event()
		if e.Kind == model.KindRecvPost || e.Kind == model.KindSendDone {
			requests = true
		}
		events = append(events, *e)
	}
	if err := src.Err(); err != nil {
		t.Fatal(err)
	}
	d := tr.Defs()
	if got, want := d.TimeBase, defs.TimeBase; got != want {
		t.Fatalf("time base %v read back, want %v", got, want)
	}
	if got, want := d.NumLocations(), defs.NumLocations(); got != want {
		t.Fatalf("%d locations read back, want %d", got, want)
	}
	return d, events, requests
}

// noTracing is a source without the Enter and Leave events of regions of
// the tracing system.
type noTracing struct{ model.Source }

func (s noTracing) Next() bool {
	for s.Source.Next() {
		e := s.Event()
		if e.Kind == model.KindEnter || e.Kind == model.KindLeave {
			if r, _ := s.Defs().Region(e.Region); r.Kind == model.RegionTracing {
				continue
			}
		}
		return true
	}
	return false
}

// renumber numbers the locations of a report read back from a file as
// the hand case does: the i-th location of d is location i.
func renumber(rep *waitstate.Report, d *model.Defs) {
	locs := d.Locations()
	loc := func(id model.LocID) model.LocID {
		return model.LocID(slices.IndexFunc(locs, func(l model.Location) bool { return l.ID == id }) + 1)
	}
	for i := range rep.WaitStates {
		rep.WaitStates[i].Loc = loc(rep.WaitStates[i].Loc)
	}
	for i := range rep.DelayCosts {
		rep.DelayCosts[i].Loc = loc(rep.DelayCosts[i].Loc)
	}
	for i := range rep.CriticalPath.Locations {
		rep.CriticalPath.Locations[i].Loc = loc(rep.CriticalPath.Locations[i].Loc)
	}
	for i := range rep.CriticalSegments {
		rep.CriticalSegments[i].Loc = loc(rep.CriticalSegments[i].Loc)
	}
}
