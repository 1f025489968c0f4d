package chrome_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hpctrace/hpctrace"
	"github.com/hpctrace/hpctrace/chrome"
	"github.com/hpctrace/hpctrace/export"
	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/stats"
)

// fixtures lists the repository's traces of every input format.
func fixtures(t *testing.T) []string {
	t.Helper()
	var names []string
	for _, g := range []string{
		"../picl/testdata/*.trf",
		"../dumpi/testdata/*/*.meta",
		"../otf/testdata/*/*.otf",
		"../otf2/testdata/*/trace/*.otf2",
		"../eventjson/testdata/*.json",
	} {
		m, err := filepath.Glob(g)
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, m...)
	}
	if len(names) < 20 {
		t.Fatalf("%d fixtures, want at least 20", len(names))
	}
	return names
}

// profile is what the round trip keeps of a stats report: the flat
// profile by (location name, region name), the messages by (sender,
// receiver) names, and the collectives' sums.
type profile struct {
	Functions map[[2]string][4]int64 // visits, incl, excl, incl over activations
	Sent      map[[2]string][2]int64 // count, bytes
	Received  map[[2]string][2]int64
	Transfer  map[[2]string][3]int64 // sum, n, backward
	Colls     map[[2]string][5]int64 // collectives by (location, operation): count, duration, wait, sent, received
}

func profileOf(t *testing.T, src model.Source) (profile, *model.Defs) {
	t.Helper()
	defs := src.Defs()
	acc := stats.New(defs, nil)
	for src.Next() {
		acc.Add(src.Event())
	}
	if err := src.Err(); err != nil {
		t.Fatal(err)
	}
	rep := acc.Finalize()
	p := profile{Functions: map[[2]string][4]int64{}, Sent: map[[2]string][2]int64{},
		Received: map[[2]string][2]int64{}, Transfer: map[[2]string][3]int64{}, Colls: map[[2]string][5]int64{}}
	for _, f := range rep.Final.Functions {
		k := [2]string{defs.LocationName(f.LocID), f.Region}
		v := p.Functions[k]
		p.Functions[k] = [4]int64{v[0] + f.Visits, v[1] + int64(f.Incl), v[2] + int64(f.Excl), v[3] + int64(f.InclActivationSum)}
	}
	for _, m := range rep.Final.MatrixSend {
		p.Sent[[2]string{defs.LocationName(m.SenderID), defs.LocationName(m.ReceiverID)}] = [2]int64{m.Count, m.Bytes}
	}
	for _, m := range rep.Final.MatrixRecv {
		p.Received[[2]string{defs.LocationName(m.SenderID), defs.LocationName(m.ReceiverID)}] = [2]int64{m.Count, m.Bytes}
	}
	for _, m := range rep.Final.TransferTime {
		p.Transfer[[2]string{defs.LocationName(m.SenderID), defs.LocationName(m.ReceiverID)}] = [3]int64{int64(m.Sum), m.N, m.Backward}
	}
	for _, c := range rep.Final.CollectiveSums {
		k := [2]string{defs.LocationName(c.LocID), c.Op}
		v := p.Colls[k]
		p.Colls[k] = [5]int64{v[0] + c.Count, v[1] + int64(c.Duration), v[2] + int64(c.Wait), v[3] + c.Sent, v[4] + c.Recvd}
	}
	return p, defs
}

func open(t testing.TB, name string) *hpctrace.Trace {
	t.Helper()
	tr, err := hpctrace.Open(name, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.Close() })
	return tr
}

// lost counts, from a trace's events, what export.ChromeWriter cannot
// write, as export.ChromeDropped names it.
func lost(t *testing.T, src model.Source) export.ChromeDropped {
	t.Helper()
	var d export.ChromeDropped
	comms := map[model.CommID]bool{}
	for src.Next() {
		ev := src.Event()
		switch ev.Kind {
		case model.KindEnter:
			if ev.Site != 0 && ev.Region != 0 {
				d.Sites++
			}
		case model.KindSend, model.KindRecv:
			if ev.Peer == 0 {
				d.NoPeer++
				continue
			}
			if ev.Match != 0 {
				d.Requests++
			}
			if ev.Comm != 0 {
				comms[ev.Comm] = true
			}
		case model.KindCollBegin:
			if ev.Comm != 0 {
				comms[ev.Comm] = true
			}
			if ev.Match != 0 {
				d.CollMatch++
			}
		case model.KindCollEnd:
			if ev.Match != 0 {
				d.CollMatch++
			}
		case model.KindRecvPost, model.KindSendDone, model.KindProgramBegin, model.KindProgramEnd, model.KindParameter,
			model.KindCollPost, model.KindCollDone:
			d.NotDrawn++
		}
	}
	if err := src.Err(); err != nil {
		t.Fatal(err)
	}
	d.Comms = int64(len(comms))
	return d
}

// TestRoundTrip writes every fixture as traceconv -to perfetto does
// (export.ChromeWriter), opens the document with hpctrace.Open (which must
// detect it) and compares the stats reports: the same regions, visits and
// times, and the same messages. What the format cannot carry is counted
// by the writer, and the counts must be those of the trace's events.
func TestRoundTrip(t *testing.T) {
	var total export.ChromeDropped
	for _, name := range fixtures(t) {
		t.Run(strings.TrimPrefix(name, "../"), func(t *testing.T) {
			tr := open(t, name)
			doc := filepath.Join(t.TempDir(), "trace.json")
			f, err := os.Create(doc)
			if err != nil {
				t.Fatal(err)
			}
			w, err := export.NewChromeWriter(f, tr.Defs())
			if err != nil {
				t.Fatal(err)
			}
			for tr.Next() {
				if err := w.Write(tr.Event()); err != nil {
					t.Fatal(err)
				}
			}
			if err := tr.Err(); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			want, wdefs := profileOf(t, open(t, name))
			back := open(t, doc)
			if back.Format != hpctrace.FormatChrome {
				t.Fatalf("read back as %v, want %v", back.Format, hpctrace.FormatChrome)
			}
			got, gdefs := profileOf(t, back)
			if gdefs.TimeBase != wdefs.TimeBase {
				t.Errorf("time base %v, want %v", gdefs.TimeBase, wdefs.TimeBase)
			}
			if dropped := w.Dropped(); dropped.CollMatch != 0 || dropped.ClosedEarly != 0 || dropped.Unmatched != 0 {
				// without the instances' ids, the reader's instances
				// are the stats package's per-communicator sequence,
				// and a collective that ends after its call (as OTF
				// may record it) is closed with the call, as slices
				// must nest: the instances' durations and waits may
				// differ, their counts and volumes not
				for _, p := range []*profile{&want, &got} {
					for k, v := range p.Colls {
						v[1], v[2] = 0, 0
						p.Colls[k] = v
					}
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("stats (-want +got):\n%s", diff)
				saveArtifact(t, doc)
			}
			if d := back.Source().(*chrome.Reader).Diagnostics(); d != (chrome.Diagnostics{}) {
				t.Errorf("Diagnostics() = %+v, want zero", d)
			}
			dropped := w.Dropped()
			wantLost := lost(t, open(t, name))
			gotLost := export.ChromeDropped{NoPeer: dropped.NoPeer, NotDrawn: dropped.NotDrawn, Sites: dropped.Sites,
				Requests: dropped.Requests, CollMatch: dropped.CollMatch, Comms: dropped.Comms}
			if gotLost != wantLost {
				t.Errorf("lost %+v, want %+v", gotLost, wantLost)
			}
			total.NoPeer += gotLost.NoPeer
			total.NotDrawn += gotLost.NotDrawn
			total.Sites += gotLost.Sites
			total.Requests += gotLost.Requests
			total.CollMatch += gotLost.CollMatch
			total.Comms += gotLost.Comms
		})
	}
	t.Logf("lost over all fixtures: %+v", total)
}

// saveArtifact keeps a document whose round trip failed.
func saveArtifact(t *testing.T, doc string) {
	t.Helper()
	data, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.ArtifactDir(), "trace.json")
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("document saved in %s", dst)
}
