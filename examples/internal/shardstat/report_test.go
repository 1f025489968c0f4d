package shardstat

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/hpctrace/hpctrace/stats"
)

// TestReportJSONFields: the JSON report with wait states has the fields
// of stats.Report, with the same keys, types and order, then call_tree,
// so that a field added to stats.Report is not silently missing from it.
func TestReportJSONFields(t *testing.T) {
	want := reflect.TypeFor[stats.Report]()
	got := reflect.TypeFor[reportJSON]()
	if got.NumField() != want.NumField()+1 {
		t.Fatalf("reportJSON has %d fields, want stats.Report's %d and call_tree", got.NumField(), want.NumField())
	}
	for i := range want.NumField() {
		w, g := want.Field(i), got.Field(i)
		if w.Tag.Get("json") != g.Tag.Get("json") {
			t.Errorf("field %d: tag %q, want %q", i, g.Tag.Get("json"), w.Tag.Get("json"))
		}
		if w.Name == "Final" {
			continue // stats.Final and the wait states
		}
		if w.Type != g.Type {
			t.Errorf("field %s: type %v, want %v", w.Name, g.Type, w.Type)
		}
	}
	if tag := got.Field(want.NumField()).Tag.Get("json"); tag != "call_tree" {
		t.Errorf("last field's tag %q, want call_tree", tag)
	}
}

// TestWaitsJSON: the JSON report of an MPI trace has stats' keys, in
// stats' order, with the wait states at the end of "final"; the report
// of a trace without MPI calls has none of them.
func TestWaitsJSON(t *testing.T) {
	for _, c := range []struct {
		name  string
		waits bool
	}{
		{"../../../dumpi/testdata/collectives/dumpi-2026.11.22.01.33.17.meta", true},
		{"../../../otf2/testdata/minimal/trace/traces.otf2", false},
	} {
		st, err := Profile(c.name, Shard{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := st.WriteReport(&buf, &ReportOptions{JSON: true}); err != nil {
			t.Fatal(err)
		}
		off, err := Profile(c.name, Shard{}, &Options{NoWaits: true})
		if err != nil {
			t.Fatal(err)
		}
		if off.Waits != nil {
			t.Fatal("Options.NoWaits: the state has the analysis")
		}
		var plain bytes.Buffer
		if err := off.WriteReport(&plain, &ReportOptions{JSON: true}); err != nil {
			t.Fatal(err)
		}
		if !c.waits {
			if !bytes.Equal(buf.Bytes(), plain.Bytes()) {
				t.Errorf("%s: the report without MPI calls changes with the analysis", c.name)
			}
			continue
		}
		// The same text up to the end of "counters" or "mpi", then the
		// wait states.
		i := bytes.Index(buf.Bytes(), []byte(",\n  \"wait_states\": ["))
		if i < 0 {
			t.Fatalf("%s: no wait_states in final", c.name)
		}
		if !bytes.HasPrefix(plain.Bytes(), buf.Bytes()[:i]) {
			t.Errorf("%s: the report before wait_states differs from the statistics' report", c.name)
		}
		var m struct {
			Final map[string]json.RawMessage `json:"final"`
		}
		if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"wait_states", "delay_costs", "critical_path"} {
			if len(m.Final[k]) == 0 {
				t.Errorf("%s: final.%s missing", c.name, k)
			}
		}
	}
}
