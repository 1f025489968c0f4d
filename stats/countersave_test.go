package stats_test

import (
	"bytes"
	"testing"

	"github.com/hpctrace/hpctrace/stats"
)

// TestCounterStateBytes: two saves of the same state with counters of
// several locations are byte-identical (the counters are saved in key
// order, not in the order of a map).
func TestCounterStateBytes(t *testing.T) {
	d, evs := counterTrace()
	var first []byte
	for i := range 20 {
		a := stats.New(d, nil)
		for j := range evs {
			a.Add(&evs[j])
		}
		data, err := a.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = data
		} else if !bytes.Equal(first, data) {
			t.Fatalf("save %d differs from the first", i)
		}
	}
}
