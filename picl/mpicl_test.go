package picl_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/picl"
	"github.com/hpctrace/hpctrace/stats"
)

// TestMPICLCorpus checks the fixtures of testdata/mpicl, which imitate
// traces written by MPICL (each has a README), against their goldens: the
// lenient dump with the Validator's findings, what strict reading says,
// and what stats makes of the messages and collectives. Regenerate with
// go test ./picl -run TestMPICLCorpus -update.
func TestMPICLCorpus(t *testing.T) {
	files, err := filepath.Glob("testdata/mpicl/*.trf")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".trf")
		t.Run(name, func(t *testing.T) {
			in, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(strings.TrimSuffix(file, ".trf") + ".README.txt"); err != nil {
				t.Errorf("no README: %v", err)
			}
			got := dump(t, name, in)
			got = append(got, "strict: "...)
			r, _ := picl.NewReader(bytes.NewReader(in), &picl.ReaderOptions{Path: name, Strict: true})
			n := 0
			for r.Next() {
				n++
			}
			if err := r.Err(); err != nil {
				got = fmt.Appendf(got, "%d records, then %v\n", n, err)
			} else {
				got = fmt.Appendf(got, "%d records\n", n)
			}
			rep := mpiclStats(t, in)
			diag, _ := json.Marshal(rep.Final.Diagnostics)
			got = fmt.Appendf(got, "stats: diagnostics %s\n", diag)
			for _, c := range rep.Final.Com {
				got = fmt.Appendf(got, "stats: com %+v\n", c)
			}
			for _, c := range rep.Final.Collectives {
				got = fmt.Appendf(got, "stats: collective instance %d loc %d %s %s duration %d wait %d\n",
					c.Instance, c.Loc, c.Op, c.Class, c.Duration, c.Wait)
			}
			golden := strings.TrimSuffix(file, ".trf") + ".golden"
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("%s (-want +got):\n%s", name, diff)
			}
		})
	}
}

func mpiclStats(t *testing.T, in []byte) *stats.Report {
	t.Helper()
	src := modelSource(t, in)
	acc := stats.New(src.Defs(), nil)
	for ev, err := range src.All() {
		if err != nil {
			t.Fatal(err)
		}
		acc.Add(ev)
	}
	return acc.Finalize()
}

// TestMPICLMessages: stats matches the messages MPICL's send events carry
// with their receives, and its collectives are complete instances.
func TestMPICLMessages(t *testing.T) {
	in, err := os.ReadFile("testdata/mpicl/mpicl_events.trf")
	if err != nil {
		t.Fatal(err)
	}
	d := mpiclStats(t, in).Final.Diagnostics
	if d.MatchedMessages != 4 || d.UnmatchedSend != 0 || d.UnmatchedRecv != 0 || d.OpenCollectives != 0 || d.UnmatchedCollEnd != 0 {
		t.Errorf("diagnostics %+v; want the 4 messages (-22, -23, -33, -24) matched and no open collectives", d)
	}
	src := modelSource(t, in)
	classes := map[string]model.Class{}
	var sync int
	for ev, err := range src.All() {
		if err != nil {
			t.Fatal(err)
		}
		switch ev.Kind {
		case model.KindCollBegin:
			r, _ := src.Defs().Region(ev.Region)
			classes[r.Name] = ev.Class
			if r.Kind != model.RegionCollective {
				t.Errorf("%s: region kind %v", r.Name, r.Kind)
			}
		case model.KindSend:
			if ev.Flags&model.SyncMode != 0 {
				sync++
			}
		}
	}
	want := map[string]model.Class{"MPI_Bcast": model.ClassOneToAll, "MPI_Allreduce": model.ClassAllToAll}
	if !cmp.Equal(classes, want) {
		t.Errorf("collective classes %v, want %v", classes, want)
	}
	if sync != 1 {
		t.Errorf("%d synchronous sends, want 1 (the -23)", sync)
	}
}
