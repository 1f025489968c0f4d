package waitstate_test

// The streaming analysis (waitstate.Analyze) against the reference
// implementation (reference_test.go): on every hand case, on generated MPI
// programs, and on both read from every format through hpctrace.Open.
// Uses the hooks of export_test.go and the helpers of formats_test.go.

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/hpctrace/hpctrace"
	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/waitstate"
	"pgregory.net/rapid"
)

// equalOpts compare the streaming analysis with the reference: every
// integer exactly (times, counts, lengths), the fractional delay costs and
// imbalances to a relative 1e-9 (the two may add the same terms in another
// order); Top and Diagnostics are the streaming analysis' own.
var equalOpts = []cmp.Option{cmpopts.EquateEmpty(), cmpopts.EquateApprox(1e-9, 1e-9),
	cmpopts.IgnoreFields(waitstate.Report{}, "Top", "Diagnostics")}

func analyze(t rapid.TB, src model.Source) *waitstate.Report {
	t.Helper()
	rep, err := waitstate.Analyze(src, nil)
	if err != nil {
		t.Fatalf("Analyze: %v", err)
	}
	return rep
}

// TestAnalyzeHandCases checks the streaming analysis against the reference
// (which TestReferenceHandCases checks against the reports worked out by
// hand) on every hand case.
func TestAnalyzeHandCases(t *testing.T) {
	for _, h := range waitstate.HandTraces() {
		t.Run(h.Name, func(t *testing.T) {
			want := waitstate.ReferenceReport(h.Defs, h.Events)
			got := analyze(t, model.NewSliceSource(h.Defs, h.Events))
			if diff := cmp.Diff(want, got, equalOpts...); diff != "" {
				t.Errorf("Analyze (-reference +streaming):\n%s", diff)
			}
		})
	}
}

// TestAnalyzeGenerated checks the streaming analysis against the reference
// on generated MPI programs.
func TestAnalyzeGenerated(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		h := waitstate.GenTrace().Draw(t, "program")
		want := waitstate.ReferenceReport(h.Defs, h.Events)
		got := analyze(t, model.NewSliceSource(h.Defs, h.Events))
		if diff := cmp.Diff(want, got, equalOpts...); diff != "" {
			t.Fatalf("Analyze (-reference +streaming):\n%s", diff)
		}
	})
}

// TestAnalyzeEveryFormat writes every hand case in every format, and checks
// that Analyze reading the file through hpctrace.Open gives the reference's
// report of the events read back, and so (TestReferenceEveryFormat) the
// original report wherever the format keeps what the case needs.
func TestAnalyzeEveryFormat(t *testing.T) {
	for _, h := range waitstate.HandTraces() {
		want := waitstate.ReferenceReport(h.Defs, h.Events)
		for _, f := range traceFormats {
			t.Run(h.Name+"/"+f.name, func(t *testing.T) {
				written := f.keep(h.Events)
				if f.requests {
					written = h.Events
				}
				name := f.write(t, t.TempDir(), h.Defs, written)
				d, events, _ := readBack(t, name, f.opts, h.Defs)
				ref := waitstate.ReferenceReport(d, events)

				tr, err := hpctrace.Open(name, f.opts)
				if err != nil {
					t.Fatal(err)
				}
				defer tr.Close()
				got := analyze(t, noTracing{tr})
				if diff := cmp.Diff(ref, got, equalOpts...); diff != "" {
					t.Errorf("Analyze of %s (-reference +streaming):\n%s", f.name, diff)
				}
				renumber(got, d)
				if lost[h.Name][f.name] == "" {
					if diff := cmp.Diff(want, got, append(equalOpts, cmpopts.IgnoreFields(waitstate.Report{}, "TimeBase"))...); diff != "" {
						t.Errorf("Analyze of %s against the original report (-want +got):\n%s", f.name, diff)
					}
				}
			})
		}
	}
}

// TestAnalyzeEveryFormatGenerated writes generated MPI programs in every
// format and checks that Analyze reading each file gives the reference's
// report of the events read back.
func TestAnalyzeEveryFormatGenerated(t *testing.T) {
	root := t.TempDir()
	n := 0
	rapid.Check(t, func(rt *rapid.T) {
		h := waitstate.GenTrace().Draw(rt, "program")
		for _, f := range traceFormats {
			written := f.keep(h.Events)
			if f.requests {
				written = h.Events
			}
			n++
			dir := filepath.Join(root, strconv.Itoa(n))
			if err := os.Mkdir(dir, 0o755); err != nil {
				rt.Fatal(err)
			}
			name := f.write(rt, dir, h.Defs, written)
			d, events, _ := readBack(rt, name, f.opts, h.Defs)
			ref := waitstate.ReferenceReport(d, events)
			tr, err := hpctrace.Open(name, f.opts)
			if err != nil {
				rt.Fatal(err)
			}
			got := analyze(rt, noTracing{tr})
			tr.Close()
			if diff := cmp.Diff(ref, got, equalOpts...); diff != "" {
				rt.Fatalf("Analyze of %s (-reference +streaming):\n%s", f.name, diff)
			}
		}
	})
}
