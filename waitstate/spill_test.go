package waitstate

import (
	"slices"
	"testing"

	"github.com/hpctrace/hpctrace/model"
	"pgregory.net/rapid"
)

// spillFin draws the fin of a settled interval of nloc locations: random
// gaps (bounds in order or not, as sorted says) and entries over the call
// path nodes 1 to 4, and an empty stretch of deferred records.
func spillFin(t *rapid.T, nloc int, sorted bool) *fin {
	a := &Analyzer{nodes: make([]cpKey, 5)}
	f := &fin{a: a, locs: make([]locLog, nloc+1), handovers: make([][]handover, nloc+1), nodeName: []int32{0, 1, 2, 3, 1}}
	for li := 1; li <= nloc; li++ {
		nb := rapid.IntRange(1, 40).Draw(t, "bounds")
		bounds := make([]model.Time, nb)
		gapEnd := make([]int32, nb-1)
		var ents []gapEnt
		tm := model.Time(rapid.Int64Range(-100, 100).Draw(t, "first"))
		lo := int64(0)
		if !sorted {
			lo = -20
		}
		for k := range bounds {
			bounds[k] = tm
			tm += model.Time(rapid.Int64Range(lo, 300).Draw(t, "step"))
			if k < nb-1 {
				for range rapid.IntRange(0, 3).Draw(t, "entries") {
					ents = append(ents, gapEnt{uint32(rapid.IntRange(1, 4).Draw(t, "cp")), rapid.Int64Range(0, 200).Draw(t, "dt")})
				}
				gapEnd[k] = int32(len(ents))
			}
		}
		f.locs[li] = locLog{seen: true, first: bounds[0], last: bounds[nb-1], logExt: &logExt{bounds: bounds, gapEnd: gapEnd, ents: ents}}
	}
	// The deferred delay costs' records come first in a block; the
	// read-back must step over them (their own tests are defer's).
	f.dout = &deferOut{st: dstretch{count: make([]int32, nloc+1)}}
	return f
}

// TestSpillProfile checks the read-back of spilled blocks (decodeEpoch,
// whose chunks the walk decodes as it needs them, reusing the last
// block's storage) against the logs they were made of: every
// location's profile over random spans.
func TestSpillProfile(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		nloc := rapid.IntRange(1, 4).Draw(t, "nloc")
		var ep *cpEpoch
		// Blocks decoded into one storage.
		for range 3 {
			f := spillFin(t, nloc, rapid.Bool().Draw(t, "sorted"))
			r := &fin{a: f.a, locs: f.locs, nodeName: f.nodeName}
			blk := f.block(nil)
			d := &dec{b: blk[:len(blk)-8]}
			if ds := decodeStretch(d, len(f.locs), 1, nil); d.err != nil || len(ds.count) != nloc+1 {
				t.Fatalf("the block's stretch: %v, %d locations", d.err, len(ds.count))
			}
			ep = r.decodeEpoch(d, ep)
			if d.err != nil || len(d.b) != 0 {
				t.Fatalf("decoding: %v, %d bytes left", d.err, len(d.b))
			}
			live := f.liveEpoch()
			for range 10 {
				li := rapid.IntRange(1, nloc).Draw(t, "loc")
				s := model.Time(rapid.Int64Range(-200, 8000).Draw(t, "s"))
				e := s + model.Time(rapid.Int64Range(0, 4000).Draw(t, "len"))
				owner := uint32(rapid.IntRange(0, 4).Draw(t, "owner"))
				want, got := make([]int64, 4), make([]int64, 4)
				f.profile(live, &live.logs[li], s, e, owner, want)
				r.profile(ep, &ep.logs[li], s, e, owner, got)
				if ep.err != nil {
					t.Fatal(ep.err)
				}
				if !slices.Equal(got, want) {
					t.Fatalf("location %d, [%d, %d], owner %d: profile %v, want %v", li, s, e, owner, got, want)
				}
			}
		}
	})
}
