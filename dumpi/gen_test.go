package dumpi

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"
)

// callLabels lists every label that has records.
var callLabels = func() []Label {
	var ls []Label
	for l := range Label(NumLabels) {
		if l.IsCall() {
			ls = append(ls, l)
		}
	}
	return ls
}()

// rootOnly lists the fields that exist only in the root's record, by
// label; the first field is the rank compared with Root.
var rootOnly = map[Label][]string{
	LabelGather:            {"Commrank", "Recvcount", "Recvtype"},
	LabelGatherv:           {"Commrank", "Recvcounts", "Displs"},
	LabelScatter:           {"Commrank", "Sendcount", "Sendtype"},
	LabelScatterv:          {"Commrank", "Sendcounts", "Displs"},
	LabelCommSpawn:         {"Oldcommrank", "Command", "Argv", "Maxprocs", "Info", "Errcodes"},
	LabelCommSpawnMultiple: {"Oldcommrank", "Count", "Commands", "Argvs", "Maxprocs", "Info", "Errcodes"},
}

var genInt = rapid.OneOf(rapid.Int32Range(-3, 40), rapid.Int32())

func genBytes(t *rapid.T, label string) []byte {
	return rapid.SliceOfN(rapid.Byte(), 0, 6).Draw(t, label)
}

// fillValue draws a random value for v, by kind, recursively.
func fillValue(t *rapid.T, v reflect.Value, statuses bool, name string) {
	switch v.Kind() {
	case reflect.Int32:
		v.SetInt(int64(genInt.Draw(t, name)))
	case reflect.Int64:
		v.SetInt(rapid.Int64().Draw(t, name))
	case reflect.Int8:
		v.SetInt(int64(rapid.Int8().Draw(t, name)))
	case reflect.Uint16:
		v.SetUint(uint64(rapid.Uint16Range(0, 40).Draw(t, name)))
	case reflect.Uint8:
		v.SetUint(uint64(rapid.Uint8().Draw(t, name)))
	case reflect.Slice:
		if v.Type() == reflect.TypeFor[[]Status]() && !statuses {
			return
		}
		if v.Type().Elem().Kind() == reflect.Uint8 && v.Type().Elem() == reflect.TypeFor[byte]() {
			v.SetBytes(genBytes(t, name))
			return
		}
		n := rapid.IntRange(0, 4).Draw(t, name+".len")
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := range n {
			fillValue(t, s.Index(i), statuses, name)
		}
		v.Set(s)
	case reflect.Struct:
		for i := range v.NumField() {
			fillValue(t, v.Field(i), statuses, name+"."+v.Type().Field(i).Name)
		}
	default:
		t.Fatalf("field %s: unexpected kind %s", name, v.Kind())
	}
}

func genArgs(t *rapid.T, l Label, statuses bool) Args {
	a := NewArgs(l)
	v := reflect.ValueOf(a).Elem()
	for i := range v.NumField() {
		fillValue(t, v.Field(i), statuses, v.Type().Field(i).Name)
	}
	switch a := a.(type) {
	case *Init:
		a.Argc = int32(len(a.Argv))
	case *InitThread:
		a.Argc = int32(len(a.Argv))
	}
	if fields, ok := rootOnly[l]; ok {
		rank := v.FieldByName(fields[0])
		root := v.FieldByName("Root")
		if rapid.Bool().Draw(t, "isRoot") {
			root.SetInt(rank.Int())
		} else {
			root.SetInt(rank.Int() + 1)
			for _, f := range fields[1:] {
				fv := v.FieldByName(f)
				fv.Set(reflect.Zero(fv.Type()))
			}
		}
	}
	return a
}

func genCall() *rapid.Generator[*Call] {
	return rapid.Custom(func(t *rapid.T) *Call {
		l := rapid.SampledFrom(callLabels).Draw(t, "label")
		c := &Call{Label: l, Mask: Mask(rapid.Uint8().Draw(t, "mask"))}
		if c.Mask.Thread() {
			c.Thread = rapid.Uint16().Draw(t, "thread")
		}
		span := func(name string) Span {
			return Span{rapid.Uint16().Draw(t, name), rapid.Uint32Range(0, 999_999_999).Draw(t, name),
				rapid.Uint16().Draw(t, name), rapid.Uint32Range(0, 999_999_999).Draw(t, name)}
		}
		if c.Mask.CPUTime() {
			c.CPU = span("cpu")
		}
		if c.Mask.WallTime() {
			c.Wall = span("wall")
		}
		if c.Mask.Perf() {
			n := rapid.IntRange(0, 3).Draw(t, "perf")
			for range n {
				c.Perf = append(c.Perf, PerfValue{rapid.Int64().Draw(t, "in"), rapid.Int64().Draw(t, "out")})
			}
		}
		c.SetArgs(genArgs(t, l, c.Mask.Statuses()))
		return c
	})
}

// callView is what a round trip must preserve: every stored part of a call.
type callView struct {
	Label     Label
	Mask      Mask
	Thread    uint16
	CPU, Wall Span
	Perf      []PerfValue
	Args      Args
}

func views(cs []*Call) []callView {
	out := make([]callView, len(cs))
	for i, c := range cs {
		out[i] = callView{c.Label, c.Mask, c.Thread, c.CPU, c.Wall, c.Perf, c.Args()}
	}
	return out
}

func propRoundTrip(t *rapid.T) {
	want := rapid.SliceOfN(genCall(), 0, 40).Draw(t, "calls")
	opts := &WriterOptions{
		CPUBase:  rapid.Int32().Draw(t, "cpuBase"),
		WallBase: rapid.Int32().Draw(t, "wallBase"),
		Header: Header{
			StartTime:  rapid.Uint64().Draw(t, "start"),
			Host:       rapid.StringN(0, 8, 20).Draw(t, "host"),
			User:       rapid.StringN(0, 8, 20).Draw(t, "user"),
			MeshCoords: rapid.SliceOfN(rapid.Int32(), 0, 3).Draw(t, "crd"),
			MeshSize:   rapid.SliceOfN(rapid.Int32(), 0, 3).Draw(t, "msize"),
		},
		PerfLabels:    rapid.SliceOfN(rapid.StringN(0, 6, 12), 0, 3).Draw(t, "perf"),
		DatatypeSizes: rapid.SliceOfN(rapid.Int32(), 0, 30).Draw(t, "sizes"),
		KeyVals:       []KeyValue{{Key: rapid.String().Draw(t, "k"), Value: rapid.String().Draw(t, "v")}},
		IndexKeyVals:  true,
	}
	var buf bytes.Buffer
	w, err := NewWriter(&buf, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range want {
		if err := w.Write(c); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	f, err := NewFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var got []*Call
	for c, err := range f.Calls().All() {
		if err != nil {
			saveArtifact(t, data)
			t.Fatal(err)
		}
		got = append(got, c.Clone())
	}
	if diff := cmp.Diff(views(want), views(got), cmpopts.EquateEmpty()); diff != "" {
		saveArtifact(t, data)
		t.Fatalf("round trip (-want +got):\n%s", diff)
	}
	h, err := f.Header()
	if err != nil {
		t.Fatal(err)
	}
	wantH := opts.Header
	wantH.Version = Version{13, 0, 0}
	if diff := cmp.Diff(wantH, *h, cmpopts.EquateEmpty()); diff != "" {
		t.Fatalf("header (-want +got):\n%s", diff)
	}
	ft, _ := f.Footer()
	var n [FooterSlots]uint32
	for _, c := range want {
		if int(c.Label) < FooterSlots { // Function_enter/exit have no slot
			n[c.Label]++
			n[LabelAllFunctions]++
		}
	}
	if ft.Called != n {
		t.Fatal("footer counts differ from the written calls")
	}
	kv, _ := f.KeyVals()
	perf, _ := f.PerfLabels()
	sizes, _ := f.DatatypeSizes()
	if diff := cmp.Diff([]any{opts.KeyVals, opts.PerfLabels, opts.DatatypeSizes}, []any{kv, perf, sizes}, cmpopts.EquateEmpty()); diff != "" {
		t.Fatalf("sections (-want +got):\n%s", diff)
	}
}

func saveArtifact(t *rapid.T, data []byte) {
	if tt, ok := any(t).(interface{ ArtifactDir() string }); ok {
		_ = os.WriteFile(filepath.Join(tt.ArtifactDir(), "roundtrip.bin"), data, 0o644)
	}
}

func TestRoundTrip(t *testing.T) { rapid.Check(t, propRoundTrip) }

func FuzzRoundTrip(f *testing.F) { f.Fuzz(rapid.MakeFuzz(propRoundTrip)) }

// TestRoundTripEveryLabel writes one call of every label per check, so
// every label goes through the round trip whatever rapid draws.
func TestRoundTripEveryLabel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var want []*Call
		for _, l := range callLabels {
			c := &Call{Label: l, Mask: MaskThread | MaskStatusEnable | MaskWallTime}
			c.SetArgs(genArgs(t, l, true))
			want = append(want, c)
		}
		data := writeCalls(t, nil, want)
		f, err := NewFile(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		var got []*Call
		for c, err := range f.Calls().All() {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, c.Clone())
		}
		if diff := cmp.Diff(views(want), views(got), cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("(-want +got):\n%s", diff)
		}
	})
}
