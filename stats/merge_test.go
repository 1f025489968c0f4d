package stats_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/picl"
	"github.com/hpctrace/hpctrace/stats"
	"pgregory.net/rapid"
)

func reportJSON(t rapid.TB, acc *stats.Accumulator) []byte {
	data, err := json.Marshal(acc.Finalize())
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// mergeTree merges accs in a tree shape drawn by rapid.
func mergeTree(t *rapid.T, accs []*stats.Accumulator, label string) *stats.Accumulator {
	for len(accs) > 1 {
		i := rapid.IntRange(0, len(accs)-2).Draw(t, label)
		a, b := accs[i], accs[i+1]
		if rapid.Bool().Draw(t, label+"swap") {
			a, b = b, a
		}
		a.Merge(b)
		accs = append(accs[:i], append([]*stats.Accumulator{a}, accs[i+2:]...)...)
	}
	return accs[0]
}

// propMergeTree: the accumulators of a random partition of the locations,
// merged in two random tree shapes and orders, give bit-identical reports.
func propMergeTree(t *rapid.T) {
	d, events := genTrace(t)
	nshard := rapid.IntRange(1, 4).Draw(t, "nshard")
	assign := make(map[model.LocID]int)
	for l := 1; l <= d.NumLocations(); l++ {
		assign[model.LocID(l)] = rapid.IntRange(0, nshard-1).Draw(t, "shard")
	}
	opts := &stats.Options{SampleTimes: []model.Time{10, 50}, MaxPending: rapid.IntRange(1, 8).Draw(t, "maxPending"),
		Relative: picl.RelativeStats(-1, 1)}
	shards := func() []*stats.Accumulator {
		var out []*stats.Accumulator
		for s := range nshard {
			locs := make(map[model.LocID]bool)
			for l, x := range assign {
				if x == s {
					locs[l] = true
				}
			}
			out = append(out, feed(d, events, locs, opts))
		}
		// The empty accumulator is the identity.
		out = append(out, stats.New(d, opts))
		return out
	}
	a := mergeTree(t, shards(), "treeA")
	b := mergeTree(t, shards(), "treeB")
	ja, jb := reportJSON(t, a), reportJSON(t, b)
	if !bytes.Equal(ja, jb) {
		t.Fatalf("merge trees differ:\n%s", firstDiff(ja, jb))
	}
	// Finalize does not disturb the accumulator.
	if again := reportJSON(t, a); !bytes.Equal(ja, again) {
		t.Fatalf("second Finalize differs")
	}
	// FinalReport, settling in place, gives Finalize's report, for merged
	// accumulators and for one fed the whole stream.
	final := func(acc *stats.Accumulator) []byte {
		data, err := json.Marshal(acc.FinalReport())
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	if jf := final(a); !bytes.Equal(ja, jf) {
		t.Fatalf("FinalReport of the merged accumulators differs from Finalize:\n%s", firstDiff(ja, jf))
	}
	jw := reportJSON(t, feed(d, events, nil, opts))
	if jf := final(feed(d, events, nil, opts)); !bytes.Equal(jw, jf) {
		t.Fatalf("FinalReport differs from Finalize:\n%s", firstDiff(jw, jf))
	}
	// With one shard, merging with the identity changes nothing.
	if nshard == 1 {
		if !bytes.Equal(jw, ja) {
			t.Fatalf("single shard differs from the whole stream:\n%s", firstDiff(jw, ja))
		}
	}
}

func TestMergeTree(t *testing.T) { rapid.Check(t, propMergeTree) }

// propInvariants checks relations that hold for every stream.
func propInvariants(t *rapid.T) {
	d, events := genTrace(t)
	acc := feed(d, events, nil, &stats.Options{SampleTimes: []model.Time{0, 20, 40, 80}})
	rep := acc.Finalize()
	f := &rep.Final
	// Every operation's time is split into sync + trans exactly once.
	for _, c := range f.Com {
		if c.SyncDelay < 0 || c.TransTime < 0 {
			t.Fatalf("negative COM time: %+v", c)
		}
	}
	var sent, recvd int64
	for _, m := range f.MatrixSend {
		sent += m.Count
	}
	for _, m := range f.MatrixRecv {
		recvd += m.Count
	}
	dg := f.Diagnostics
	if 2*dg.MatchedMessages+dg.UnmatchedSend+dg.UnmatchedRecv != sent+recvd {
		t.Fatalf("matched %d, unmatched %d+%d, but %d sends and %d receives", dg.MatchedMessages, dg.UnmatchedSend, dg.UnmatchedRecv, sent, recvd)
	}
	var hist int64
	for _, h := range f.SizeHistogram {
		hist += h.Count
	}
	if hist != sent {
		t.Fatalf("histogram holds %d messages, %d were sent", hist, sent)
	}
	for _, fn := range f.Functions {
		if dg.NonMonotonic > 0 {
			break // durations are clamped; the relations need ordered clocks
		}
		if fn.Excl > fn.Incl || fn.Incl > fn.InclActivationSum || fn.Excl < 0 {
			t.Fatalf("want 0 <= excl <= incl <= activation sum: %+v", fn)
		}
	}
	// Samples are monotone (when clocks are).
	for i := 1; i < len(rep.Samples) && dg.NonMonotonic == 0; i++ {
		diff := rep.Samples[i].Sub(rep.Samples[i-1])
		for _, fn := range diff.Functions {
			if fn.Visits < 0 || fn.Incl < 0 || fn.Excl < 0 || fn.InclActivationSum < 0 {
				t.Fatalf("sample %d decreases: %+v", rep.Samples[i].Time, fn)
			}
		}
	}
}

func TestInvariants(t *testing.T) { rapid.Check(t, propInvariants) }

// firstDiff shows the two documents around their first difference.
func firstDiff(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	lo := max(i-200, 0)
	return string(a[lo:min(i+200, len(a))]) + "\n---\n" + string(b[lo:min(i+200, len(b))])
}

// FuzzAccumulator feeds arbitrary event streams to the accumulator, checks
// the invariants and that it never panics.
func FuzzAccumulator(f *testing.F) { f.Fuzz(rapid.MakeFuzz(propInvariants)) }
