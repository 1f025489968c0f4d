package dumpi

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hpctrace/hpctrace/model"
)

func runModel(t *testing.T, name string) (*ModelSource, *Run) {
	t.Helper()
	run, err := OpenRun(metaPath(t, name), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { run.Close() })
	src, err := NewModelSource(run, nil)
	if err != nil {
		t.Fatal(err)
	}
	return src, run
}

// TestModelMinimal checks the events of the worked example of doc/dumpi.md §8.
func TestModelMinimal(t *testing.T) {
	src, _ := runModel(t, "minimal")
	var got []string
	for ev, err := range src.All() {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Kind == model.KindSend || ev.Kind == model.KindRecv {
			got = append(got, ev.Kind.String()+" loc "+itoa(int(ev.Loc))+" peer "+itoa(int(ev.Peer))+
				" tag "+itoa(int(ev.Tag))+" bytes "+itoa(int(ev.Bytes))+" flags "+ev.Flags.String())
		}
	}
	want := []string{"send loc 1 peer 2 tag 5 bytes 4 flags 0", "recv loc 2 peer 1 tag 5 bytes 4 flags 0"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	d := src.Defs()
	if d.TimeBase.TicksPerSecond != 1e9 || d.NumLocations() != 2 {
		t.Errorf("time base %v, %d locations", d.TimeBase, d.NumLocations())
	}
}

// TestModelSelfComm: MPI_COMM_SELF is defined as every rank's own
// communicator (model.Comm.Self), so that statistics do not group the
// collectives that different ranks call on it.
func TestModelSelfComm(t *testing.T) {
	src, _ := runModel(t, "minimal")
	var n int
	for _, c := range src.Defs().Comms() {
		if c.Native == int64(MPI_COMM_SELF) {
			n++
			if !c.Self || len(c.Members) != 0 {
				t.Errorf("MPI_COMM_SELF is defined as %+v, want Self and no members", c)
			}
		} else if c.Self {
			t.Errorf("%+v is marked Self", c)
		}
	}
	if n != 1 {
		t.Errorf("%d definitions of MPI_COMM_SELF, want 1", n)
	}
}

// TestModelFixtures runs every fixture run through the merged source and
// checks the invariants of doc/stats.md §2: merged order, balanced
// enter/leave per location, one Enter per call, footer statistics, and
// for the point-to-point cases, as many receives as sends.
func TestModelFixtures(t *testing.T) {
	dirs, _ := os.ReadDir("testdata")
	for _, d := range dirs {
		if !d.IsDir() || d.Name() == "bad" {
			continue
		}
		t.Run(d.Name(), func(t *testing.T) {
			src, run := runModel(t, d.Name())
			calls := 0 // calls that open a region: all but Function_exit
			for _, f := range run.Files {
				for c, err := range f.Calls().All() {
					if err != nil {
						t.Fatal(err)
					}
					if c.Label != LabelFunctionExit {
						calls++
					}
				}
			}
			depth := map[model.LocID]int{}
			var last model.Event
			n, enters, sends, recvs, collB, collE := 0, 0, 0, 0, 0, 0
			for ev, err := range src.All() {
				if err != nil {
					t.Fatal(err)
				}
				if n > 0 && ev.Time < last.Time {
					t.Fatalf("event %d: time %d before %d", n, ev.Time, last.Time)
				}
				if ev.Loc == 0 {
					t.Fatalf("event %d has no location", n)
				}
				switch ev.Kind {
				case model.KindEnter:
					depth[ev.Loc]++
					enters++
					if _, ok := src.Defs().Region(ev.Region); !ok {
						t.Fatalf("event %d: undefined region %d", n, ev.Region)
					}
				case model.KindLeave:
					depth[ev.Loc]--
					if depth[ev.Loc] < 0 {
						t.Fatalf("event %d: leave without enter", n)
					}
				case model.KindSend:
					sends++
				case model.KindRecv:
					recvs++
				case model.KindCollBegin:
					collB++
				case model.KindCollEnd:
					collE++
				}
				last = *ev
				n++
			}
			for loc, d := range depth {
				if d != 0 {
					t.Errorf("location %d: %d regions left open", loc, d)
				}
			}
			if enters != calls {
				t.Errorf("%d Enter events for %d calls", enters, calls)
			}
			if collB != collE {
				t.Errorf("%d CollBegin, %d CollEnd", collB, collE)
			}
			switch d.Name() {
			case "p2p_blocking", "p2p_nonblocking", "p2p_nostatus_walltime", "persistent", "minimal":
				if sends == 0 || sends != recvs {
					t.Errorf("%d sends, %d receives", sends, recvs)
				}
			case "collectives":
				if collB == 0 {
					t.Error("no collectives")
				}
			}
			// Footer statistics, per location and region.
			rec := src.Defs().Recorded
			for rank, f := range run.Files {
				ft, _ := f.Footer()
				loc, _ := src.Defs().LocationByNative(int64(rank))
				for _, r := range rec {
					if r.Loc != loc {
						continue
					}
					reg, _ := src.Defs().Region(r.Region)
					want := ft.Called[reg.Native]
					if r.Kind == model.RecordedNotProfiled {
						want = ft.Ignored[reg.Native]
					}
					if r.Value != int64(want) {
						t.Errorf("rank %d %s %s: %d, footer %d", rank, reg.Name, r.Kind, r.Value, want)
					}
				}
			}
			t.Logf("%d calls, %d events, %d sends, %d receives, %d collectives", calls, n, sends, recvs, collB)
		})
	}
}

// TestModelAllocs pins Next of a rank source at zero allocations per event
// in the steady state.
func TestModelAllocs(t *testing.T) {
	data := repeatCalls(t, readFixture(t, "p2p_nonblocking", 0), 20)
	f := memFile(t, data)
	src, err := NewModelSource(NewRun(f, 0), nil)
	if err != nil {
		t.Fatal(err)
	}
	for range 50000 { // warm up: every call kind, request map entries
		if !src.Next() {
			t.Fatal("stream too short")
		}
	}
	if n := testing.AllocsPerRun(50000, func() {
		if !src.Next() {
			t.Fatal("stream too short")
		}
	}); n != 0 {
		t.Errorf("Next allocates %.3f times per event; want 0", n)
	}
}

// TestModelAnnotations checks user regions from Function_enter/exit.
func TestModelAnnotations(t *testing.T) {
	data := readFixture(t, "annotations", 0)
	f, err := NewFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	src, err := NewModelSource(NewRun(f, 0), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for ev, err := range src.All() {
		if err != nil {
			t.Fatal(err)
		}
		if r, ok := src.Defs().Region(ev.Region); ok && ev.Kind == model.KindEnter && r.Kind == model.RegionUser {
			names = append(names, r.Name)
		}
	}
	if len(names) == 0 || names[0] != "ANNOTATION: phase 1 begin" {
		t.Errorf("user regions %q", names)
	}
}

// TestModelRequests: in every fixture, a non-blocking receive is a
// RecvPost in its MPI_Irecv or MPI_Start* call and a Recv with the same
// Match in the Wait*/Test* call that completes it; a non-blocking send is
// a Send with Match ≠ 0 in its MPI_I*send or MPI_Start* call and a
// SendDone with that Match in the call that completes it; the request ids
// are unique among a location's requests in flight though DUMPI reuses
// its handles; and in p2p_nonblocking every MPI_Irecv posts one receive
// and every MPI_I*send to a rank starts one request. MPI regions have
// Paradigm MPI, function-address regions Paradigm User.
func TestModelRequests(t *testing.T) {
	dirs, _ := os.ReadDir("testdata")
	for _, d := range dirs {
		if !d.IsDir() || d.Name() == "bad" {
			continue
		}
		t.Run(d.Name(), func(t *testing.T) {
			src, run := runModel(t, d.Name())
			defs := src.Defs()
			inFlight := map[[2]uint64]model.Kind{} // (location, Match) → RecvPost or Send
			stack := map[model.LocID][]string{}
			var posts, isends, recvs, dones int
			for ev, err := range src.All() {
				if err != nil {
					t.Fatal(err)
				}
				call := ""
				if s := stack[ev.Loc]; len(s) > 0 {
					call = s[len(s)-1]
				}
				key := [2]uint64{uint64(ev.Loc), ev.Match}
				switch ev.Kind {
				case model.KindEnter:
					stack[ev.Loc] = append(stack[ev.Loc], defs.RegionName(ev.Region))
				case model.KindLeave:
					stack[ev.Loc] = stack[ev.Loc][:len(stack[ev.Loc])-1]
				case model.KindRecvPost, model.KindSend:
					if ev.Match == 0 {
						if ev.Kind == model.KindRecvPost {
							t.Errorf("RecvPost %+v without a request", ev)
						}
						continue
					}
					if k, ok := inFlight[key]; ok {
						t.Errorf("%v %+v: request %d already in flight (%v)", ev.Kind, ev, ev.Match, k)
					}
					inFlight[key] = ev.Kind
					want := "MPI_Irecv"
					if ev.Kind == model.KindSend {
						want = "MPI_I"
						isends++
					} else {
						posts++
					}
					if !strings.HasPrefix(call, want) && !strings.HasPrefix(call, "MPI_Start") {
						t.Errorf("%v %+v in call %q", ev.Kind, ev, call)
					}
				case model.KindRecv, model.KindSendDone:
					if ev.Match == 0 {
						if ev.Kind == model.KindSendDone {
							t.Errorf("SendDone %+v without a request", ev)
						}
						continue
					}
					want := map[model.Kind]model.Kind{model.KindRecv: model.KindRecvPost, model.KindSendDone: model.KindSend}[ev.Kind]
					if k, ok := inFlight[key]; !ok || k != want {
						t.Errorf("%v %+v: request %d not in flight as a %v", ev.Kind, ev, ev.Match, want)
					}
					delete(inFlight, key)
					if !strings.HasPrefix(call, "MPI_Wait") && !strings.HasPrefix(call, "MPI_Test") {
						t.Errorf("%v %+v in call %q", ev.Kind, ev, call)
					}
					if ev.Kind == model.KindRecv {
						recvs++
					} else {
						dones++
					}
				}
			}
			for _, r := range defs.Regions() {
				want := model.ParadigmMPI
				if r.Native < 0 {
					want = model.ParadigmUser
				}
				if r.Paradigm != want || r.MPI() != (want == model.ParadigmMPI) {
					t.Errorf("region %q: paradigm %v, want %v", r.Name, r.Paradigm, want)
				}
			}
			t.Logf("%d posts, %d completed receives, %d non-blocking sends, %d completed", posts, recvs, isends, dones)
			if d.Name() != "p2p_nonblocking" && d.Name() != "persistent" {
				return
			}
			if recvs == 0 || dones == 0 {
				t.Errorf("%d completed receives, %d completed sends; want some", recvs, dones)
			}
			if d.Name() != "p2p_nonblocking" {
				return
			}
			var irecvs, isendCalls int
			for _, f := range run.Files {
				for c, err := range f.Calls().All() {
					if err != nil {
						t.Fatal(err)
					}
					switch a := c.Args().(type) {
					case *Irecv:
						irecvs++
					case *Isend:
						isendCalls += b2i(a.Dest >= 0)
					case *Issend:
						isendCalls += b2i(a.Dest >= 0)
					case *Ibsend:
						isendCalls += b2i(a.Dest >= 0)
					case *Irsend:
						isendCalls += b2i(a.Dest >= 0)
					}
				}
			}
			if posts != irecvs || isends != isendCalls {
				t.Errorf("%d RecvPost for %d MPI_Irecv, %d non-blocking Send for %d MPI_I*send to a rank", posts, irecvs, isends, isendCalls)
			}
		})
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
