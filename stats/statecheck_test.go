package stats_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"reflect"
	"testing"

	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/stats"
	"pgregory.net/rapid"
)

// savedStates returns the saved accumulator and call tree of genFixed's
// first location (so that messages and a collective are pending).
func savedStates(t *testing.T) (acc, tree []byte) {
	t.Helper()
	d, events := genFixed()
	locs := map[model.LocID]bool{1: true}
	acc, err := feed(d, events, locs, nil).MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	tree, err = feedTree(d, events, locs).MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return acc, tree
}

// decodeBoth decodes data as an accumulator state (kind "acc") or a call
// tree state.
func decodeBoth(kind string, data []byte) (*stats.Accumulator, *stats.CallTree, error) {
	if kind == "acc" {
		a := new(stats.Accumulator)
		return a, nil, a.UnmarshalBinary(data)
	}
	d, _ := genFixed()
	ct := stats.NewCallTree(d, nil)
	return nil, ct, ct.UnmarshalBinary(data)
}

// TestStateBitFlips checks that every single-bit flip of a saved state is
// refused, with an error wrapping ErrState.
func TestStateBitFlips(t *testing.T) {
	acc, tree := savedStates(t)
	for kind, data := range map[string][]byte{"acc": acc, "tree": tree} {
		if _, _, err := decodeBoth(kind, data); err != nil {
			t.Fatalf("%s: the state itself: %v", kind, err)
		}
		for bit := range 8 * len(data) {
			b := bytes.Clone(data)
			b[bit/8] ^= 1 << (bit % 8)
			if _, _, err := decodeBoth(kind, b); !errors.Is(err, stats.ErrState) {
				t.Errorf("%s: bit %d flipped: got error %v, want ErrState", kind, bit, err)
			}
		}
	}
}

// reseal replaces the checksum at the end of a state with that of the
// bytes before it (the layout StateVersion documents).
func reseal(b []byte) []byte {
	n := len(b) - 4
	binary.BigEndian.PutUint32(b[n:], crc32.Checksum(b[:n], crc32.MakeTable(crc32.Castagnoli)))
	return b
}

// TestStateValidation flips every bit of the body of saved states and
// seals them again, as a writer that computed its checksum over wrong
// values would: a state that still decodes has no negative count or time
// in its report, and its call paths no exclusive time above the
// inclusive one or minimum above the maximum.
func TestStateValidation(t *testing.T) {
	acc, tree := savedStates(t)
	refused := 0
	for kind, data := range map[string][]byte{"acc": acc, "tree": tree} {
		for bit := range 8 * (len(data) - 4) {
			b := bytes.Clone(data)
			b[bit/8] ^= 1 << (bit % 8)
			a, ct, err := decodeBoth(kind, reseal(b))
			if err != nil {
				if !errors.Is(err, stats.ErrState) {
					t.Fatalf("%s: bit %d: error not wrapping ErrState: %v", kind, bit, err)
				}
				refused++
				continue
			}
			if a != nil {
				rep := a.Finalize()
				dv := reflect.ValueOf(rep.Final.Diagnostics)
				for i := range dv.NumField() {
					if f := dv.Field(i); f.Kind() == reflect.Int64 && f.Int() < 0 {
						t.Errorf("acc: bit %d: diagnostic %s = %d", bit, dv.Type().Field(i).Name, f.Int())
					}
				}
				for _, f := range rep.Final.Functions {
					if f.Visits < 0 || f.Incl < 0 || f.Excl < 0 || f.Excl > f.InclActivationSum || f.Min > f.Max {
						t.Errorf("acc: bit %d: function %+v", bit, f)
					}
				}
				for _, c := range rep.Final.Callsites {
					if c.Count < 0 || c.Excl < 0 || c.Excl > c.Incl {
						t.Errorf("acc: bit %d: call site %+v", bit, c)
					}
				}
				continue
			}
			var walk func(n *stats.CallNode)
			walk = func(n *stats.CallNode) {
				if n.Count < 0 || n.Excl < 0 || n.Excl > n.Incl || n.Min > n.Max {
					t.Errorf("tree: bit %d: call path %+v", bit, *n)
				}
				for _, c := range n.Children {
					walk(c)
				}
			}
			walk(ct.Root())
		}
	}
	if refused == 0 {
		t.Error("no resealed flip refused")
	}
}

// propDeterministic: two saves of the same statistics, and the saves of
// two accumulators fed the same events, are byte-identical.
func propDeterministic(t *rapid.T) {
	d, events := shardTrace(t)
	x, y := feed(d, events, nil, nil), feed(d, events, nil, nil)
	var first []byte
	for _, a := range []*stats.Accumulator{x, x, y, y} {
		b, err := a.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = b
		} else if !bytes.Equal(first, b) {
			t.Fatalf("two saves of the same statistics differ (%d and %d bytes)", len(first), len(b))
		}
	}
	tx, err := feedTree(d, events, nil).MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	ty, err := feedTree(d, events, nil).MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(tx, ty) {
		t.Fatal("two saves of the same call tree differ")
	}
}

func TestStateDeterministic(t *testing.T) { rapid.Check(t, propDeterministic) }
