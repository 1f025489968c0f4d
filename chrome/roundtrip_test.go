package chrome_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
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
		"../model/testdata/*.json",
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
		Received: map[[2]string][2]int64{}, Transfer: map[[2]string][3]int64{}}
	for _, f := range rep.Final.Functions {
		k := [2]string{defs.LocationName(f.LocID), f.Region}
		v := p.Functions[k]
		p.Functions[k] = [4]int64{v[0] + f.Visits, v[1] + f.Incl, v[2] + f.Excl, v[3] + f.InclActivationSum}
	}
	for _, m := range rep.Final.MatrixSend {
		p.Sent[[2]string{defs.LocationName(m.SenderID), defs.LocationName(m.ReceiverID)}] = [2]int64{m.Count, m.Bytes}
	}
	for _, m := range rep.Final.MatrixRecv {
		p.Received[[2]string{defs.LocationName(m.SenderID), defs.LocationName(m.ReceiverID)}] = [2]int64{m.Count, m.Bytes}
	}
	for _, m := range rep.Final.TransferTime {
		p.Transfer[[2]string{defs.LocationName(m.SenderID), defs.LocationName(m.ReceiverID)}] = [3]int64{m.Sum, m.N, m.Backward}
	}
	return p, defs
}

func open(t *testing.T, name string) *hpctrace.Trace {
	t.Helper()
	tr, err := hpctrace.Open(name, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.Close() })
	return tr
}

// TestRoundTrip writes every fixture through export.WriteChrome, reads it
// back and compares the stats reports: the same regions, visits and times,
// and the same messages.
func TestRoundTrip(t *testing.T) {
	for _, name := range fixtures(t) {
		t.Run(strings.TrimPrefix(name, "../"), func(t *testing.T) {
			var buf bytes.Buffer
			w := export.NewChromeWriter(&buf, open(t, name).Defs())
			tr := open(t, name)
			w = export.NewChromeWriter(&buf, tr.Defs())
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
			want, wdefs := profileOf(t, open(t, name))
			r, err := chrome.NewReader(bytes.NewReader(buf.Bytes()), &chrome.ReaderOptions{Path: name})
			if err != nil {
				t.Fatal(err)
			}
			got, gdefs := profileOf(t, r)
			if gdefs.TimeBase != wdefs.TimeBase {
				t.Errorf("time base %v, want %v", gdefs.TimeBase, wdefs.TimeBase)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("stats (-want +got):\n%s", diff)
				saveArtifact(t, buf.Bytes())
			}
			if d := r.Diagnostics(); d != (chrome.Diagnostics{}) {
				t.Errorf("Diagnostics() = %+v, want zero", d)
			}
			_ = slices.Sorted[string]
			_ = fmt.Sprint
		})
	}
}

func saveArtifact(t *testing.T, doc []byte) {
	t.Helper()
	t.Logf("document: %d bytes", len(doc))
}
