package otf2

import (
	"encoding/binary"
	"reflect"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hpctrace/hpctrace/internal/kmerge"
	"pgregory.net/rapid"
)

// genComp appends a compressed integer of at most max bytes: usually a
// well-formed one, sometimes the size byte 0xff (no bytes), sometimes a
// malformed size byte.
func genComp(t *rapid.T, b []byte, max int, label string) []byte {
	switch rapid.IntRange(0, 39).Draw(t, label+"how") {
	case 17, 18, 19:
		return append(b, 0xff)
	case 20:
		return append(b, byte(rapid.IntRange(max+1, 0xfe).Draw(t, label+"bad")))
	}
	n := rapid.IntRange(0, max).Draw(t, label+"n")
	b = append(b, byte(n))
	for range n {
		b = append(b, byte(rapid.IntRange(0, 255).Draw(t, label+"byte")))
	}
	return b
}

// genHotRecords returns a run of records the decoders read (the hot
// kinds, with and without timestamps, well-formed or not, with sizes
// that lie) and, now and then, other bytes; most often followed by
// bytes enough for the decoders' window to reach its last record.
func genHotRecords(t *rapid.T) []byte {
	var b []byte
	n := rapid.IntRange(0, 60).Draw(t, "records")
	for range n {
		if rapid.IntRange(0, 3).Draw(t, "ts") > 0 {
			b = append(b, bTimestamp)
			b = binary.LittleEndian.AppendUint64(b, rapid.Uint64().Draw(t, "time"))
		}
		kinds := []Kind{KindEnter, KindLeave, KindMpiSend, KindMpiRecv, KindMpiCollectiveBegin, KindMpiCollectiveEnd, KindMetric}
		k := rapid.SampledFrom(kinds).Draw(t, "kind")
		if rapid.IntRange(0, 60).Draw(t, "odd kind") == 30 {
			k = Kind(rapid.IntRange(0, 255).Draw(t, "any kind"))
		}
		b = append(b, byte(k))
		if k == KindEnter || k == KindLeave {
			b = genComp(t, b, 4, "region")
			continue
		}
		var body []byte
		switch k {
		case KindMpiSend, KindMpiRecv:
			body = genComp(t, body, 4, "peer")
			body = genComp(t, body, 4, "comm")
			body = genComp(t, body, 4, "tag")
			body = genComp(t, body, 8, "size")
		case KindMpiCollectiveEnd:
			body = append(body, byte(rapid.IntRange(0, 255).Draw(t, "op")))
			body = genComp(t, body, 4, "comm")
			body = genComp(t, body, 4, "root")
			body = genComp(t, body, 8, "sent")
			body = genComp(t, body, 8, "received")
		case KindMetric:
			body = genComp(t, body, 4, "metric")
			count := byte(1)
			if rapid.IntRange(0, 9).Draw(t, "members") == 5 {
				count = byte(rapid.IntRange(0, 255).Draw(t, "count"))
			}
			body = append(body, count, byte(rapid.IntRange(0, 255).Draw(t, "type")))
			body = genComp(t, body, 8, "value")
		}
		// padding after the fields (a later version's), or a size that
		// lies
		for range rapid.IntRange(0, 3).Draw(t, "pad") {
			body = append(body, byte(rapid.IntRange(0, 255).Draw(t, "padbyte")))
		}
		size := len(body)
		if rapid.IntRange(0, 40).Draw(t, "lie") == 20 {
			size = rapid.IntRange(0, 255).Draw(t, "size")
		}
		b = append(b, byte(size))
		b = append(b, body...)
		if rapid.IntRange(0, 60).Draw(t, "junk") == 30 {
			b = append(b, rapid.SliceOfN(rapid.Byte(), 1, 60).Draw(t, "junkbytes")...)
		}
	}
	if rapid.IntRange(0, 3).Draw(t, "tail") > 0 {
		b = append(b, make([]byte, fastWindow)...)
	}
	return b
}

// checkDecodeHot runs decodeHot and decodeHotGo on the same input and
// fails if they differ in what they return or in the events they
// decode, or if decodeHot writes past the end of dst.
func checkDecodeHot(t interface{ Fatalf(string, ...any) }, b []byte, off int, time uint64, ndst int) {
	junk := BatchEvent{Time: 0xdead, Location: 7, Vals: [5]uint64{1, 2, 3, 4, 5}, Kind: 99, full: 3}
	mk := func() []BatchEvent {
		d := make([]BatchEvent, ndst+2)
		for i := range d {
			d[i] = junk
			d[i].Location = uint64(i)
		}
		return d
	}
	want, got := mk(), mk()
	wk, wn, wl := decodeHotGo(b, off, time, want[:ndst])
	gk, gn, gl := decodeHot(b, off, time, got[:ndst])
	if gk != wk || gn != wn || gl != wl {
		t.Fatalf("decodeHot(%x, off %d, time %d, %d events) = %d, %d, %d; decodeHotGo: %d, %d, %d", b, off, time, ndst, gk, gn, gl, wk, wn, wl)
	}
	if d := cmp.Diff(want[:wk], got[:gk], cmp.AllowUnexported(BatchEvent{})); d != "" {
		t.Fatalf("decodeHot(%x, off %d): events differ (-Go +asm):\n%s", b, off, d)
	}
	for i := ndst; i < len(got); i++ {
		e := junk
		e.Location = uint64(i)
		if got[i] != e {
			t.Fatalf("decodeHot(%x, off %d, %d events) wrote event %d", b, off, ndst, i)
		}
	}
}

// TestDecodeHotSameAsGo checks that decodeHot, in assembly on amd64,
// decodes exactly what decodeHotGo does, stopping at the same record.
func TestDecodeHotSameAsGo(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		b := genHotRecords(t)
		off := rapid.IntRange(0, len(b)).Draw(t, "off")
		if rapid.Bool().Draw(t, "at start") {
			off = 0
		}
		time := rapid.Uint64().Draw(t, "time")
		ndst := rapid.IntRange(0, 50).Draw(t, "dst")
		checkDecodeHot(t, b, off, time, ndst)
	})
}

// FuzzDecodeHot checks decodeHot against decodeHotGo on any bytes.
func FuzzDecodeHot(f *testing.F) {
	ts := func(t uint64) []byte { return binary.LittleEndian.AppendUint64([]byte{bTimestamp}, t) }
	var seed []byte
	seed = append(append(seed, ts(10)...), byte(KindEnter), 1, 7)
	seed = append(append(seed, ts(11)...), byte(KindMpiSend), 8, 1, 2, 1, 3, 1, 4, 1, 0x10)
	seed = append(append(seed, ts(12)...), byte(KindMetric), 7, 1, 0, 1, 2, 2, 0x34, 0x12)
	seed = append(append(seed, ts(13)...), byte(KindMpiCollectiveEnd), 5, 3, 0, 0xff, 0, 0)
	seed = append(append(seed, ts(14)...), byte(KindMpiCollectiveBegin), 0)
	seed = append(seed, byte(KindLeave), 0xff)
	for range 3 {
		seed = append(seed, seed...)
	}
	f.Add(seed, uint16(0), uint64(5), uint8(64))
	f.Add(seed[:60], uint16(2), uint64(0), uint8(3))
	f.Fuzz(func(t *testing.T, b []byte, off uint16, time uint64, ndst uint8) {
		checkDecodeHot(t, b, int(off)%(len(b)+1), time, int(ndst))
	})
}

// TestBatchEventLayout holds what hot_amd64.s assumes of BatchEvent
// beyond the offsets go_asm.h gives it: its size is 1<<BatchEvent_shift
// (6) bytes, Vals is five 8-byte values, and full lies after Kind within
// the 8 bytes from Kind, so that one 8-byte store of the kind writes Kind
// and full = 0.
func TestBatchEventLayout(t *testing.T) {
	typ := reflect.TypeFor[BatchEvent]()
	if typ.Size() != 1<<6 {
		t.Errorf("BatchEvent: %d bytes; hot_amd64.s has 1<<6", typ.Size())
	}
	if f, _ := typ.FieldByName("Vals"); f.Type != reflect.TypeFor[[5]uint64]() {
		t.Errorf("BatchEvent.Vals is %v; hot_amd64.s has [5]uint64", f.Type)
	}
	kind, _ := typ.FieldByName("Kind")
	full, _ := typ.FieldByName("full")
	if full.Offset < kind.Offset+kind.Type.Size() || full.Offset+full.Type.Size() > kind.Offset+8 || kind.Offset+8 > typ.Size() {
		t.Errorf("BatchEvent.Kind: %d bytes at %d, full: %d bytes at %d; hot_amd64.s stores both in the 8 bytes from Kind",
			kind.Type.Size(), kind.Offset, full.Type.Size(), full.Offset)
	}
}

// TestMerge4SameAsGo checks merge4 (in assembly on amd64) against
// merge4Go on four pieces of sorted runs, each run followed by a larger
// key, as the windowed merge's are: the same outputs and positions.
func TestMerge4SameAsGo(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var want, got winKeys
		var g [4]winPiece
		m := rapid.IntRange(0, 300).Draw(t, "m")
		pos := rapid.IntRange(0, 50).Draw(t, "start")
		run := func(n int) int {
			p := pos
			keys := rapid.SliceOfN(rapid.Uint64Range(0, 1<<40), n, n).Draw(t, "keys")
			slices.Sort(keys)
			copy(want[p:], keys)
			want[p+n] = kmerge.PackedDone
			pos += n + 1
			return p
		}
		for i := range g {
			// m steps of runs of na and nb keys, m ≤ na+nb
			na := rapid.IntRange(0, m+10).Draw(t, "na")
			nb := rapid.IntRange(max(m-na, 0), m+10).Draw(t, "nb")
			g[i].a, g[i].b = run(na), run(nb)
			g[i].m = m
		}
		for i := range g {
			g[i].d = pos
			pos += m
		}
		got, direct := want, want
		we := merge4Go(&want, g[:], m)
		ge := merge4(&got, g[:], m)
		if we != ge {
			t.Fatalf("positions %v, merge4Go %v", ge, we)
		}
		if want != got {
			t.Fatalf("outputs differ")
		}
		// merge4Asm itself, which merge4 calls only on amd64
		g4 := g
		merge4Asm(&direct, &g4, m)
		for i, p := range g4 {
			if p.a != we[2*i] || p.b != we[2*i+1] {
				t.Fatalf("merge4Asm: piece %d at %d, %d; merge4Go %d, %d", i, p.a, p.b, we[2*i], we[2*i+1])
			}
		}
		if want != direct {
			t.Fatalf("merge4Asm: outputs differ")
		}
	})
}
