package otf

import (
	"io"
	"slices"
	"testing"
	"testing/fstest"

	"github.com/hpctrace/hpctrace/model"
)

// tieTrace writes a trace in which the order the reference otfaux meets
// two processes depends on its merge among equal times: senders 0x57 and
// 0x123, which share a bucket of its process table, are in stream 1;
// process 9 in stream 2 receives from 0x123 and process 8 in stream 3
// from 0x57, both at time 10. The reference meets the senders of receives
// first; its merge reads stream 2 before stream 3 at time 10, so it meets
// 0x123 first, and writes the newer 0x57 first in stream 1's snapshot.
// A merge of equal times by process would read process 8's receive first.
func tieTrace(t testing.TB) fstest.MapFS {
	if lookup3Uint64(0x57)&1023 != lookup3Uint64(0x123)&1023 {
		t.Fatal("0x57 and 0x123 are not in one bucket")
	}
	fsys := fstest.MapFS{}
	c := model.CreateFunc(func(name string) (io.WriteCloser, error) { return &mapFile{name: name, fs: fsys}, nil })
	w, err := NewTraceWriter(c, &TraceWriterOptions{Stub: "tie", Streams: []Stream{
		{ID: 1, Processes: []uint32{0x57, 0x123}}, {ID: 2, Processes: []uint32{9}}, {ID: 3, Processes: []uint32{8}}}})
	if err != nil {
		t.Fatal(err)
	}
	write := func(tm uint64, p uint32, set func(*Record)) {
		rec := &Record{Time: tm, Process: p}
		set(rec)
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []uint32{0x57, 0x123, 8, 9} {
		write(0, 0, func(r *Record) { r.SetDefProcess(DefProcess{Process: p, Name: []byte("p")}) })
	}
	write(5, 0x57, func(r *Record) { r.SetSend(Send{Receiver: 8, Length: 4}) })
	write(5, 0x123, func(r *Record) { r.SetSend(Send{Receiver: 9, Length: 4}) })
	write(10, 9, func(r *Record) { r.SetReceive(Receive{Sender: 0x123, Length: 4}) })
	write(10, 8, func(r *Record) { r.SetReceive(Receive{Sender: 0x57, Length: 4}) })
	write(12, 0x57, func(r *Record) { r.SetEnter(Enter{Function: 1}) })
	write(12, 0x123, func(r *Record) { r.SetEnter(Enter{Function: 1}) })
	write(20, 0x57, func(r *Record) { r.SetLeave(Leave{}) })
	write(20, 0x123, func(r *Record) { r.SetLeave(Leave{}) })
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return fsys
}

// TestAuxTieOrder checks the order of stream 1's snapshot records on
// tieTrace (what the reference otfaux writes for it).
func TestAuxTieOrder(t *testing.T) {
	tr, err := OpenFS(tieTrace(t), "tie.otf", nil)
	if err != nil {
		t.Fatal(err)
	}
	var order []uint32
	err = tr.Aux(&AuxOptions{Times: []uint64{15, 21}, Snapshots: true}, func(f FileType, rec *Record) error {
		if rec.Kind == KindEnterSnapshot {
			order = append(order, rec.Process)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []uint32{0x57, 0x123}; !slices.Equal(order, want) {
		t.Errorf("snapshot order %x, want %x", order, want)
	}
}
