package otf

import (
	"fmt"
	"github.com/hpctrace/hpctrace/model"
	"io"
	"slices"
	"testing"
	"testing/fstest"

	"pgregory.net/rapid"
)

// refOrderModel merges per-stream record lists (streams ordered by id) the
// way the reference reader does, step by step, as a plain model of
// TraceReaderOptions.ReferenceOrder: one step per key-value line and per
// record, the stream just read sifted down past children of equal time.
func refOrderModel(streams [][]*Record, sel map[uint32]bool, from, to uint64) []*Record {
	type buf struct {
		recs []*Record
		kv   int
	}
	var bufs []*buf
	for _, s := range streams {
		var recs []*Record
		for _, r := range s {
			if r.Time >= from {
				recs = append(recs, r)
			}
		}
		bufs = append(bufs, &buf{recs: recs})
	}
	for _, b := range bufs {
		if len(b.recs) > 0 {
			b.kv = len(b.recs[0].KeyValues())
		}
	}
	h := slices.Clone(bufs)
	for i := 0; i < len(h); {
		if len(h[i].recs) > 0 {
			i++
			continue
		}
		h[i] = h[len(h)-1]
		h = h[:len(h)-1]
	}
	tm := func(b *buf) uint64 { return b.recs[0].Time }
	sift := func(v int) {
		for {
			w := 2*v + 1
			if w >= len(h) {
				return
			}
			if w+1 < len(h) && tm(h[w+1]) < tm(h[w]) {
				w++
			}
			if tm(h[v]) < tm(h[w]) {
				return
			}
			h[v], h[w] = h[w], h[v]
			v = w
		}
	}
	drop := func() {
		h[0] = h[len(h)-1]
		h = h[:len(h)-1]
	}
	for i := (len(h) - 1) / 2; i >= 0 && len(h) > 0; i-- {
		sift(i)
	}
	var out []*Record
	for len(h) > 0 {
		b := h[0]
		switch {
		case to != 0 && tm(b) >= to:
			drop()
		case b.kv > 0:
			b.kv--
		default:
			r := b.recs[0]
			if sel == nil || sel[r.Process] {
				out = append(out, r)
			}
			b.recs = b.recs[1:]
			if len(b.recs) == 0 {
				drop()
			} else {
				b.kv = len(b.recs[0].KeyValues())
			}
		}
		sift(0)
	}
	return out
}

// TestReferenceOrderMerge: a TraceReader with ReferenceOrder yields the records
// in the order of the model of the reference reader, with process
// selections and time intervals, on traces with many ties and key-value
// lists.
func TestReferenceOrderMerge(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		nstreams := rapid.IntRange(1, 6).Draw(t, "streams")
		nprocs := rapid.IntRange(nstreams, 9).Draw(t, "procs")
		var ss []Stream
		for s := range nstreams {
			ss = append(ss, Stream{ID: uint32(s + 1)})
		}
		perm := rapid.Permutation(ss).Draw(t, "master order") // the master file's order need not be by id
		for p := range nprocs {
			perm[p%nstreams].Processes = append(perm[p%nstreams].Processes, uint32(p+1))
		}
		fsys := fstest.MapFS{}
		c := model.CreateFunc(func(name string) (io.WriteCloser, error) { return &mapFile{name: name, fs: fsys}, nil })
		w, err := NewTraceWriter(c, &TraceWriterOptions{Stub: "r", Streams: perm})
		if err != nil {
			t.Fatal(err)
		}
		byStream := map[uint32][]*Record{}
		streamOf := map[uint32]uint32{}
		for _, s := range perm {
			for _, p := range s.Processes {
				streamOf[p] = s.ID
			}
		}
		tm := map[uint32]uint64{} // per stream: times do not decrease in a file
		// Every stream has an events file: a first record of its first process.
		for _, st := range perm {
			rec := &Record{Process: st.Processes[0]}
			rec.SetEnter(Enter{Function: 1000 + st.ID})
			if err := w.Write(rec); err != nil {
				t.Fatal(err)
			}
			byStream[st.ID] = append(byStream[st.ID], rec)
		}
		for i := range rapid.IntRange(0, 120).Draw(t, "records") {
			p := rapid.IntRange(0, nprocs-1).Draw(t, "proc")
			sid := streamOf[uint32(p+1)]
			tm[sid] += uint64(rapid.IntRange(0, 2).Draw(t, "dt"))
			rec := &Record{Time: tm[sid], Process: uint32(p + 1)}
			rec.SetEnter(Enter{Function: uint32(i + 1)})
			var kvs []KeyValue
			for k := range rapid.IntRange(0, 2).Draw(t, "kvs") {
				kvs = append(kvs, KeyValue{Key: uint32(k + 1), Type: TypeUint32, Value: uint64(i)})
			}
			rec.SetKeyValues(kvs)
			if err := w.Write(rec); err != nil {
				t.Fatal(err)
			}
			byStream[streamOf[uint32(p+1)]] = append(byStream[streamOf[uint32(p+1)]], rec)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		tr, err := OpenFS(fsys, "r.otf", nil)
		if err != nil {
			t.Fatal(err)
		}
		var opts TraceReaderOptions
		opts.ReferenceOrder = true
		var sel map[uint32]bool
		if rapid.Bool().Draw(t, "select") {
			sel = map[uint32]bool{}
			for p := range nprocs {
				if rapid.Bool().Draw(t, "selected") {
					opts.Processes = append(opts.Processes, uint32(p+1))
					sel[uint32(p+1)] = true
				}
			}
		}
		if len(opts.Processes) == 0 {
			sel = nil // no selection: every process
		}
		opts.From = uint64(rapid.IntRange(0, 3).Draw(t, "from"))
		opts.To = uint64(rapid.IntRange(0, 40).Draw(t, "to"))
		var streams [][]*Record
		for id := range uint32(nstreams) {
			s := byStream[id+1]
			if sel != nil && !slices.ContainsFunc(s, func(r *Record) bool { return sel[r.Process] }) &&
				!slices.ContainsFunc(perm, func(st Stream) bool {
					return st.ID == id+1 && slices.ContainsFunc(st.Processes, func(p uint32) bool { return sel[p] })
				}) {
				continue // a stream without a selected process is not read
			}
			streams = append(streams, s)
		}
		want := refOrderModel(streams, sel, opts.From, opts.To)
		r, err := tr.NewReader(&opts)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		var got []string
		for rec, err := range r.All() {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, fmt.Sprintf("%d/%d/%v", rec.Time, rec.Process, rec.Kind))
			if e, _ := rec.Enter(); len(got) <= len(want) {
				if w, _ := want[len(got)-1].Enter(); e.Function != w.Function {
					t.Fatalf("record %d: function %d, want %d", len(got)-1, e.Function, w.Function)
				}
			}
		}
		if len(got) != len(want) {
			t.Fatalf("%d records, want %d", len(got), len(want))
		}
	})
}

// TestReferenceOrderTie: of two streams whose first records have the same
// time, the reference reads the second first (the heap sifts the first
// stream below its equal child).
func TestReferenceOrderTie(t *testing.T) {
	fsys := fstest.MapFS{}
	c := model.CreateFunc(func(name string) (io.WriteCloser, error) { return &mapFile{name: name, fs: fsys}, nil })
	w, err := NewTraceWriter(c, &TraceWriterOptions{Stub: "t", Streams: []Stream{{ID: 1, Processes: []uint32{1}}, {ID: 2, Processes: []uint32{2}}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []uint32{1, 2} {
		for _, tm := range []uint64{10, 20} {
			rec := &Record{Time: tm, Process: p}
			rec.SetEnter(Enter{Function: 1})
			if err := w.Write(rec); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	tr, err := OpenFS(fsys, "t.otf", nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := tr.NewReader(&TraceReaderOptions{ReferenceOrder: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var got []string
	for rec, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%d/%d", rec.Time, rec.Process))
	}
	if want := []string{"10/2", "10/1", "20/2", "20/1"}; !slices.Equal(got, want) {
		t.Errorf("order %v, want %v (what otfprint prints)", got, want)
	}
}
