package waitstate

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hpctrace/hpctrace/model"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestGolden checks the text and JSON reports of a small trace with waits
// of several patterns against testdata/*.golden.
func TestGolden(t *testing.T) {
	b := chain()
	for l := range model.LocID(3) {
		b.call(l+1, 2000+100*model.Time(l), 2400+10*model.Time(l), "MPI_Barrier", coll(0, 0))
	}
	r := b.analyze(t, nil)
	var got bytes.Buffer
	if err := r.WriteText(&got, nil); err != nil {
		t.Fatal(err)
	}
	j, err := json.MarshalIndent(r, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	got.WriteString("\n")
	got.Write(j)
	got.WriteString("\n")
	name := filepath.Join("testdata", "chain.golden")
	if *update {
		if err := os.WriteFile(name, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), got.String()); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
	}
}
