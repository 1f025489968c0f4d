package otf

import (
	"strings"
	"testing"
)

// TestAuxProgress checks that AuxOptions.Progress is called with growing
// counts, every AuxProgressEvery records, and ends with every event
// record and every byte of the events files, once per pass.
func TestAuxProgress(t *testing.T) {
	fsys := genTrace(t, 2, 4, 200_000, false)
	var size int64
	for name, f := range fsys {
		if strings.HasSuffix(name, ".events") {
			size += int64(len(f.Data))
		}
	}
	tr, err := OpenFS(fsys, "bench.otf", nil)
	if err != nil {
		t.Fatal(err)
	}
	var events int64
	r, err := tr.NewReader(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		events++
	}
	r.Close()
	for _, snaps := range []bool{false, true} {
		passes := int64(1)
		if snaps {
			passes = 2
		}
		var recs, bytes []int64
		err := tr.Aux(&AuxOptions{Times: []uint64{1 << 40}, Snapshots: snaps, Summaries: true,
			Progress: func(records, b int64) {
				recs = append(recs, records)
				bytes = append(bytes, b)
			}}, func(FileType, *Record) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		if want := passes * (events/AuxProgressEvery + 1); int64(len(recs)) < want {
			t.Errorf("snapshots %v: %d calls, want at least %d", snaps, len(recs), want)
		}
		for i := 1; i < len(recs); i++ {
			if recs[i] <= recs[i-1] || bytes[i] < bytes[i-1] {
				t.Errorf("snapshots %v: call %d: (%d, %d) after (%d, %d)", snaps, i, recs[i], bytes[i], recs[i-1], bytes[i-1])
			}
		}
		if len(recs) > 0 && recs[0] != AuxProgressEvery {
			t.Errorf("snapshots %v: first call with %d records, want %d", snaps, recs[0], AuxProgressEvery)
		}
		if n := len(recs); n == 0 || recs[n-1] != passes*events || bytes[n-1] != passes*size {
			t.Errorf("snapshots %v: last call (%d, %d), want (%d, %d)", snaps, recs[len(recs)-1], bytes[len(bytes)-1], passes*events, passes*size)
		}
	}
}
