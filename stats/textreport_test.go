package stats_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"

	"github.com/hpctrace/hpctrace/eventjson"
	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/stats"
)

// TestFinalTextReport checks that the text of FinalTextReport is the text
// of the whole report, for every scope of generated traces (all, each
// location, one that does not exist) and with few rows per table.
func TestFinalTextReport(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d, events := genTrace(t)
		scopes := []string{"", "all", "loc99", "loc01", "loc"}
		for _, l := range d.Locations() {
			scopes = append(scopes, fmt.Sprintf("loc%d", l.Native))
		}
		for _, scope := range scopes {
			opts := &stats.TextOptions{Scope: scope, Top: rapid.IntRange(1, 3).Draw(t, "top")}
			var want, got bytes.Buffer
			if err := feed(d, events, nil, nil).FinalReport().WriteText(&want, opts); err != nil {
				t.Fatal(err)
			}
			if err := feed(d, events, nil, nil).FinalTextReport(scope).WriteText(&got, opts); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want.String(), got.String()); diff != "" {
				t.Fatalf("scope %q: FinalTextReport's text differs from FinalReport's (-want +got):\n%s", scope, diff)
			}
		}
	})
}

// TestFinalTextReportFiles is TestFinalTextReport on the inputs of the
// expected reports, MPI calls among them.
func TestFinalTextReportFiles(t *testing.T) {
	files, err := filepath.Glob("testdata/*/input.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("%d inputs, %v", len(files), err)
	}
	for _, name := range files {
		accumulate := func() (*stats.Accumulator, *model.Defs) {
			data, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			r, err := eventjson.NewReader(bytes.NewReader(data), &eventjson.ReaderOptions{Path: name})
			if err != nil {
				t.Fatal(err)
			}
			acc := stats.New(r.Defs(), &stats.Options{SampleTimes: []model.Time{500}})
			for ev, err := range r.All() {
				if err != nil {
					t.Fatal(err)
				}
				acc.Add(ev)
			}
			return acc, r.Defs()
		}
		_, d := accumulate()
		scopes := []string{"all"}
		for _, l := range d.Locations() {
			scopes = append(scopes, fmt.Sprintf("loc%d", l.Native))
		}
		for _, scope := range scopes {
			opts := &stats.TextOptions{Scope: scope}
			var want, got bytes.Buffer
			a, _ := accumulate()
			if err := a.FinalReport().WriteText(&want, opts); err != nil {
				t.Fatal(err)
			}
			a, _ = accumulate()
			if err := a.FinalTextReport(scope).WriteText(&got, opts); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want.String(), got.String()); diff != "" {
				t.Errorf("%s, scope %q: FinalTextReport's text differs from FinalReport's (-want +got):\n%s", name, scope, diff)
			}
		}
	}
}

// TestFinalTextReportFunc checks that FinalTextReportFunc passes the rows
// of FinalReport's Functions, in their order, and that its text is
// FinalTextReport's, on generated traces.
func TestFinalTextReportFunc(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d, events := genTrace(t)
		full := feed(d, events, nil, nil).FinalReport()
		var rows []stats.Function
		rep := feed(d, events, nil, nil).FinalTextReportFunc("", func(f *stats.Function) { rows = append(rows, *f) })
		if diff := cmp.Diff(full.Final.Functions, rows, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("rows passed differ from FinalReport's Functions (-want +got):\n%s", diff)
		}
		var want, got bytes.Buffer
		if err := full.WriteText(&want, nil); err != nil {
			t.Fatal(err)
		}
		if err := rep.WriteText(&got, nil); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want.String(), got.String()); diff != "" {
			t.Fatalf("FinalTextReportFunc's text differs from FinalReport's (-want +got):\n%s", diff)
		}
	})
}
