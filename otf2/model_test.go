package otf2

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hpctrace/hpctrace/model"
)

func modelEvents(t *testing.T, fx string) (*ModelSource, []model.Event) {
	t.Helper()
	a := openFixture(t, fx)
	s, err := NewModelSource(a, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	var evs []model.Event
	for ev, err := range s.All() {
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, *ev)
	}
	return s, evs
}

func TestModelMessages(t *testing.T) {
	s, evs := modelEvents(t, "c_localdefs")
	d := s.Defs()
	if d.TimeBase.TicksPerSecond != 1e9 || d.NumLocations() != 2 || d.NumRegions() != 2 {
		t.Fatalf("defs: %+v, %d locations, %d regions", d.TimeBase, d.NumLocations(), d.NumRegions())
	}
	var sends, recvs, enters, ends int
	for i, ev := range evs {
		if i > 0 && (ev.Time < evs[i-1].Time || (ev.Time == evs[i-1].Time && ev.Loc < evs[i-1].Loc)) {
			t.Fatalf("event %d out of order", i)
		}
		switch ev.Kind {
		case model.KindSend, model.KindRecv:
			if ev.Kind == model.KindSend {
				sends++
			} else {
				recvs++
			}
			c, _ := d.Comm(ev.Comm)
			if c.Name != "PAIR" || ev.Tag != 42 || ev.Peer == ev.Loc || ev.Peer == 0 {
				t.Fatalf("message %+v in comm %q", ev, c.Name)
			}
		case model.KindEnter:
			enters++
			r, _ := d.Region(ev.Region)
			if r.Name != "main" && r.Name != "work" {
				t.Fatalf("region %+v", r)
			}
		case model.KindProgramEnd:
			ends++
		}
	}
	if sends != 2 || recvs != 2 || enters != 4 || ends != 2 {
		t.Fatalf("%d sends, %d receives, %d enters, %d program ends; want 2, 2, 4, 2", sends, recvs, enters, ends)
	}
	if s.Ignored() != 0 {
		t.Fatalf("ignored %d, want 0", s.Ignored())
	}
}

func TestModelCollectivesAndMetrics(t *testing.T) {
	s, evs := modelEvents(t, "defs_attrs")
	var counters int
	for _, ev := range evs {
		if ev.Kind == model.KindCounter {
			counters++
			c, ok := s.Defs().Counter(ev.Counter)
			if !ok || c.Name == "" {
				t.Fatalf("counter %+v", ev)
			}
		}
	}
	if counters != 5 { // 1 + 3 + 1 metric values
		t.Fatalf("%d counter events, want 5", counters)
	}
	s, evs = modelEvents(t, "threads_rma")
	var locs = map[model.LocID]bool{}
	for _, ev := range evs {
		locs[ev.Loc] = true
	}
	if len(locs) != 4 { // location 4 has RMA records only
		t.Fatalf("%d locations with events", len(locs))
	}
	l, _ := s.Defs().Location(s.loc[3])
	if l.Process != 0 || l.Thread != 3 {
		t.Fatalf("location 3: %+v", l)
	}
}

// TestModelCollective writes two MPI ranks with a broadcast and a
// non-blocking message and checks the model events: the request records
// are RecvPost and SendDone, request ids + 1 in Match.
func TestModelCollective(t *testing.T) {
	cr := memCreator{}
	w, _ := NewArchiveWriter(cr, nil)
	def := func(k DefKind, vals ...uint64) {
		d := NewDef(k)
		j := 0
		for i, f := range k.Fields() {
			if _, ok := f.Count(); ok || f.Element() {
				continue
			}
			d.SetValue(i, vals[j])
			j++
		}
		if k == DefKindGroup {
			d.SetElems(4, []uint64{0, 1})
		}
		if err := w.WriteDef(d); err != nil {
			t.Fatal(err)
		}
	}
	str := NewDef(DefKindString)
	str.SetBytes([]byte("MPI_Bcast"))
	w.WriteDef(str)
	def(DefKindClockProperties, 1000, 0, 100, Undefined64)
	def(DefKindLocationGroup, 0, 0, 1, Undefined32, Undefined32)
	def(DefKindLocationGroup, 1, 0, 1, Undefined32, Undefined32)
	def(DefKindLocation, 0, 0, 1, 0, 0)
	def(DefKindLocation, 1, 0, 1, 0, 1)
	def(DefKindRegion, 0, 0, 0, 0, Undefined32, 0, 0, 0, uint64(RegionRoleCollOne2all), uint64(ParadigmMPI), 0)
	def(DefKindGroup, 0, 0, 0, uint64(GroupTypeCommLocations), uint64(ParadigmMPI), 0)
	def(DefKindGroup, 1, 0, 0, uint64(GroupTypeCommGroup), uint64(ParadigmMPI), 0)
	def(DefKindComm, 0, 0, 1, Undefined32, 0)
	for loc := range uint64(2) {
		ew, _ := w.EventWriter(loc)
		ev := func(k Kind, tm uint64, vals ...uint64) {
			e := NewEvent(k, tm)
			for i, v := range vals {
				e.SetValue(i, v)
			}
			if err := ew.Write(e); err != nil {
				t.Fatal(err)
			}
		}
		ev(KindEnter, 10, 0)
		ev(KindMpiCollectiveBegin, 11)
		ev(KindMpiCollectiveEnd, 15+loc, uint64(CollectiveOpBcast), 0, 0, 8*(1-loc), 8)
		ev(KindLeave, 20, 0)
		if loc == 0 {
			ev(KindMpiIsend, 30, 1, 0, 5, 64, 7)
			ev(KindMpiIsendComplete, 31, 7)
		} else {
			ev(KindMpiIrecvRequest, 25, 9)
			ev(KindMpiIrecv, 35, 0, 0, 5, 64, 9)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	a, err := OpenFS(cr.fs(), "traces.otf2", nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewModelSource(a, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var got []model.Event
	for ev, err := range s.All() {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, *ev)
	}
	l0, l1 := s.loc[0], s.loc[1]
	reg := s.region[0]
	comm := s.comm[0]
	want := []model.Event{
		{Time: 10, Loc: l0, Kind: model.KindEnter, Region: reg},
		{Time: 10, Loc: l1, Kind: model.KindEnter, Region: reg},
		{Time: 11, Loc: l0, Kind: model.KindCollBegin, Region: reg, Comm: comm, Class: model.ClassOneToAll, Peer: l0, Bytes: 8, Recvd: 8},
		{Time: 11, Loc: l1, Kind: model.KindCollBegin, Region: reg, Comm: comm, Class: model.ClassOneToAll, Peer: l0, Bytes: 0, Recvd: 8},
		{Time: 15, Loc: l0, Kind: model.KindCollEnd},
		{Time: 16, Loc: l1, Kind: model.KindCollEnd},
		{Time: 20, Loc: l0, Kind: model.KindLeave, Region: reg},
		{Time: 20, Loc: l1, Kind: model.KindLeave, Region: reg},
		{Time: 25, Loc: l1, Kind: model.KindRecvPost, Match: 10},
		{Time: 30, Loc: l0, Kind: model.KindSend, Peer: l1, Comm: comm, Tag: 5, Bytes: 64, Match: 8},
		{Time: 31, Loc: l0, Kind: model.KindSendDone, Match: 8},
		{Time: 35, Loc: l1, Kind: model.KindRecv, Peer: l0, Comm: comm, Tag: 5, Bytes: 64, Match: 10},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d events, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("event %d:\n got %+v\nwant %+v", i, got[i], want[i])
		}
	}
	if s.Ignored() != 0 {
		t.Fatalf("ignored %d, want 0", s.Ignored())
	}
	if r, _ := s.Defs().Region(reg); r.Paradigm != model.ParadigmMPI || !r.MPI() {
		t.Errorf("region %+v: paradigm %v, want mpi", r, r.Paradigm)
	}
	c, _ := s.Defs().Comm(comm)
	if len(c.Members) != 2 || c.Members[0] != l0 || c.Members[1] != l1 {
		t.Fatalf("comm members %v", c.Members)
	}
}

// TestModelSelectionLocations: the source of the locations a Selection
// accepts has the definitions of every location and the events of the
// accepted ones, and the locations it refuses are not opened.
func TestModelSelectionLocations(t *testing.T) {
	whole, all := modelEvents(t, "threads_rma")
	if whole.Defs().NumLocations() < 3 {
		t.Fatalf("%d locations, want several", whole.Defs().NumLocations())
	}
	a := openFixture(t, "threads_rma")
	keep := func(l model.LocID) bool { return l == 2 }
	s, err := NewModelSource(a, &ModelOptions{Selection: model.Selection{Locations: keep}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if len(s.locs) != 1 || s.locs[0].id != 2 {
		t.Errorf("opened %d locations, want location 2 alone", len(s.locs))
	}
	if got, want := s.Defs().Locations(), whole.Defs().Locations(); !slices.Equal(got, want) {
		t.Errorf("locations %v, want those of the whole archive %v", got, want)
	}
	var got []model.Event
	for ev, err := range s.All() {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, *ev)
	}
	want := slices.DeleteFunc(all, func(ev model.Event) bool { return !keep(ev.Loc) })
	if len(want) == 0 || !slices.Equal(got, want) {
		t.Errorf("%d events of location 2, want %d", len(got), len(want))
	}
}

// TestModelProgramAndParameters: ProgramBegin, ProgramEnd and the three
// Parameter records of defs_attrs are model events, with the parameters'
// names and values, and none of them counts as ignored.
func TestModelProgramAndParameters(t *testing.T) {
	s, evs := modelEvents(t, "defs_attrs")
	d := s.Defs()
	var got []string
	for _, ev := range evs {
		switch ev.Kind {
		case model.KindProgramBegin, model.KindProgramEnd:
			got = append(got, ev.Kind.String())
		case model.KindParameter:
			v := fmt.Sprint(ev.Value)
			if ev.Flags&model.StringValue != 0 {
				v = strconv.Quote(d.String(model.StringID(ev.Value)))
			}
			got = append(got, d.String(ev.Text)+"="+v)
		}
	}
	want := []string{"program_begin", `mode="fast"`, "n=-123456789", "size=1099511627776", "program_end"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if s.Ignored() != 19 { // the I/O, calling-context and measurement records
		t.Errorf("ignored %d, want 19", s.Ignored())
	}
}

// TestModelCounts: every event record otf2-print lists (its golden output)
// is either a model event or counted by Ignored, a Metric record of n
// values counting n, so that a count of model events and Ignored agrees
// with otf2-print's listing; ProgramBegin, ProgramEnd and the Parameter
// records are model events.
func TestModelCounts(t *testing.T) {
	for _, fx := range fixtures {
		golden, err := os.ReadFile(filepath.Join("testdata", fx, "golden_otf2print.txt"))
		if err != nil {
			t.Fatal(err)
		}
		records, extra, inEvents := 0, 0, false
		for _, l := range strings.Split(string(golden), "\n") {
			if strings.HasPrefix(l, "-----") {
				inEvents = true
				continue
			}
			if !inEvents || l == "" || l[0] < 'A' || l[0] > 'Z' || strings.HasPrefix(l, "ADDITIONAL ATTRIBUTES") {
				continue
			}
			records++
			if strings.HasPrefix(l, "METRIC ") {
				// "Metric: 1, 3 Values: (…), …"
				f := strings.Fields(l[strings.Index(l, "Metric: "):])
				n, _ := strconv.Atoi(f[2])
				extra += n - 1
			}
		}
		s, evs := modelEvents(t, fx)
		if got, want := int64(len(evs))+s.Ignored(), int64(records+extra); got != want || records == 0 {
			t.Errorf("%s: %d events + %d ignored = %d, want otf2-print's %d records + %d further metric values", fx, len(evs), s.Ignored(), got, records, extra)
		}
	}
}
