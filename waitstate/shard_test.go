package waitstate

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/hpctrace/hpctrace/model"
)

func textOf(t rapid.TB, r *Report) []byte {
	var b bytes.Buffer
	if err := r.WriteText(&b, &TextOptions{Top: 100}); err != nil {
		t.Fatal(err)
	}
	j, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return append(b.Bytes(), j...)
}

// propShards: the shards of a partition of the locations, each saved and
// restored, joined, finalize to the report of one pass, byte for byte.
func propShards(t *rapid.T) {
	defs, evs := genStreamProgram(t)
	opts := &Options{TopN: 3}
	want, err := Analyze(model.NewSliceSource(defs, evs), opts)
	if err != nil {
		t.Fatal(err)
	}
	nshard := rapid.IntRange(1, 3).Draw(t, "shards")
	shard := make([]int, defs.NumLocations()+1)
	for l := range shard {
		shard[l] = rapid.IntRange(0, nshard-1).Draw(t, "shard")
	}
	as := make([]*Analyzer, nshard)
	for i := range as {
		as[i] = New(defs, opts)
	}
	for i := range evs {
		as[shard[evs[i].Loc]].Add(&evs[i])
	}
	joined := New(defs, opts)
	if err := joined.UnmarshalBinary(mustMarshal(t, as[0])); err != nil {
		t.Fatal(err)
	}
	for _, a := range as[1:] {
		b := New(defs, opts)
		if err := b.UnmarshalBinary(mustMarshal(t, a)); err != nil {
			t.Fatal(err)
		}
		if err := joined.Join(b); err != nil {
			t.Fatal(err)
		}
	}
	got, err := joined.Finalize()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("joined shards (-one pass +joined):\n%s", diff)
	}
	if !bytes.Equal(textOf(t, want), textOf(t, got)) {
		t.Fatal("text and JSON differ")
	}
	again, _ := joined.Finalize()
	if diff := cmp.Diff(got, again); diff != "" {
		t.Fatalf("second Finalize (-first +second):\n%s", diff)
	}
}

func mustMarshal(t rapid.TB, a *Analyzer) []byte {
	b, err := a.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestShards(t *testing.T) { rapid.Check(t, propShards) }

func TestJoinOverlap(t *testing.T) {
	b := chain()
	x, y := New(b.defs, nil), New(b.defs, nil)
	for i := range b.ev {
		x.Add(&b.ev[i])
		if b.ev[i].Loc == 2 {
			y.Add(&b.ev[i])
		}
	}
	if err := x.Join(y); !errors.Is(err, ErrState) {
		t.Errorf("Join of overlapping states: got %v, want ErrState", err)
	}
}

// FuzzUnmarshal: decoding never panics, and what decodes finalizes and
// saves again to the same bytes.
func FuzzUnmarshal(f *testing.F) {
	b := chain()
	a := New(b.defs, nil)
	for i := range b.ev {
		a.Add(&b.ev[i])
	}
	st := mustMarshal(f, a)
	f.Add(st)
	for _, n := range []int{len(st) / 3, len(st) / 2, len(st) - 1} {
		f.Add(st[:n])
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		x := New(b.defs, nil)
		if err := x.UnmarshalBinary(data); err != nil {
			if !errors.Is(err, ErrState) {
				t.Fatalf("error %v does not wrap ErrState", err)
			}
			return
		}
		if _, err := x.Finalize(); err != nil {
			t.Fatal(err)
		}
		again := mustMarshal(t, x)
		y := New(b.defs, nil)
		if err := y.UnmarshalBinary(again); err != nil {
			t.Fatalf("re-read: %v", err)
		}
	})
}
