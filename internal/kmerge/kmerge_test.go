package kmerge

import (
	"slices"
	"testing"

	"pgregory.net/rapid"
)

type item struct {
	key, src, pos int
}

// TestMergeOrder checks that the merge equals a stable sort by (key, source,
// position) of all the sources' records.
func TestMergeOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		k := rapid.IntRange(0, 9).Draw(t, "k")
		srcs := make([][]int, k)
		var want []item
		for i := range srcs {
			keys := rapid.SliceOf(rapid.IntRange(0, 20)).Draw(t, "keys")
			slices.Sort(keys)
			srcs[i] = keys
			for p, key := range keys {
				want = append(want, item{key, i, p})
			}
		}
		slices.SortStableFunc(want, func(a, b item) int {
			if a.key != b.key {
				return a.key - b.key
			}
			return a.src - b.src
		})
		pos := make([]int, k)
		for i := range pos {
			pos[i] = -1
		}
		var m Merger
		m.Init(k, func(i int) bool {
			pos[i]++
			return pos[i] < len(srcs[i])
		}, func(i, j int) bool {
			return srcs[i][pos[i]] < srcs[j][pos[j]]
		})
		var got []item
		for {
			i, ok := m.Next()
			if !ok {
				break
			}
			got = append(got, item{srcs[i][pos[i]], i, pos[i]})
		}
		if !slices.Equal(got, want) {
			t.Fatalf("got %v, want %v", got, want)
		}
		if _, ok := m.Next(); ok {
			t.Fatal("Next after the end returned true")
		}
	})
}

func TestNextAllocatesNothing(t *testing.T) {
	const k = 8
	pos := make([]int, k)
	var m Merger
	m.Init(k, func(i int) bool { pos[i]++; return true }, func(i, j int) bool { return pos[i]*k+i < pos[j]*k+j })
	if n := testing.AllocsPerRun(1000, func() { m.Next() }); n != 0 {
		t.Fatalf("Next allocates %.1f times; want 0", n)
	}
}

func BenchmarkNext8(b *testing.B) {
	const k = 8
	pos := make([]int, k)
	var m Merger
	m.Init(k, func(i int) bool { pos[i]++; return true }, func(i, j int) bool { return pos[i] < pos[j] })
	b.ReportAllocs()
	for b.Loop() {
		m.Next()
	}
}
