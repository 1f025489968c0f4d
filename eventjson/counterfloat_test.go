package eventjson_test

import (
	"bytes"
	"math"
	"testing"

	"github.com/hpctrace/hpctrace/eventjson"
	"github.com/hpctrace/hpctrace/model"
)

// TestCounterFloat: a Float counter's flag and its values' bits go
// through the form.
func TestCounterFloat(t *testing.T) {
	d := new(model.Defs)
	l := d.AddLocation(model.Location{Name: "p"})
	i := d.AddCounter(model.Counter{Name: "ins", Accumulating: true})
	f := d.AddCounter(model.Counter{Name: "watts", Float: true})
	var buf bytes.Buffer
	w, err := eventjson.NewWriter(&buf, d, nil)
	if err != nil {
		t.Fatal(err)
	}
	bits := int64(math.Float64bits(80.5))
	if err := w.Write(&model.Event{Time: 1, Loc: l, Kind: model.KindCounter, Counter: f, Value: bits}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := eventjson.NewReader(&buf, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []model.Event
	for ev, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, *ev)
	}
	rd := r.Defs()
	ci, _ := rd.Counter(i)
	cf, _ := rd.Counter(f)
	if ci.Float || !cf.Float || !ci.Accumulating {
		t.Errorf("counters read back %+v and %+v, want ins integer and accumulating, watts Float", ci, cf)
	}
	if len(got) != 1 || got[0].Value != bits {
		t.Errorf("events %+v, want one with Value %d", got, bits)
	}
}
