package waitstate

import (
	"github.com/hpctrace/hpctrace/model"
	"pgregory.net/rapid"
)

// Hooks for the external tests (package waitstate_test), which may import
// the format packages that package waitstate must not.

// A HandTrace is a hand case's trace.
type HandTrace struct {
	Name   string
	Defs   *model.Defs
	Events []model.Event
}

// HandTraces builds the trace of every hand case (hand_test.go).
func HandTraces() []HandTrace {
	out := make([]HandTrace, len(handCases))
	for i := range handCases {
		b := newTrace(handCases[i].ranks)
		handCases[i].build(b)
		out[i] = HandTrace{Name: handCases[i].name, Defs: b.defs, Events: b.events()}
	}
	return out
}

// ReferenceReport is the reference implementation's report
// (reference_test.go).
func ReferenceReport(defs *model.Defs, events []model.Event) *Report {
	return refAnalyze(defs, events).report
}

// GenTrace draws a generated MPI program (gen_test.go).
func GenTrace() *rapid.Generator[HandTrace] {
	return rapid.Map(genProgram(), func(p program) HandTrace {
		return HandTrace{Name: "generated", Defs: p.defs, Events: p.events}
	})
}
