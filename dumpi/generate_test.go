package dumpi

import (
	"bytes"
	"os"
	"testing"

	"github.com/hpctrace/hpctrace/internal/gen/dumpicalls"
)

// TestGeneratedFresh regenerates the call code from the tables in memory
// and fails when the committed files differ: run go generate.
func TestGeneratedFresh(t *testing.T) {
	files, err := dumpicalls.Generate(os.DirFS("."))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("generator produced no files")
	}
	for _, f := range files {
		got, err := os.ReadFile(f.Name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(got, []byte("// Code generated ")) || !bytes.Contains(got[:200], []byte("DO NOT EDIT.")) {
			t.Errorf("%s: missing the generated-code header", f.Name)
		}
		if !bytes.Equal(got, f.Data) {
			t.Errorf("%s is stale: run go generate ./dumpi", f.Name)
		}
	}
}

// TestLabels checks the generated label table against the shape doc/dumpi.md §4 gives:
// 294 dense labels with the documented names and sentinels.
func TestLabels(t *testing.T) {
	if NumLabels != 294 {
		t.Fatalf("NumLabels = %d, want 294", NumLabels)
	}
	for _, c := range []struct {
		l    Label
		name string
	}{
		{LabelSend, "MPI_Send"}, {LabelInit, "MPI_Init"}, {LabelMPIOWait, "MPIO_Wait"},
		{LabelAllFunctions, "MPI_ALL_FUNCTIONS"}, {LabelFunctionEnter, "Function_enter"},
		{LabelEndOfStream, "END_OF_STREAM"}, {Label(294), "Label(294)"},
	} {
		if got := c.l.String(); got != c.name {
			t.Errorf("Label(%d).String() = %q, want %q", c.l, got, c.name)
		}
	}
	calls := 0
	for l := range Label(NumLabels) {
		a := NewArgs(l)
		if l.IsCall() != (a != nil) {
			t.Errorf("label %d: IsCall %v, NewArgs %v", l, l.IsCall(), a)
		}
		if a != nil {
			calls++
			if a.Label() != l {
				t.Errorf("NewArgs(%d).Label() = %d", l, a.Label())
			}
		}
	}
	if calls != 292 {
		t.Errorf("%d call labels, want 292", calls)
	}
	if MPI_COMM_WORLD.String() != "MPI_COMM_WORLD" || MPI_INT != 9 || MPI_INT.String() != "MPI_INT" || MPI_SUM != 3 {
		t.Error("predefined handle constants wrong")
	}
	if Datatype(40).String() != "user-defined-datatype" || WinAssert(255).String() != "DUMPI_MODE_ERROR" {
		t.Error("fallback names wrong")
	}
}
