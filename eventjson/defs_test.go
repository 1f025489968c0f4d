package eventjson

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

var (
	defKeys = []string{"id", "name", "kind", "group", "file", "line", "paradigm", "process",
		"thread", "host", "name_bytes", "Name", "ID", "other"}
	defValues = []string{`0`, `7`, `-3`, `2147483648`, `9223372036854775808`, `1.5`, `1e3`, `true`, `false`, `null`,
		`"f"`, `"MPI_Send"`, `"function"`, `"a\"b"`, `"\u00e9"`, `"é"`, "\"\xff\"", `""`, `"12"`, `[]`, `{"x":1}`, `"ZnVu"`}
)

// genDefObject draws a definition object: known keys (some in other
// case), unknown ones, and values of every JSON kind, plain or not.
func genDefObject(t *rapid.T) string {
	keys := rapid.SliceOfDistinct(rapid.SampledFrom(defKeys), func(k string) string { return strings.ToLower(k) }).Draw(t, "keys")
	values := rapid.SampledFrom(defValues)
	var b strings.Builder
	b.WriteString("{")
	for i, k := range keys {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "%q: %s", k, values.Draw(t, "value"))
	}
	b.WriteString("}")
	return b.String()
}

// TestDecodeDefEqualsJSON: decodeDef gives encoding/json's value, or an
// error where it gives one, for locations and regions: every value under
// every key, then generated objects.
func TestDecodeDefEqualsJSON(t *testing.T) {
	for _, k := range defKeys {
		for _, v := range defValues {
			checkDecodeDef(t, []byte(fmt.Sprintf(`{"id": 1, %q: %s}`, k, v)))
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		checkDecodeDef(t, []byte(genDefObject(t)))
	})
}

// checkDecodeDef compares decodeDef with encoding/json on obj.
func checkDecodeDef(t interface {
	Helper()
	Fatalf(string, ...any)
}, obj []byte) {
	t.Helper()
	{
		var wantL, gotL jsonLocation
		errW, errG := json.Unmarshal(obj, &wantL), decodeDef(obj, &gotL, (*jsonLocation).setter)
		if (errW == nil) != (errG == nil) || (errW == nil && !cmp.Equal(wantL, gotL)) {
			t.Fatalf("location %s: got %+v, %v; want %+v, %v", obj, gotL, errG, wantL, errW)
		}
		var wantR, gotR jsonRegion
		errW, errG = json.Unmarshal(obj, &wantR), decodeDef(obj, &gotR, (*jsonRegion).setter)
		if (errW == nil) != (errG == nil) || (errW == nil && !cmp.Equal(wantR, gotR)) {
			t.Fatalf("region %s: got %+v, %v; want %+v, %v", obj, gotR, errG, wantR, errW)
		}
	}
}

// TestEachObject: the elements of a list, whatever their kind and the
// spaces between them.
func TestEachObject(t *testing.T) {
	var got []string
	err := eachObject([]byte(" [ {\"a\":\"]}\\\"\"} ,\n{},[1,[2]], \"x\" ,12,true ] "), func(e []byte) error {
		got = append(got, string(e))
		return nil
	})
	want := []string{`{"a":"]}\""}`, `{}`, `[1,[2]]`, `"x"`, `12`, `true`}
	if err != nil || !cmp.Equal(got, want) {
		t.Errorf("got %q, %v; want %q", got, err, want)
	}
}
