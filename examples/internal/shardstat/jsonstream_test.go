package shardstat

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"

	"github.com/hpctrace/hpctrace/stats"
)

// encoderJSON is the report's JSON as encoding/json writes it, which
// writeJSON must equal byte for byte.
func encoderJSON(t *testing.T, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", " ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func checkWriteJSON(t *testing.T, what string, v any) {
	t.Helper()
	want := encoderJSON(t, v)
	var got bytes.Buffer
	if err := writeJSON(&got, v); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		i := 0
		for i < min(got.Len(), len(want)) && got.Bytes()[i] == want[i] {
			i++
		}
		lo := max(0, i-80)
		t.Errorf("%s: writeJSON differs from encoding/json at byte %d of %d and %d:\ngot  …%s\nwant …%s", what, i, got.Len(), len(want),
			got.Bytes()[lo:min(got.Len(), i+80)], want[lo:min(len(want), i+80)])
	}
}

// TestWriteJSONEqualsEncoder: the JSON reports of traces in every format,
// with and without wait states, intervals and PICL's statistics, are the
// encoder's, byte for byte.
func TestWriteJSONEqualsEncoder(t *testing.T) {
	for _, name := range []string{
		"../../../dumpi/testdata/collectives/dumpi-2026.11.22.01.33.17.meta",
		"../../../otf2/testdata/minimal/trace/traces.otf2",
		"../../../otf2/testdata/nbcoll/trace/traces.otf2",
		"../../../picl/testdata/appendix_a.trf",
		"../../../otf/testdata/all_records_long/allrec.otf",
	} {
		st, err := Profile(name, Shard{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		ws, err := FinalizeWaits(st.Waits)
		if err != nil {
			t.Fatal(err)
		}
		rep := st.Acc.FinalReport()
		st.amend(rep)
		checkWriteJSON(t, name, jsonDoc(rep, st.Tree.Root(), ws))
		if len(rep.Samples) == 0 {
			rep.Samples = stats.Samples{{Time: 5, Diagnostics: rep.Final.Diagnostics, Functions: rep.Final.Functions}}
			checkWriteJSON(t, name+" with a sample", jsonDoc(rep, st.Tree.Root(), ws))
		}
	}
}

type jsonInner struct {
	A int     `json:"a"`
	B *string `json:"b,omitempty"`
	c int     // unexported: not written
}

type jsonOuter struct {
	*jsonInner
	Skip    int                           `json:"-"`
	Name    string                        `json:"name"`
	Untag   []int                         // the field's name
	Nil     []jsonInner                   `json:"nil"`
	Empty   []jsonInner                   `json:"empty"`
	Omit    []int                         `json:"omit,omitempty"`
	Map     map[string][]int              `json:"map"`
	Any     any                           `json:"any"`
	F6      stats.F6                      `json:"f6"`
	PF6     *stats.F6                     `json:"pf6"`
	Bytes   []byte                        `json:"bytes"`
	Arr     [2][]int                      `json:"arr"`
	Kids    []*jsonOuter                  `json:"kids,omitempty"`
	Scoped  stats.Scoped[[]stats.HotStep] `json:"scoped"`
	NoScope stats.Scoped[[]stats.Proc]    `json:"no_scope"`
	Imb     stats.Imbalances              `json:"imb"`
	Floats  []float64                     `json:"floats"`
	F32     float32                       `json:"f32"`
	Row     jsonRow                       `json:"row"`
	Rows    []jsonRow                     `json:"rows"`
}

// jsonRow is a row writeJSON encodes itself.
type jsonRow struct {
	I    int8                `json:"i"`
	U    uint64              `json:"u,omitempty"`
	B    bool                `json:"b"`
	S    string              `json:"s"`
	F    float64             `json:"f"`
	P    *stats.F6           `json:"p"`
	Stat stats.ImbalanceStat `json:"stat"`
	In   jsonInner           `json:"in"`
}

// TestWriteJSONValues: writeJSON follows encoding/json's rules on the
// kinds of values a report may hold: embedded pointers, nil and empty
// lists, omitempty, maps, interfaces, Marshalers, HTML and invalid UTF-8
// in strings, recursion.
func TestWriteJSONValues(t *testing.T) {
	s := "x<y>&\u2028\xff"
	ascii := make([]byte, 128) // every ASCII byte, with its escapes
	for i := range ascii {
		ascii[i] = byte(i)
	}
	f := stats.F6(math.Pi)
	v := &jsonOuter{
		jsonInner: &jsonInner{A: 1, B: &s, c: 9},
		Name:      "a\"b\\c\x01" + s,
		Untag:     []int{1, 2},
		Empty:     []jsonInner{},
		Map:       map[string][]int{"z": {1}, "a": nil, "<": {}},
		Any:       []any{1, "two", map[string]int{"three": 3}},
		F6:        stats.F6(math.NaN()),
		PF6:       &f,
		Bytes:     []byte("bytes"),
		Kids:      []*jsonOuter{{Name: "kid", Kids: []*jsonOuter{nil}}},
		Scoped:    stats.Scoped[[]stats.HotStep]{{Scope: "all"}, {Scope: "loc<1>", Value: []stats.HotStep{{}}}},
		Imb:       stats.Imbalances{{Region: "r&"}, {Region: "s"}},
		Floats:    []float64{0, 1e-7, 1e-6, 1e21, 1e20, -2.5, 123456789.125, math.SmallestNonzeroFloat64, math.MaxFloat64},
		F32:       1e-7,
		Row:       jsonRow{I: -3, U: 7, B: true, S: "plain", F: 0.1, P: &f, In: jsonInner{B: &s}},
		Rows:      []jsonRow{{S: s}, {S: string(ascii)}, {Stat: stats.ImbalanceStat{ImbalanceRatio: &f, Mean: stats.F6(math.Inf(1))}}},
	}
	checkWriteJSON(t, "values", v)
	checkWriteJSON(t, "no embedded", &jsonOuter{})
	checkWriteJSON(t, "empty", &struct{}{})
	checkWriteJSON(t, "nil", (*jsonOuter)(nil))
}
