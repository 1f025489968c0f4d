package chrome_test

import (
	"bytes"
	"cmp"
	"slices"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/hpctrace/hpctrace/chrome"
	"github.com/hpctrace/hpctrace/export"
	"github.com/hpctrace/hpctrace/model"
	"pgregory.net/rapid"
)

// named is an event with its definitions' names in place of ids: what a
// written and read back trace must keep.
type named struct {
	Time                model.Time
	Loc                 string
	Kind                model.Kind
	Region, Peer, Comm  string
	Text, Counter       string
	Tag                 int32
	Bytes, Recvd, Value int64
	Flags               model.Flags
	Class               model.Class
	Process, Thread     int32
	Native              int64
}

func names(d *model.Defs, evs []model.Event) []named {
	out := make([]named, len(evs))
	for i, ev := range evs {
		l, _ := d.Location(ev.Loc)
		n := named{Time: ev.Time, Loc: d.LocationName(ev.Loc), Kind: ev.Kind, Tag: ev.Tag, Bytes: ev.Bytes,
			Recvd: ev.Recvd, Value: ev.Value, Flags: ev.Flags, Class: ev.Class, Process: l.Process, Thread: l.Thread, Native: l.Native}
		if ev.Region != 0 {
			n.Region = d.RegionName(ev.Region)
		}
		if ev.Peer != 0 {
			n.Peer = d.LocationName(ev.Peer)
		}
		if c, ok := d.Comm(ev.Comm); ok {
			n.Comm = c.Name
		}
		if c, ok := d.Counter(ev.Counter); ok {
			n.Counter = c.Name
		}
		n.Text = d.String(ev.Text)
		out[i] = n
	}
	return out
}

// genTrace draws a trace: locations (two threads a process), nested
// regions, collectives in their calls, markers of text or of a region,
// counters, and messages between the locations, on one of several clocks,
// merged by (time, location).
func genTrace(t *rapid.T) (*model.Defs, []model.Event) {
	d := new(model.Defs)
	d.TimeBase.TicksPerSecond = rapid.SampledFrom([]uint64{0, 1, 1e6, 1e9, 2_500_000_000, 3_000_000_007, 1e12, 1 << 62}).Draw(t, "tps")
	nloc := rapid.IntRange(1, 4).Draw(t, "locations")
	var locs []model.LocID
	for i := range nloc {
		locs = append(locs, d.AddLocation(model.Location{Name: "loc " + string(rune('a'+i)), Process: int32(i / 2), Thread: int32(i % 2), Native: int64(i)}))
	}
	regions := []model.RegionID{
		d.AddRegion(model.Region{Name: "main", Kind: model.RegionFunction}),
		d.AddRegion(model.Region{Name: "loop", Kind: model.RegionLoop}),
		d.AddRegion(model.Region{Name: "mark", Kind: model.RegionUser}),
	}
	coll := d.AddRegion(model.Region{Name: "MPI_Allreduce", Kind: model.RegionCollective})
	world := d.AddComm(model.Comm{Name: "world"})
	ctr := d.AddCounter(model.Counter{Name: "flops"})
	texts := []model.StringID{d.Intern("phase"), d.Intern("a \"quoted\"\nline"), d.Intern("mark")}
	type seqEv struct {
		ev  model.Event
		loc int
		seq int
	}
	var all []seqEv
	for li, loc := range locs {
		now := model.Time(rapid.Int64Range(-1000, 1000).Draw(t, "start"))
		var stack []model.RegionID
		n := rapid.IntRange(0, 30).Draw(t, "events")
		var evs []model.Event
		for range n {
			now += model.Time(rapid.Int64Range(0, 1<<40).Draw(t, "step"))
			ev := model.Event{Time: now, Loc: loc}
			switch rapid.IntRange(0, 6).Draw(t, "action") {
			case 0:
				ev.Kind, ev.Region = model.KindEnter, rapid.SampledFrom(regions).Draw(t, "region")
				stack = append(stack, ev.Region)
			case 1:
				if len(stack) == 0 {
					continue
				}
				ev.Kind, ev.Region = model.KindLeave, stack[len(stack)-1]
				stack = stack[:len(stack)-1]
			case 2:
				ev.Kind = model.KindMarker
				if rapid.Bool().Draw(t, "text") {
					ev.Text = rapid.SampledFrom(texts).Draw(t, "text")
				} else {
					ev.Region = regions[2]
				}
			case 3:
				ev.Kind, ev.Counter, ev.Value = model.KindCounter, ctr, rapid.Int64().Draw(t, "value")
			case 4, 5:
				ev.Kind = model.KindSend
				if rapid.Bool().Draw(t, "recv") {
					ev.Kind = model.KindRecv
				}
				ev.Peer = rapid.SampledFrom(locs).Draw(t, "peer")
				ev.Tag = rapid.Int32Range(-1, 3).Draw(t, "tag")
				ev.Bytes = rapid.Int64Range(0, 1<<40).Draw(t, "bytes")
				ev.Flags = rapid.SampledFrom([]model.Flags{0, model.SyncMode, model.Waited, model.NotWaited | model.BytesUnknown}).Draw(t, "flags")
				if rapid.Bool().Draw(t, "comm") {
					ev.Comm = world
				}
			case 6:
				root := model.LocID(0)
				if rapid.Bool().Draw(t, "rooted") {
					root = rapid.SampledFrom(locs).Draw(t, "root")
				}
				evs = append(evs,
					model.Event{Time: now, Loc: loc, Kind: model.KindEnter, Region: coll},
					model.Event{Time: now, Loc: loc, Kind: model.KindCollBegin, Region: coll, Comm: world, Peer: root,
						Class: model.ClassAllToAll, Bytes: 8, Recvd: 16})
				now += model.Time(rapid.Int64Range(0, 100).Draw(t, "coll"))
				evs = append(evs,
					model.Event{Time: now, Loc: loc, Kind: model.KindCollEnd},
					model.Event{Time: now, Loc: loc, Kind: model.KindLeave, Region: coll})
				continue
			}
			evs = append(evs, ev)
		}
		for len(stack) > 0 { // close what is open, as the writer would at its Close
			evs = append(evs, model.Event{Time: now, Loc: loc, Kind: model.KindLeave, Region: stack[len(stack)-1]})
			stack = stack[:len(stack)-1]
		}
		for i, ev := range evs {
			all = append(all, seqEv{ev, li, i})
		}
	}
	slices.SortFunc(all, func(a, b seqEv) int {
		return cmp.Or(cmp.Compare(a.ev.Time, b.ev.Time), cmp.Compare(a.loc, b.loc), cmp.Compare(a.seq, b.seq))
	})
	out := make([]model.Event, len(all))
	for i := range all {
		out[i] = all[i].ev
	}
	return d, out
}

// propRoundTrip writes a drawn trace and reads it back: every event comes
// back, in order, with its time in the trace's own ticks and its names.
func propRoundTrip(t *rapid.T) {
	d, evs := genTrace(t)
	var buf bytes.Buffer
	if err := export.WriteChrome(&buf, model.NewSliceSource(d, evs)); err != nil {
		t.Fatal(err)
	}
	r, err := chrome.NewReader(bytes.NewReader(buf.Bytes()), nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []model.Event
	for r.Next() {
		got = append(got, *r.Event())
	}
	if err := r.Err(); err != nil {
		t.Fatalf("%v\n%s", err, buf.Bytes())
	}
	if r.Defs().TimeBase != d.TimeBase {
		t.Fatalf("time base %v, want %v", r.Defs().TimeBase, d.TimeBase)
	}
	if diff := gocmp.Diff(names(d, evs), names(r.Defs(), got)); diff != "" {
		t.Fatalf("round trip (-want +got):\n%s\n%s", diff, buf.Bytes())
	}
	if dg := r.Diagnostics(); dg != (chrome.Diagnostics{}) {
		t.Fatalf("Diagnostics() = %+v, want zero", dg)
	}
}

func TestRoundTripProperty(t *testing.T) { rapid.Check(t, propRoundTrip) }

func FuzzRoundTrip(f *testing.F) { f.Fuzz(rapid.MakeFuzz(propRoundTrip)) }
