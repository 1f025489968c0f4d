package waitstate_test

import (
	"encoding/json"
	"testing"

	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/stats"
	"github.com/hpctrace/hpctrace/waitstate"
)

// TestEmbedInFinal: waitstate.JSON embedded beside stats.Final marshals
// as one object holding both's keys, as tracestat's "final" does.
func TestEmbedInFinal(t *testing.T) {
	defs, evs := events(t, fixtures(t)[0])
	acc := stats.New(defs, nil)
	for i := range evs {
		acc.Add(&evs[i])
	}
	rep := acc.Finalize()
	ws, err := waitstate.Analyze(model.NewSliceSource(defs, evs), nil)
	if err != nil {
		t.Fatal(err)
	}
	final := struct {
		stats.Final
		waitstate.JSON
	}{rep.Final, ws.JSON(defs)}
	b, err := json.Marshal(final)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"functions", "com", "wait_states", "delay_costs", "critical_path"} {
		if _, ok := m[k]; !ok {
			t.Errorf("key %q missing from the embedded object", k)
		}
	}
	if string(m["wait_states"]) == "null" || string(m["delay_costs"]) == "null" {
		t.Errorf("empty lists must marshal as [], got %s and %s", m["wait_states"], m["delay_costs"])
	}
}
