package otf2

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"
)

// TestThumbnails reads the two thumbnails libotf2 3.0.2 wrote in
// testdata/thumbnail (see gen.c there): headers and samples as written.
func TestThumbnails(t *testing.T) {
	a, err := Open(filepath.Join("testdata", "thumbnail", "trace", "traces.otf2"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.Anchor.NumThumbnails != 2 {
		t.Fatalf("anchor counts %d thumbnails, want 2", a.Anchor.NumThumbnails)
	}
	want := [][]string{
		{
			`header "regions" "time per region" type 0 samples 3 metrics 2 refs [0 1]`,
			"sample 30 2 [10 20]",
			"sample 0 2 [0 5]",
			"sample 1000 2 [300 1]",
		},
		{
			`header "metric" "" type 1 samples 2 metrics 1 refs [0]`,
			"sample 0 1 [7]",
			"sample 18446744073709551615 1 [1311768467463790320]",
		},
	}
	for n := range uint32(2) {
		r, err := a.ThumbnailReader(n)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for d, err := range r.All() {
			if err != nil {
				t.Fatalf("thumbnail %d: %v", n, err)
			}
			if x, ok := d.ThumbHeader(); ok {
				got = append(got, fmt.Sprintf("header %q %q type %d samples %d metrics %d refs %v",
					x.Name, x.Description, x.Type, x.NumberOfSamples, x.NumberOfMetrics, x.RefsToDefs))
			} else if x, ok := d.ThumbSample(); ok {
				got = append(got, fmt.Sprintf("sample %d %d %v", x.Baseline, x.NumberOfMetrics, x.MetricSamples))
			} else {
				t.Fatalf("thumbnail %d: unexpected record %v", n, d.Kind)
			}
		}
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want[n]) {
			t.Errorf("thumbnail %d:\n got %q\nwant %q", n, got, want[n])
		}
	}
	if _, err := a.ThumbnailReader(2); err == nil {
		t.Error("ThumbnailReader(2) of an archive with 2 thumbnails: no error")
	}
}

// TestSnapshotThumbnail reads the thumbnail otf2-snapshots (libotf2 3.0.2)
// left in testdata/snapshots_markers: a REGION thumbnail over the three
// regions with as many samples as its header announces.
func TestSnapshotThumbnail(t *testing.T) {
	a, err := Open(filepath.Join("testdata", "snapshots_markers", "trace", "traces.otf2"), nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := a.ThumbnailReader(0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var hdr DefThumbHeader
	samples := 0
	for d, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		if x, ok := d.ThumbHeader(); ok {
			hdr = x
			hdr.RefsToDefs = slices.Clone(x.RefsToDefs)
		} else if x, ok := d.ThumbSample(); ok {
			if int(x.NumberOfMetrics) != len(hdr.RefsToDefs) || len(x.MetricSamples) != len(hdr.RefsToDefs) {
				t.Fatalf("sample %d: %d metrics, header has %d", samples, x.NumberOfMetrics, len(hdr.RefsToDefs))
			}
			samples++
		} else {
			t.Fatalf("unexpected record %v", d.Kind)
		}
	}
	got := fmt.Sprintf("%q %q %d %d %d %v", hdr.Name, hdr.Description, hdr.Type, hdr.NumberOfSamples, hdr.NumberOfMetrics, hdr.RefsToDefs)
	if want := `"region activity" "" 0 4096 3 [0 1 2]`; got != want || samples != 4096 {
		t.Fatalf("header %s, %d samples; want %s, 4096 samples", got, samples, want)
	}
}
