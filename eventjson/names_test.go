package eventjson

import (
	"slices"
	"testing"
)

// TestNames pins the names the form writes and reads for the model's
// enumerations: they come from the model's String methods, and a change
// there (a renamed or an added value) changes the form, which this test
// makes a deliberate decision.
func TestNames(t *testing.T) {
	for _, tt := range []struct {
		typ       string
		got, want []string
	}{
		{"Kind", kindNames, []string{"unknown", "enter", "leave", "send", "recv", "coll_begin", "coll_end", "counter", "marker",
			"recv_post", "send_done", "program_begin", "program_end", "parameter", "coll_post", "coll_done"}},
		{"Class", classNames, []string{"unknown", "barrier", "one2all", "all2one", "all2all"}},
		{"RegionKind", regionKindNames, []string{"other", "function", "loop", "comm", "collective", "sync", "io", "tracing", "user"}},
		{"Paradigm", paradigmNames, []string{"unknown", "user", "mpi", "openmp", "threads", "accelerator", "io", "measurement", "other"}},
	} {
		if !slices.Equal(tt.got, tt.want) {
			t.Errorf("%s names: got %q, want %q", tt.typ, tt.got, tt.want)
		}
	}
}
