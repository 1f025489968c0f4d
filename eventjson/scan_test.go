package eventjson_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hpctrace/hpctrace/eventjson"
	"github.com/hpctrace/hpctrace/model"
)

// allKinds is one event of every kind with every field, as Writer
// writes them and as people do (blanks, null, unknown keys).
const allKinds = `{"t":1,"loc":1,"kind":"enter","region":1,"site":12},
{"t":2,"loc":1,"kind":"send","peer":2,"tag":7,"comm":10,"bytes":1024,"sync":true},
{"t":3,"loc":2,"kind":"recv","peer":1,"tag":7,"comm":10,"bytes":1024,"waited":"yes","bytes_unknown":false},
{ "t" : 4 , "loc" : 1 , "kind" : "coll_begin" , "op" : "MPI_Bcast" , "class" : "one2all" , "comm" : 10 , "root" : 1 , "sent" : 8 , "recvd" : 0 , "match" : 3 },
{"t":5,"loc":1,"kind":"coll_end","match":3,"extra":{"a":[1,2.5e3,{"b":null}],"c":"x\"y"}},
{"t":6,"loc":1,"kind":"counter","counter":1,"value":-5},
{"t":7,"loc":1,"kind":"marker","text":"phase \u00e9\n","region":null},
{"t":8,"loc":1,"kind":"leave","region":1}`

const allKindsHead = `{"format":"trace-events-json/1","ticks_per_second":1000,
"locations":[{"id":1,"name":"a","process":0,"thread":0},{"id":2,"name":"b","process":1,"thread":0}],
"regions":[{"id":1,"name":"main","kind":"function","line":1},{"id":2,"name":"MPI_Bcast","kind":"collective","line":0}],
"events":[`

func readEvents(t *testing.T, doc string) (*model.Defs, []model.Event) {
	t.Helper()
	jr, err := eventjson.NewReader(strings.NewReader(doc), nil)
	if err != nil {
		t.Fatal(err)
	}
	var evs []model.Event
	for ev, err := range jr.All() {
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, *ev)
	}
	return jr.Defs(), evs
}

func TestScanner(t *testing.T) {
	d, got := readEvents(t, allKindsHead+allKinds+`],"trailing_key":[1,2]}`)
	text := d.Intern("phase é\n")
	want := []model.Event{
		{Time: 1, Loc: 1, Kind: model.KindEnter, Region: 1, Site: 1},
		{Time: 2, Loc: 1, Kind: model.KindSend, Peer: 2, Tag: 7, Comm: 1, Bytes: 1024, Flags: model.SyncMode},
		{Time: 3, Loc: 2, Kind: model.KindRecv, Peer: 1, Tag: 7, Comm: 1, Bytes: 1024, Flags: model.Waited},
		{Time: 4, Loc: 1, Kind: model.KindCollBegin, Region: 2, Class: model.ClassOneToAll, Comm: 1, Peer: 1, Bytes: 8, Match: 3},
		{Time: 5, Loc: 1, Kind: model.KindCollEnd, Match: 3},
		{Time: 6, Loc: 1, Kind: model.KindCounter, Counter: 1, Value: -5},
		{Time: 7, Loc: 1, Kind: model.KindMarker, Text: text},
		{Time: 8, Loc: 1, Kind: model.KindLeave, Region: 1},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// TestScannerEquivalent: spellings encoding/json accepts read the same.
func TestScannerEquivalent(t *testing.T) {
	base := `{"t":5,"loc":1,"kind":"marker","text":"a/b\u00e9"}`
	for _, alt := range []string{
		`{"T":5,"LOC":1,"Kind":"marker","text":"a\/b\u00E9"}`,
		"{\n\t\"t\" :5 ,\r\n\"loc\":1,\"kind\":\"marker\",\"text\":\"a/b\\u00e9\",\"unknown\":[[],{},true,false,null,-0.5E-3]}",
		`{"t":5,"loc":1,"kind":"marker","site":null,"text":"a/b\u00e9","region":null}`,
	} {
		d1, e1 := readEvents(t, allKindsHead+base+`]}`)
		d2, e2 := readEvents(t, allKindsHead+alt+`]}`)
		if d1.String(e1[0].Text) != d2.String(e2[0].Text) || e1[0].Time != e2[0].Time || e1[0].Kind != e2[0].Kind {
			t.Errorf("%s: got %+v %q, want %+v %q", alt, e2[0], d2.String(e2[0].Text), e1[0], d1.String(e1[0].Text))
		}
	}
	// Surrogate pairs and bad UTF-8 decode as in encoding/json.
	d, e := readEvents(t, allKindsHead+`{"t":1,"loc":1,"kind":"marker","text":"\ud83d\ude00 \ud800 `+"\xff"+`"}]}`)
	if got, want := d.String(e[0].Text), "\U0001F600 \uFFFD \uFFFD"; got != want {
		t.Errorf("text %q, want %q", got, want)
	}
}

func TestScannerBad(t *testing.T) {
	for _, ev := range []string{
		`{"t":01,"loc":1,"kind":"leave","region":1}`,
		`{"t":1.5,"loc":1,"kind":"leave","region":1}`,
		`{"t":99999999999999999999,"loc":1,"kind":"leave","region":1}`,
		`{"t":1,"loc":1,"kind":"leave","region":1,"tag":4294967296}`,
		`{"t":1,"loc":1,"kind":"coll_end","match":-1}`,
		`{"t":1 "loc":1}`,
		`{"t":1,"loc":1,"kind":"leave","region":1,}`,
		`{"t":1,"loc":1,"kind":"leave","region":1,"x":[1 2]}`,
		`{"t":1,"loc":1,"kind":"marker","text":"a` + "\x01" + `"}`,
		`{"t":1,"loc":1,"kind":"marker","text":"\q"}`,
		`{"t":tru,"loc":1}`,
		`{"t":1,"loc":1,"kind":7}`,
		`[]`,
	} {
		jr, err := eventjson.NewReader(strings.NewReader(allKindsHead+ev+`]}`), nil)
		if err != nil {
			t.Fatal(err)
		}
		for jr.Next() {
		}
		if err := jr.Err(); !errors.Is(err, eventjson.ErrSyntax) {
			t.Errorf("%s: got %v, want ErrSyntax", ev, err)
		}
	}
}

// endlessJSON is a document with n copies of allKinds.
func endlessJSON(n int) []byte {
	var b bytes.Buffer
	b.WriteString(allKindsHead)
	for i := range n {
		if i > 0 {
			b.WriteString(",\n")
		}
		b.WriteString(allKinds)
	}
	b.WriteString("]}")
	return b.Bytes()
}

// TestReaderAllocs pins the steady state of Reader.Next at zero
// allocations per event.
func TestReaderAllocs(t *testing.T) {
	jr, err := eventjson.NewReader(bytes.NewReader(endlessJSON(2000)), nil)
	if err != nil {
		t.Fatal(err)
	}
	for range 16 { // definitions on first use, interned text
		jr.Next()
	}
	if n := testing.AllocsPerRun(10000, func() {
		if !jr.Next() {
			t.Fatal(jr.Err())
		}
	}); n != 0 {
		t.Fatalf("Next allocates %.2f times per event; want 0", n)
	}
}

func BenchmarkReader(b *testing.B) {
	data := endlessJSON(1000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		jr, err := eventjson.NewReader(bytes.NewReader(data), nil)
		if err != nil {
			b.Fatal(err)
		}
		for jr.Next() {
		}
		if err := jr.Err(); err != nil {
			b.Fatal(err)
		}
	}
}
