package picl_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"
)

// roundTrip is the round-trip property: generated records, written and read
// back, are equal, and writing them again gives the same bytes. On failure
// it hands the written bytes to save (if not nil) first.
func roundTrip(t *rapid.T, save func([]byte)) {
	want := genStream().Draw(t, "stream")
	data := writeAll(t, want)
	got := readAll(t, data, nil)
	if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
		if save != nil {
			save(data)
		}
		t.Fatalf("round trip (-want +got):\n%s\nwritten:\n%s", diff, data)
	}
	if again := writeAll(t, got); string(again) != string(data) {
		if save != nil {
			save(data)
		}
		t.Fatalf("second write differs:\n%s\nfirst:\n%s", again, data)
	}
}

func propRoundTrip(t *rapid.T) { roundTrip(t, nil) }

func TestRoundTrip(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		roundTrip(rt, func(data []byte) {
			_ = os.WriteFile(filepath.Join(t.ArtifactDir(), "roundtrip.trf"), data, 0o644)
		})
	})
}

func FuzzRoundTrip(f *testing.F) { f.Fuzz(rapid.MakeFuzz(propRoundTrip)) }
