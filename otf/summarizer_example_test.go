package otf_test

import (
	"fmt"

	"github.com/hpctrace/hpctrace/otf"
)

// Compute summary records from events, as otfaux does for a trace without
// summaries: apply the function definitions, then the events in time
// order, and ask for the summaries at a time. A call still on the stack at
// that time counts with its time so far.
func ExampleSummarizer() {
	var s otf.Summarizer
	var rec otf.Record
	rec.SetDefFunction(otf.DefFunction{Function: 1, Group: 1, Name: []byte("main")})
	s.Apply(&rec)
	rec.SetDefFunction(otf.DefFunction{Function: 2, Group: 1, Name: []byte("solve")})
	s.Apply(&rec)
	event := func(t uint64, enter bool, f uint32) {
		rec.Time, rec.Process = t, 1
		if enter {
			rec.SetEnter(otf.Enter{Function: f})
		} else {
			rec.SetLeave(otf.Leave{Function: f})
		}
		s.Apply(&rec)
	}
	event(0, true, 1)
	event(10, true, 2)
	event(40, false, 2)
	event(50, true, 2)
	for _, sum := range s.AppendRecords(nil, 100) {
		f, _ := sum.FunctionSummary()
		fmt.Printf("t=%d process %d function %d: %d calls, %d exclusive, %d inclusive\n",
			sum.Time, sum.Process, f.Function, f.Count, f.ExclTime, f.InclTime)
	}
	// Output:
	// t=100 process 1 function 1: 1 calls, 20 exclusive, 100 inclusive
	// t=100 process 1 function 2: 2 calls, 80 exclusive, 80 inclusive
}
