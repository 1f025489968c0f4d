package otf

import (
	"bytes"
	"os"
	"testing"

	"github.com/hpctrace/hpctrace/internal/gen/otfrecords"
)

// TestGeneratedFresh regenerates the record code from records.tsv in
// memory and fails when the committed file differs: run go generate.
func TestGeneratedFresh(t *testing.T) {
	files, err := otfrecords.Generate(os.DirFS("."))
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
		if !bytes.Equal(got, f.Data) {
			t.Errorf("%s is stale: run go generate ./otf", f.Name)
		}
	}
	if n := int(numKinds) - 1; n != 65 {
		t.Errorf("got %d record kinds, want 65", n)
	}
}
