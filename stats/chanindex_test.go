package stats

import (
	"testing"

	"github.com/hpctrace/hpctrace/model"
	"pgregory.net/rapid"
)

// TestChanIndex checks a chanIndex over its channels against a map:
// every channel added is found at its position, keys not added are not
// found, all yields each channel once, a reset forgets them all, and a
// clone is a copy.
func TestChanIndex(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		small := rapid.Uint32Range(0, 9)
		key := rapid.Custom(func(t *rapid.T) chanKey {
			return chanKey{model.LocID(small.Draw(t, "sender")), model.LocID(small.Draw(t, "receiver")), int32(small.Draw(t, "tag")) - 2, model.CommID(small.Draw(t, "comm"))}
		})
		var x chanIndex
		var chanQ []chanQueue
		want := make(map[chanKey]int32)
		for i := range rapid.IntRange(1, 3).Draw(t, "rounds") {
			if i > 0 {
				x.reset(rapid.IntRange(0, 100).Draw(t, "n"))
				chanQ = chanQ[:0]
				clear(want)
				if _, ok := x.find(chanQ, key.Draw(t, "after reset")); ok {
					t.Fatal("found a key after reset")
				}
			}
			for _, k := range rapid.SliceOf(key).Draw(t, "keys") {
				p, ok := x.find(chanQ, k)
				if w, had := want[k]; had != ok || ok && p != w {
					t.Fatalf("find(%v) = %d, %v; want %d, %v", k, p, ok, w, had)
				}
				if !ok {
					qi := int32(len(chanQ))
					chanQ = append(chanQ, chanQueue{key: k})
					x.add(chanQ, qi)
					want[k] = qi
				}
			}
			if 2*x.n > len(x.slots) {
				t.Fatalf("%d channels in %d slots", x.n, len(x.slots))
			}
			got := make(map[chanKey]int32)
			for k, qi := range x.all(chanQ) {
				if _, dup := got[k]; dup {
					t.Fatalf("all yields %v twice", k)
				}
				got[k] = qi
			}
			if len(got) != len(want) {
				t.Fatalf("all yields %d channels, want %d", len(got), len(want))
			}
			for k, w := range want {
				if got[k] != w {
					t.Fatalf("all: %v at %d, want %d", k, got[k], w)
				}
			}
		}
		c := x.clone()
		k := chanKey{sender: 99}
		chanQ = append(chanQ, chanQueue{key: k})
		c.add(chanQ, int32(len(chanQ)-1))
		if _, ok := x.find(chanQ, k); ok {
			t.Fatal("clone shares slots")
		}
		for k, w := range want {
			if p, ok := c.find(chanQ, k); !ok || p != w {
				t.Fatalf("clone: find(%v) = %d, %v; want %d", k, p, ok, w)
			}
		}
	})
}

// TestChanIndexShrinks checks that dropping the idle channels of a burst
// of messages in flight leaves an index sized for the channels that
// remain, not for the burst.
func TestChanIndexShrinks(t *testing.T) {
	var x chanIndex
	var chanQ []chanQueue
	for i := range 1 << 16 {
		chanQ = append(chanQ, chanQueue{key: chanKey{sender: 1, receiver: 2, tag: int32(i)}})
		x.add(chanQ, int32(i))
	}
	x.reset(10)
	chanQ = append(chanQ[:0], chanQueue{key: chanKey{sender: 1, receiver: 2, tag: 7}})
	x.add(chanQ, 0)
	if n := len(x.slots); n > 8*64 {
		t.Fatalf("%d slots for one channel after a reset", n)
	}
	if qi, ok := x.find(chanQ, chanKey{sender: 1, receiver: 2, tag: 7}); !ok || qi != 0 {
		t.Fatalf("find = %d, %v; want 0, true", qi, ok)
	}
}
