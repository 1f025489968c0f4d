package kmerge

import (
	"cmp"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// A rec is one record of a source: its major key and tie, and where it
// came from.
type rec struct {
	major int64
	tie   uint32
	src   int
	pos   int
}

// merge runs a Tree over srcs (each sorted by (major, tie)) and returns
// the records in the order the tree yields them.
func merge(srcs [][]rec) []rec {
	var t Tree[int64]
	pos := make([]int, len(srcs))
	key := func(i int) Key[int64] {
		if pos[i] >= len(srcs[i]) {
			return Done[int64]()
		}
		r := srcs[i][pos[i]]
		return MakeKey(r.major, r.tie, i)
	}
	var got []rec
	for w := t.Start(len(srcs), key); !w.Done(); {
		s := w.Source()
		got = append(got, srcs[s][pos[s]])
		pos[s]++
		w = t.Push(s, key(s))
	}
	return got
}

// want is the merge by definition: a stable sort by (major, tie, source)
// of the records in source order, which keeps each source's own order.
func want(srcs [][]rec) []rec {
	var all []rec
	for _, s := range srcs {
		all = append(all, s...)
	}
	slices.SortStableFunc(all, func(a, b rec) int {
		return cmp.Or(cmp.Compare(a.major, b.major), cmp.Compare(a.tie, b.tie), cmp.Compare(a.src, b.src))
	})
	return all
}

func drawSources(t *rapid.T) [][]rec {
	k := rapid.IntRange(0, 17).Draw(t, "k")
	srcs := make([][]rec, k)
	for i := range srcs {
		n := rapid.IntRange(0, 12).Draw(t, "n")
		for p := range n {
			// Few distinct values, so that ties are common; extreme
			// majors check the Done sentinel.
			major := rapid.SampledFrom([]int64{-1 << 63, -3, 0, 1, 2, 5, 1<<63 - 1}).Draw(t, "major")
			tie := rapid.SampledFrom([]uint32{0, 1, 1<<32 - 1}).Draw(t, "tie")
			srcs[i] = append(srcs[i], rec{major, tie, i, p})
		}
		slices.SortStableFunc(srcs[i], func(a, b rec) int {
			return cmp.Or(cmp.Compare(a.major, b.major), cmp.Compare(a.tie, b.tie))
		})
		for p := range srcs[i] {
			srcs[i][p].pos = p
		}
	}
	return srcs
}

// TestTreeOrder checks that the merge equals a stable sort by key with
// ties broken by source index.
func TestTreeOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		srcs := drawSources(t)
		if got, want := merge(srcs), want(srcs); !slices.Equal(got, want) {
			t.Fatalf("got %v\nwant %v", got, want)
		}
	})
}

// FuzzTree is TestTreeOrder on sources cut from the fuzzer's bytes: byte
// 0 is k, then each byte is a record of source b%k with major b/k.
func FuzzTree(f *testing.F) {
	f.Add([]byte{3, 0, 1, 2, 3, 4, 5, 6, 6, 6})
	f.Add([]byte{1, 9, 9})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		k := int(data[0]%40) + 1
		srcs := make([][]rec, k)
		for _, b := range data[1:] {
			i := int(b) % k
			srcs[i] = append(srcs[i], rec{int64(b) / int64(k), uint32(b & 1), i, 0})
		}
		for i := range srcs {
			slices.SortStableFunc(srcs[i], func(a, b rec) int {
				return cmp.Or(cmp.Compare(a.major, b.major), cmp.Compare(a.tie, b.tie))
			})
			for p := range srcs[i] {
				srcs[i][p].pos = p
			}
		}
		if got, want := merge(srcs), want(srcs); !slices.Equal(got, want) {
			t.Fatalf("got %v\nwant %v", got, want)
		}
	})
}

// TestTreeUnsigned runs the unsigned instantiation to the top of its
// range, where a live key must still sort before Done.
func TestTreeUnsigned(t *testing.T) {
	var tr Tree[uint64]
	keys := tr.Reset(3)
	keys[0] = MakeKey(^uint64(0), 1<<32-1, 0)
	keys[1] = MakeKey(uint64(5), 0, 1)
	tr.Init()
	var got []int
	for w := tr.Winner(); !w.Done(); w = tr.Push(w.Source(), Done[uint64]()) {
		got = append(got, w.Source())
	}
	if !slices.Equal(got, []int{1, 0}) {
		t.Fatalf("got sources %v, want [1 0]", got)
	}
}

// TestTreeReuse checks that a Tree reset for fewer sources forgets the
// previous merge.
func TestTreeReuse(t *testing.T) {
	var tr Tree[int64]
	keys := tr.Reset(5)
	for i := range keys {
		keys[i] = MakeKey(int64(i), 0, i)
	}
	tr.Init()
	keys = tr.Reset(2)
	keys[1] = MakeKey(int64(7), 0, 1)
	tr.Init()
	if w := tr.Winner(); w.Source() != 1 || w.Major != 7 {
		t.Fatalf("winner %+v, want source 1 at 7", w)
	}
	if w := tr.Push(1, Done[int64]()); !w.Done() {
		t.Fatalf("winner %+v after the last record, want Done", w)
	}
	tr.Reset(0)
	tr.Init()
	if !tr.Winner().Done() {
		t.Fatal("an empty tree has a winner")
	}
}

func TestPushAllocatesNothing(t *testing.T) {
	const k = 8
	var tr Tree[uint64]
	keys := tr.Reset(k)
	for i := range keys {
		keys[i] = MakeKey(uint64(i), 0, i)
	}
	tr.Init()
	n := uint64(k)
	if a := testing.AllocsPerRun(1000, func() {
		w := tr.Winner()
		n++
		tr.Push(w.Source(), MakeKey(n, 0, w.Source()))
	}); a != 0 {
		t.Fatalf("Push allocates %.1f times; want 0", a)
	}
}

func BenchmarkPush8(b *testing.B) {
	const k = 8
	var tr Tree[uint64]
	keys := tr.Reset(k)
	for i := range keys {
		keys[i] = MakeKey(uint64(i), 0, i)
	}
	tr.Init()
	n := uint64(k)
	b.ReportAllocs()
	for b.Loop() {
		w := tr.Winner()
		n += 7
		tr.Push(w.Source(), MakeKey(n%1000+w.Major, 0, w.Source()))
	}
}

// TestPacked: a Packed tree over keys packed as major<<5 | source yields
// the same order as the definition.
func TestPacked(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		srcs := drawSources(t)
		for _, s := range srcs {
			for i := range s {
				s[i].tie = 0                                // the packed key's tie break is the source alone
				s[i].major = min(max(s[i].major, 0), 1<<40) // packable, order kept
			}
		}
		var p Packed
		pos := make([]int, len(srcs))
		key := func(i int) uint64 {
			if pos[i] >= len(srcs[i]) {
				return PackedDone
			}
			return uint64(srcs[i][pos[i]].major)<<5 | uint64(i)
		}
		keys := p.Reset(len(srcs))
		for i := range keys {
			keys[i] = key(i)
		}
		var got []rec
		for w := p.Init(); w != PackedDone; {
			s := int(w & 31)
			got = append(got, srcs[s][pos[s]])
			pos[s]++
			w = p.Push(s, key(s))
			if w != p.Winner() {
				t.Fatalf("Push returned %x, Winner %x", w, p.Winner())
			}
		}
		if w := want(srcs); !slices.Equal(got, w) {
			t.Fatalf("got %v\nwant %v", got, w)
		}
	})
}
