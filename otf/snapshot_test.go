package otf

import (
	"slices"
	"testing"
)

// TestReferenceOrder checks the reference process table's order: buckets
// by increasing hash, the last defined first within a bucket.
func TestReferenceOrder(t *testing.T) {
	bucket := func(p uint32) uint32 { return lookup3Uint64(uint64(p)) & 1023 }
	// Two processes sharing a bucket, and one in another.
	first := map[uint32]uint32{}
	var a, b uint32
	for p := uint32(1); b == 0; p++ {
		if q, ok := first[bucket(p)]; ok {
			a, b = q, p
		} else {
			first[bucket(p)] = p
		}
	}
	c := uint32(1)
	for bucket(c) == bucket(a) {
		c++
	}
	for _, defined := range [][]uint32{{a, b, c}, {b, c, a}, {c, a, b}} {
		got := slices.Clone(defined)
		ReferenceOrder(got)
		ia, ib, ic := slices.Index(got, a), slices.Index(got, b), slices.Index(got, c)
		if (slices.Index(defined, a) < slices.Index(defined, b)) != (ib < ia) {
			t.Errorf("defined %v: got %v; want the later of %d and %d (same bucket) first", defined, got, a, b)
		}
		if (bucket(c) < bucket(a)) != (ic < ia) || (ia < ic) != (ib < ic) {
			t.Errorf("defined %v: got %v; want buckets in increasing order (%d: %d, %d: %d)", defined, got, c, bucket(c), a, bucket(a))
		}
	}
}

// TestGlibcRand: the generator gives the GNU C library's rand() after
// srand(1), which ThumbnailProcesses relies on.
func TestGlibcRand(t *testing.T) {
	want := []uint32{1804289383, 846930886, 1681692777, 1714636915, 1957747793, 424238335, 719885386, 1649760492}
	var g glibcRand
	g.seed(1)
	for i, w := range want {
		if got := g.next(); got != w {
			t.Fatalf("rand() #%d = %d, want %d", i+1, got, w)
		}
	}
}

// TestThumbnailProcesses: the pick is a permutation prefix of the
// defined processes, at most 512 of them.
func TestThumbnailProcesses(t *testing.T) {
	var procs []uint32
	for p := range uint32(600) {
		procs = append(procs, p+1)
	}
	got := ThumbnailProcesses(procs, 0)
	if len(got) != 512 {
		t.Fatalf("%d processes, want 512", len(got))
	}
	seen := map[uint32]bool{}
	for _, p := range got {
		if p < 1 || p > 600 || seen[p] {
			t.Fatalf("process %d repeated or not defined", p)
		}
		seen[p] = true
	}
	if g := ThumbnailProcesses(procs[:3], 0); len(g) != 3 {
		t.Errorf("3 defined processes: got %v", g)
	}
	if g := ThumbnailProcesses(procs, 2); len(g) != 2 {
		t.Errorf("n = 2: got %v", g)
	}
}
