package picl_test

import (
	"bytes"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/picl"
)

func modelSource(t testing.TB, data []byte) *picl.ModelSource {
	t.Helper()
	r, err := picl.NewReader(bytes.NewReader(data), nil)
	if err != nil {
		t.Fatal(err)
	}
	src, err := picl.NewModelSource(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func modelEvents(t testing.TB, name string) ([]model.Event, *model.Defs) {
	t.Helper()
	src := modelSource(t, readFixture(t, name))
	var evs []model.Event
	for ev, err := range src.All() {
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, *ev)
	}
	return evs, src.Defs()
}

func TestModelAppendixA(t *testing.T) {
	evs, defs := modelEvents(t, "appendix_a")
	counts := map[model.Kind]int{}
	for _, ev := range evs {
		counts[ev.Kind]++
	}
	want := map[model.Kind]int{model.KindEnter: 10, model.KindLeave: 10, model.KindSend: 1, model.KindRecv: 2, model.KindMarker: 4}
	for k, n := range want {
		if counts[k] != n {
			t.Errorf("%v events: %d, want %d", k, counts[k], n)
		}
	}
	if defs.TimeBase.TicksPerSecond != 1_000_000 || evs[0].Time != -715036 || evs[0].Kind != model.KindEnter {
		t.Errorf("first event %+v, time base %v", evs[0], defs.TimeBase)
	}
	p6, ok := defs.LocationByNative(6)
	if !ok {
		t.Fatal("no location for processor 6")
	}
	for _, ev := range evs {
		if ev.Loc != p6 {
			t.Errorf("event %+v not on processor 6", ev)
		}
		switch ev.Kind {
		case model.KindSend:
			peer, _ := defs.Location(ev.Peer)
			if ev.Time != 1665 || peer.Native != 7 || ev.Tag != 1 || ev.Bytes != 8 {
				t.Errorf("send %+v to %+v", ev, peer)
			}
		case model.KindRecv:
			peer, _ := defs.Location(ev.Peer)
			if ev.Flags != model.Waited || ev.Bytes != 8 || !(peer.Native == 0 && ev.Tag == 0 || peer.Native == 5 && ev.Tag == 1) {
				t.Errorf("recv %+v from %+v", ev, peer)
			}
		}
	}
	if len(defs.Recorded) != 32 {
		t.Errorf("%d recorded statistics, want 32 pairs", len(defs.Recorded))
	}
	// Recompute the -101 -1 times (relative to the whole run) from the
	// events: PICL rounds each timestamp to a microsecond, so allow one tick
	// per interval (the fixture's README lists the three 1-tick cases).
	type key struct {
		loc    model.LocID
		region model.RegionID
	}
	total := map[key]model.Time{}
	intervals := map[key]int64{}
	open := map[key]model.Time{}
	for _, ev := range evs {
		k := key{ev.Loc, ev.Region}
		switch ev.Kind {
		case model.KindEnter:
			open[k] = ev.Time
		case model.KindLeave:
			total[k] += ev.Time - open[k]
			intervals[k]++
		}
	}
	checked := 0
	for _, r := range defs.Recorded {
		if r.Kind != model.RecordedTime || r.RelativeTo != -1 {
			continue
		}
		k := key{r.Loc, r.Region}
		diff := int64(total[k]) - r.Value
		if diff < -intervals[k] || diff > intervals[k] || intervals[k] == 0 {
			reg, _ := defs.Region(r.Region)
			t.Errorf("%s: recorded %d ticks, events give %d over %d intervals", reg.Name, r.Value, total[k], intervals[k])
		}
		checked++
	}
	if checked != 9 {
		t.Errorf("checked %d time statistics, want 9", checked)
	}
}

// TestModelNesting: on every fixture, each location's Leave closes the
// innermost open region, Sends and Recvs happen inside a region, and every
// id refers to a definition.
func TestModelNesting(t *testing.T) {
	for _, name := range fixtures(t) {
		evs, defs := modelEvents(t, name)
		stacks := map[model.LocID][]model.RegionID{}
		for i, ev := range evs {
			if _, ok := defs.Location(ev.Loc); !ok {
				t.Fatalf("%s: event %d: undefined location %d", name, i, ev.Loc)
			}
			st := stacks[ev.Loc]
			switch ev.Kind {
			case model.KindEnter:
				stacks[ev.Loc] = append(st, ev.Region)
			case model.KindLeave:
				if len(st) == 0 || st[len(st)-1] != ev.Region {
					t.Errorf("%s: event %d: leave %d with open %v", name, i, ev.Region, st)
					continue
				}
				stacks[ev.Loc] = st[:len(st)-1]
			case model.KindSend, model.KindRecv:
				if len(st) == 0 {
					t.Errorf("%s: event %d: %v outside a region", name, i, ev.Kind)
				}
				if _, ok := defs.Location(ev.Peer); !ok {
					t.Errorf("%s: event %d: undefined peer %d", name, i, ev.Peer)
				}
			}
		}
		for loc, st := range stacks {
			if len(st) != 0 {
				t.Errorf("%s: location %d ends with open regions %v", name, loc, st)
			}
		}
	}
}

func TestModelMapping(t *testing.T) {
	// Labels name regions and locations.
	_, defs := modelEvents(t, "labels_messages")
	names := map[int64]string{}
	for _, r := range defs.Regions() {
		names[r.Native] = r.Name
	}
	if names[1] != "ring broadcast" || names[0] != "" || names[-911] != "tracemsg" {
		t.Errorf("region names %v", names)
	}
	if l, _ := defs.Location(1); l.Name != "master node" {
		t.Errorf("location 1 %+v", l)
	}
	// The host, and a send to it.
	evs, defs := modelEvents(t, "host_negative")
	host, ok := defs.LocationByNative(32767)
	if l, _ := defs.Location(host); !ok || !l.Host {
		t.Errorf("host location %+v", l)
	}
	sends := 0
	for _, ev := range evs {
		if ev.Kind == model.KindSend && ev.Peer == host {
			sends++
		}
	}
	if sends != 1 {
		t.Errorf("%d sends to the host, want 1", sends)
	}
	// Dropped fields: no Send/Recv without the partner; -1 length is
	// BytesUnknown.
	evs, _ = modelEvents(t, "dropped_fields")
	var got []string
	for _, ev := range evs {
		if ev.Kind == model.KindSend || ev.Kind == model.KindRecv {
			got = append(got, ev.Kind.String()+":"+ev.Flags.String())
		}
	}
	want := "send:0 recv:waited send:0 recv:waited send:bytes_unknown recv:waited|bytes_unknown"
	if strings.Join(got, " ") != want {
		t.Errorf("messages %v, want %s", got, want)
	}
	// Barriers: CollBegin after the Enter, CollEnd before the Leave, matched
	// per location.
	evs, defs = modelEvents(t, "subsets_stats")
	begins, ends := 0, 0
	for i, ev := range evs {
		switch ev.Kind {
		case model.KindCollBegin:
			begins++
			if evs[i-1].Kind != model.KindEnter || ev.Class != model.ClassBarrier || ev.Match == 0 {
				t.Errorf("coll begin %+v after %+v", ev, evs[i-1])
			}
		case model.KindCollEnd:
			ends++
			if evs[i+1].Kind != model.KindLeave {
				t.Errorf("coll end %+v before %+v", ev, evs[i+1])
			}
		}
	}
	if begins != 5 || ends != 5 {
		t.Errorf("%d coll begins, %d ends; want 5 and 5", begins, ends)
	}
	if subs := defs.Subsets(); len(subs) != 1 || subs[0].Native != 100 || len(subs[0].Members) != 3 {
		t.Errorf("subsets %+v", subs)
	}
	unknown := 0
	for _, r := range defs.Recorded {
		if r.Unknown {
			unknown++
		}
	}
	if unknown != 3 {
		t.Errorf("%d unknown statistics, want 3 (-53, -54 and subset 100)", unknown)
	}
}

func TestModelAllocs(t *testing.T) {
	// A steady stream without statistics (which append to Defs().Recorded).
	var b bytes.Buffer
	for _, name := range []string{"ring4", "labels_messages", "user_records", "host_negative"} {
		data, err := os.ReadFile("testdata/" + name + ".trf")
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range bytes.SplitAfter(data, []byte("\n")) {
			if !bytes.HasPrefix(line, []byte("-10")) {
				b.Write(line)
			}
		}
	}
	r, err := picl.NewReader(&endless{data: b.Bytes()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	src, err := picl.NewModelSource(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	for range 2000 {
		if !src.Next() {
			t.Fatal(src.Err())
		}
	}
	if n := testing.AllocsPerRun(10000, func() {
		if !src.Next() {
			t.Fatal(src.Err())
		}
	}); n != 0 {
		t.Fatalf("Next allocates %.2f times per event; want 0", n)
	}
}

// TestModelProcessorSubsetBarriers: a sync0 over a processor subset
// defined by -201 runs on a communicator of the subset's locations, and
// Match counts per location and communicator; a sync0 over everybody (or
// without fields) has Comm 0.
func TestModelProcessorSubsetBarriers(t *testing.T) {
	evs, defs := modelEvents(t, "subsets_stats")
	type begin struct {
		proc    int32
		subset  int64
		members []int32
		match   uint64
	}
	var got []begin
	for _, ev := range evs {
		if ev.Kind != model.KindCollBegin {
			continue
		}
		loc, _ := defs.Location(ev.Loc)
		c, ok := defs.Comm(ev.Comm)
		if !ok {
			t.Fatalf("coll begin on processor %d: communicator %d not defined", loc.Process, ev.Comm)
		}
		var members []int32
		for _, m := range c.Members {
			l, _ := defs.Location(m)
			members = append(members, l.Process)
		}
		got = append(got, begin{loc.Process, c.Native, members, ev.Match})
	}
	want := []begin{
		{0, -2, []int32{0, 1, 2}, 1}, {1, -2, []int32{0, 1, 2}, 1}, {2, -2, []int32{0, 1, 2}, 1},
		{2, -3, []int32{2, 3}, 1}, {3, -3, []int32{2, 3}, 1},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("barriers (processor, subset, members, match):\n got %v\nwant %v", got, want)
	}
	evs, _ = modelEvents(t, "dropped_fields")
	for _, ev := range evs {
		if ev.Kind == model.KindCollBegin && ev.Comm != 0 {
			t.Errorf("barrier over everybody on communicator %d, want 0", ev.Comm)
		}
	}
}

// TestModelSubsetCommBudget: the communicators of processor subsets hold
// at most 8 members per processor the -201 records list; a barrier past
// that has Comm 0, so a small file cannot define a quadratic number of
// locations.
func TestModelSubsetCommBudget(t *testing.T) {
	var b strings.Builder
	b.WriteString("-201 -1 -1.000000 -1 -1 3 2 -2 0 1\n")
	for p := range 9 {
		fmt.Fprintf(&b, "-3 -402 0.0000%02d 0 %d 2 2 -2 -1\n-4 -402 0.0000%02d 0 %d 0\n", 2*p+10, p, 2*p+11, p)
	}
	src := modelSource(t, []byte(b.String()))
	var comms []model.CommID
	for ev, err := range src.All() {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Kind == model.KindCollBegin {
			comms = append(comms, ev.Comm)
		}
	}
	if len(comms) != 9 || comms[7] == 0 || comms[8] != 0 || len(src.Defs().Comms()) != 8 {
		t.Errorf("barrier communicators %v, %d defined; want 8 subset communicators, then 0", comms, len(src.Defs().Comms()))
	}
}

// TestModelParadigms: the regions of the message-passing event types
// (sends, receives, sync0 …) have Paradigm MPI and are MPI calls to
// model.Region.MPI, user event types Paradigm User, file I/O types IO.
func TestModelParadigms(t *testing.T) {
	seen := map[model.Paradigm]int{}
	for _, fx := range []string{"appendix_a", "ring4", "fileio", "user_records", "labels_messages", "subsets_stats"} {
		_, defs := modelEvents(t, fx)
		for _, r := range defs.Regions() {
			e := picl.EventType(r.Native)
			want := model.ParadigmUnknown
			switch {
			case e >= 0:
				want = model.ParadigmUser
			case e <= -11 && e >= -200, e <= -401 && e >= -500, e <= -701 && e >= -900:
				want = model.ParadigmMPI
			case e <= -201 && e >= -400:
				want = model.ParadigmIO
			case e <= -901 && e >= -1000:
				want = model.ParadigmMeasurement
			}
			if r.Paradigm != want || r.MPI() != (want == model.ParadigmMPI) {
				t.Errorf("%s: region %d %q: paradigm %v (MPI %v), want %v", fx, r.Native, r.Name, r.Paradigm, r.MPI(), want)
			}
			seen[r.Paradigm]++
		}
	}
	if seen[model.ParadigmMPI] == 0 || seen[model.ParadigmUser] == 0 || seen[model.ParadigmIO] == 0 {
		t.Errorf("paradigms seen %v: want MPI, User and IO regions", seen)
	}
}
