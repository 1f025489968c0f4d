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
