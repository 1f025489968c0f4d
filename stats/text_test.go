package stats_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/stats"
)

func TestWriteTextGolden(t *testing.T) {
	for _, tc := range []struct{ in, golden string }{
		{"testdata/seed004_fig12/input.json", "testdata/seed004_fig12.golden"},
		{"testdata/otfprofile/input.json", "testdata/otfprofile.golden"},
	} {
		rep, _ := profile(t, tc.in, &stats.Options{SampleTimes: []model.Time{500}})
		var buf bytes.Buffer
		if err := rep.WriteText(&buf, nil); err != nil {
			t.Fatal(err)
		}
		if *update {
			if err := os.WriteFile(tc.golden, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(tc.golden)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(want), buf.String()); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.golden, diff)
		}
	}
}
