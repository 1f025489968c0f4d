package waitstate

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/hpctrace/hpctrace/model"
)

// wrongOrderNaive is §2.1's rule as written: a window of the last 100
// late-sender instances, each compared with every later message.
func (f *fin) wrongOrderNaive(loc model.LocID, ls []inst) []bool {
	wo := make([]bool, len(ls))
	var window []int
	next := 0
	cur := int32(-1)
	l := &f.locs[loc]
	for i, p := range l.p2p {
		if p.kind != pRecv || p.call < 0 {
			continue
		}
		pr := f.partner[loc][i]
		if pr.loc == 0 {
			continue
		}
		sc := f.locs[pr.loc].p2p[pr.idx].call
		if sc < 0 {
			continue
		}
		if p.call != cur {
			for next < len(ls) && ls[next].call < p.call {
				window = append(window, next)
				if len(window) > wrongOrderWindow {
					window = window[1:]
				}
				next++
			}
			cur = p.call
		}
		es := f.call(pr.loc, sc).enter
		for _, k := range window {
			if es < f.call(ls[k].dloc, ls[k].dcall).enter {
				wo[k] = true
			}
		}
	}
	return wo
}

func checkWrongOrder(t rapid.TB, defs *model.Defs, evs []model.Event) int {
	f, err := analyzeFin(model.NewSliceSource(defs, evs), nil)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for li := range f.locs {
		var ls []inst
		for _, in := range f.insts {
			if in.pat == LateSender && in.loc == model.LocID(li) {
				ls = append(ls, in)
			}
		}
		want := f.wrongOrderNaive(model.LocID(li), ls)
		for i, in := range ls {
			if in.wo != want[i] {
				t.Fatalf("location %d, instance %d: wrong order %v, want %v", li, i, in.wo, want[i])
			}
			if in.wo {
				n++
			}
		}
	}
	return n
}

func TestWrongOrderWindow(t *testing.T) {
	defs, evs := workload(16, 400)
	if n := checkWrongOrder(t, defs, evs); n == 0 {
		t.Fatal("the workload has no wrong-order instance: the test compares nothing")
	}
	rapid.Check(t, func(t *rapid.T) {
		defs, evs := genStreamProgram(t)
		checkWrongOrder(t, defs, evs)
	})
}
