package progress

import (
	"bytes"
	"io/fs"
	"os"
	"testing"
	"time"

	"github.com/hpctrace/hpctrace/dumpi"
	"github.com/hpctrace/hpctrace/otf"
	"github.com/hpctrace/hpctrace/otf2"
)

// activeMeter returns a Meter that reports as on a terminal, with a clock
// that advances a second at each reading.
func activeMeter() (*Meter, *bytes.Buffer) {
	var buf bytes.Buffer
	m := New(&buf, "x", "bytes")
	m.tty = true
	clock := m.start
	m.now = func() time.Time { clock = clock.Add(time.Second); return clock }
	return m, &buf
}

// TestFSReaders reads fixtures of the formats whose copies traceconv
// counts through a Meter's FS (zlib OTF, DUMPI, OTF2), once directly and
// once through the FS of an active Meter: the records are the same, and
// the Meter counts and shows the bytes read.
func TestFSReaders(t *testing.T) {
	type reader func(fsys fs.FS) (records int, err error)
	readers := map[string]reader{
		"otf": func(fsys fs.FS) (int, error) {
			tr, err := otf.OpenFS(fsys, "allrec.otf", nil)
			if err != nil {
				return 0, err
			}
			r, err := tr.NewReader(nil)
			if err != nil {
				return 0, err
			}
			defer r.Close()
			n := 0
			for _, err := range r.All() {
				if err != nil {
					return n, err
				}
				n++
			}
			return n, nil
		},
		"dumpi": func(fsys fs.FS) (int, error) {
			f, err := dumpi.OpenFS(fsys, "dumpi-2026.11.22.01.33.19-0000.bin", nil)
			if err != nil {
				return 0, err
			}
			defer f.Close()
			n := 0
			for _, err := range f.Calls().All() {
				if err != nil {
					return n, err
				}
				n++
			}
			return n, nil
		},
		"otf2": func(fsys fs.FS) (int, error) {
			a, err := otf2.OpenFS(fsys, "traces.otf2", nil)
			if err != nil {
				return 0, err
			}
			defer a.Close()
			n := 0
			for _, loc := range a.Locations() {
				r, err := a.EventReader(loc)
				if err != nil {
					return n, err
				}
				for _, err := range r.All() {
					if err != nil {
						r.Close()
						return n, err
					}
					n++
				}
				r.Close()
			}
			return n, nil
		},
	}
	dirs := map[string]string{
		"otf":   "../../../otf/testdata/all_records_zlib_smallbuf",
		"dumpi": "../../../dumpi/testdata/annotations",
		"otf2":  "../../../otf2/testdata/minimal/trace",
	}
	for name, read := range readers {
		want, err := read(os.DirFS(dirs[name]))
		if err != nil || want == 0 {
			t.Fatalf("%s: %d records, %v", name, want, err)
		}
		m, buf := activeMeter()
		got, err := read(m.FS(os.DirFS(dirs[name])))
		if err != nil || got != want {
			t.Errorf("%s through a Meter: %d records, %v; want %d", name, got, err, want)
		}
		if m.Count() == 0 || buf.Len() == 0 {
			t.Errorf("%s: counted %d bytes, showed %q", name, m.Count(), buf.String())
		}
	}
}
