package chrome_test

import (
	"fmt"
	"io"
	"runtime"
	"testing"

	"github.com/hpctrace/hpctrace/chrome"
)

// genDoc is an endless-looking document made on the fly: n rounds of a
// slice on each of four threads with a message between two of them, in
// time order, as an unterminated bare array.
type genDoc struct {
	round, n int
	buf      []byte
}

func (g *genDoc) Read(p []byte) (int, error) {
	for len(g.buf) == 0 {
		if g.round == g.n {
			return 0, io.EOF
		}
		ts := g.round * 10
		if g.round == 0 {
			g.buf = append(g.buf, "[\n"...)
		}
		for tid := 1; tid <= 4; tid++ {
			g.buf = fmt.Appendf(g.buf, `{"ph":"B","name":"work","cat":"function","pid":1,"tid":%d,"ts":%d},`+"\n", tid, ts)
		}
		g.buf = fmt.Appendf(g.buf, `{"ph":"s","name":"m","cat":"message","id":%d,"pid":1,"tid":1,"ts":%d.5},`+"\n", g.round, ts)
		g.buf = fmt.Appendf(g.buf, `{"ph":"f","bp":"e","name":"m","cat":"message","id":%d,"pid":1,"tid":2,"ts":%d.75},`+"\n", g.round, ts)
		for tid := 1; tid <= 4; tid++ {
			g.buf = fmt.Appendf(g.buf, `{"ph":"E","pid":1,"tid":%d,"ts":%d},`+"\n", tid, ts+5)
		}
		g.round++
	}
	n := copy(p, g.buf)
	g.buf = g.buf[n:]
	return n, nil
}

// TestBoundedMemory reads 100 000 rounds (a million events): the live
// heap after a quarter of them and at the end differ by less than what a
// reader keeping 1 % of its events would hold.
func TestBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("reads a million events")
	}
	const rounds = 100_000
	r, err := chrome.NewReader(&genDoc{n: rounds}, &chrome.ReaderOptions{ReorderWindow: 1000})
	if err != nil {
		t.Fatal(err)
	}
	live := func() uint64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	var n int
	var quarter uint64
	for r.Next() {
		n++
		if n == rounds*10/4 {
			quarter = live()
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	end := live()
	if n != rounds*10 {
		t.Fatalf("got %d events, want %d", n, rounds*10)
	}
	// 1 % of the events at ~150 bytes each held would be 1.5 MB.
	if end > quarter && end-quarter > 1<<20 {
		t.Errorf("live heap grew from %d to %d bytes over 750 000 events", quarter, end)
	}
	if d := r.Diagnostics(); d != (chrome.Diagnostics{}) {
		t.Errorf("Diagnostics() = %+v, want zero", d)
	}
	runtime.KeepAlive(r)
}
