package stats_test

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/stats"
)

// counterTrace: two locations (ranks 0 and 1) sampling an accumulating
// integer counter (instructions) and an instantaneous float counter
// (watts, IEEE bits in Value) on a 1 ms clock.
func counterTrace() (*model.Defs, []model.Event) {
	d := new(model.Defs)
	d.TimeBase = model.TimeBase{TicksPerSecond: 1000}
	a := d.AddLocation(model.Location{Name: "rank 0", Native: 0})
	b := d.AddLocation(model.Location{Name: "rank 1", Native: 1})
	ins := d.AddCounter(model.Counter{Name: "PAPI_TOT_INS", Accumulating: true})
	pow := d.AddCounter(model.Counter{Name: "power", Unit: "W", Float: true})
	f := func(v float64) int64 { return int64(math.Float64bits(v)) }
	return d, []model.Event{
		{Time: 0, Loc: a, Kind: model.KindCounter, Counter: ins, Value: 100},
		{Time: 0, Loc: a, Kind: model.KindCounter, Counter: pow, Value: f(80.5)},
		{Time: 500, Loc: b, Kind: model.KindCounter, Counter: ins, Value: 7},
		{Time: 1000, Loc: a, Kind: model.KindCounter, Counter: ins, Value: 1100},
		{Time: 1000, Loc: a, Kind: model.KindCounter, Counter: pow, Value: f(120.25)},
		{Time: 2000, Loc: a, Kind: model.KindCounter, Counter: ins, Value: 4100},
		{Time: 2000, Loc: a, Kind: model.KindCounter, Counter: pow, Value: f(100)},
		{Time: 2000, Loc: a, Kind: model.KindCounter, Counter: 9, Value: 1}, // undefined: ignored
	}
}

var wantCounters = []stats.CounterSummary{
	{LocID: 1, Loc: 0, CounterID: 1, Counter: "PAPI_TOT_INS", Accumulating: true, Samples: 3, FirstTime: 0, LastTime: 2000,
		First: 100, Last: 4100, Min: 100, Max: 4100, Mean: 1766.6666666666667, Rate: 2000},
	{LocID: 1, Loc: 0, CounterID: 2, Counter: "power", Unit: "W", Float: true, Samples: 3, FirstTime: 0, LastTime: 2000,
		First: 80.5, Last: 100, Min: 80.5, Max: 120.25, Mean: 100.25, Rate: 9.75},
	{LocID: 2, Loc: 1, CounterID: 1, Counter: "PAPI_TOT_INS", Accumulating: true, Samples: 1, FirstTime: 500, LastTime: 500,
		First: 7, Last: 7, Min: 7, Max: 7, Mean: 7},
}

func TestCounterSummaries(t *testing.T) {
	d, evs := counterTrace()
	a := stats.New(d, nil)
	for i := range evs {
		a.Add(&evs[i])
	}
	rep := a.Finalize()
	if diff := cmp.Diff(wantCounters, rep.Final.Counters, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
		t.Errorf("counters (-want +got):\n%s", diff)
	}
	if g := rep.Final.Diagnostics.Ignored; g != 1 {
		t.Errorf("ignored %d, want 1 (the sample of an undefined counter)", g)
	}
	js, err := json.Marshal(rep.Final.Counters)
	if err != nil {
		t.Fatal(err)
	}
	if want := `"counter":"power","unit":"W","accumulating":false,"float":true,"samples":3,"first_time":0,"last_time":2000,"first":80.5,"last":100,"min":80.5,"max":120.25,"mean":100.25,"rate":9.75`; !strings.Contains(string(js), want) {
		t.Errorf("JSON %s lacks %s", js, want)
	}
	var buf bytes.Buffer
	if err := rep.WriteText(&buf, nil); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Counters per location (rate: (last - first) per s",
		"       0 PAPI_TOT_INS              acc        3          100         4100      1766.67         2000",
		"       0 power                    inst        3         80.5       120.25       100.25         9.75",
	} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, buf.String())
		}
	}
}

// TestCounterSummariesShards: the summaries of shards saved, joined and
// merged equal those of one run, and a NaN sample is carried to JSON as
// null instead of failing the report.
func TestCounterSummariesShards(t *testing.T) {
	d, evs := counterTrace()
	shard := func(loc model.LocID) *stats.Accumulator {
		a := stats.New(d, nil)
		for i := range evs {
			if evs[i].Loc == loc {
				a.Add(&evs[i])
			}
		}
		data, err := a.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		b := new(stats.Accumulator)
		if err := b.UnmarshalBinary(data); err != nil {
			t.Fatal(err)
		}
		return b
	}
	j := shard(1)
	if err := j.Join(shard(2)); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantCounters, j.Finalize().Final.Counters, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
		t.Errorf("joined counters (-want +got):\n%s", diff)
	}
	m := stats.New(d, nil)
	for _, l := range []model.LocID{2, 1} {
		s := stats.New(d, nil)
		for i := range evs {
			if evs[i].Loc == l {
				s.Add(&evs[i])
			}
		}
		m.Merge(s)
	}
	if diff := cmp.Diff(wantCounters, m.Finalize().Final.Counters, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
		t.Errorf("merged counters (-want +got):\n%s", diff)
	}

	nan := stats.New(d, nil)
	nan.Add(&model.Event{Time: 1, Loc: 1, Kind: model.KindCounter, Counter: 2, Value: int64(math.Float64bits(math.NaN()))})
	js, err := json.Marshal(nan.Finalize())
	if err != nil {
		t.Fatalf("a NaN sample fails the JSON report: %v", err)
	}
	if !strings.Contains(string(js), `"min":null`) {
		t.Errorf("JSON of a NaN sample: want null, got %s", js)
	}
}
