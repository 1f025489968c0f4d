package hpctrace

import (
	"io/fs"
	"os"
	"reflect"
	"testing"

	"github.com/hpctrace/hpctrace/chrome"
	"github.com/hpctrace/hpctrace/eventjson"
	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/picl"
)

// closeCountFS is an fs.FS that counts the opens and closes of each file.
type closeCountFS struct {
	fs.FS
	opens, closes map[string]int
}

type closeCountFile struct {
	fs.File
	c    *closeCountFS
	name string
}

func (c *closeCountFS) Open(name string) (fs.File, error) {
	f, err := c.FS.Open(name)
	if err != nil {
		return nil, err
	}
	c.opens[name]++
	return &closeCountFile{f, c, name}, nil
}

func (f *closeCountFile) Close() error {
	f.c.closes[f.name]++
	return f.File.Close()
}

// TestPICLChromeSelect checks that a PICL, Chrome or event JSON trace's
// reader selects (the root has no filter of its own), that the Trace closes the
// file it opened once, and that a Selection in the format's options is
// refused.
func TestPICLChromeSelect(t *testing.T) {
	win := &model.Window{From: 1}
	for _, c := range []struct {
		name string
		bad  *Options
	}{
		{"picl/testdata/ring4.trf", &Options{PICL: &picl.ModelOptions{Selection: model.Selection{Window: win}}}},
		{"chrome/testdata/ring4.json", &Options{Chrome: &chrome.ReaderOptions{Selection: model.Selection{Locations: model.Only(1)}}}},
		{"eventjson/testdata/fig12.json", &Options{JSON: &eventjson.ReaderOptions{Selection: model.Selection{Locations: model.Only(1)}}}},
	} {
		cfs := &closeCountFS{FS: os.DirFS("."), opens: map[string]int{}, closes: map[string]int{}}
		tr, err := OpenFS(cfs, c.name, &Options{Locations: model.Only(1), Window: win})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for tr.Next() {
			if ev := tr.Event(); ev.Loc != 1 || !win.Contains(ev.Time) {
				t.Errorf("%s: event %+v outside the selection", c.name, *ev)
			}
			n++
		}
		if err := tr.Err(); err != nil || n == 0 {
			t.Errorf("%s: %d events, err %v", c.name, n, err)
		}
		// Detect opened the file once and closed it; the reader's file
		// stays open until Close, which closes it once.
		if open := cfs.opens[c.name] - cfs.closes[c.name]; open != 1 {
			t.Errorf("%s: %d files open while reading, want 1", c.name, open)
		}
		if err := tr.Close(); err != nil {
			t.Fatal(err)
		}
		if err := tr.Close(); err != nil {
			t.Errorf("%s: second Close: %v", c.name, err)
		}
		if !reflect.DeepEqual(cfs.opens, cfs.closes) || len(cfs.opens) != 1 {
			t.Errorf("%s: opens %v, closes %v, want every file opened closed once", c.name, cfs.opens, cfs.closes)
		}
		if _, err := Open(c.name, c.bad); err == nil {
			t.Errorf("%s: a Selection in the format's options: no error", c.name)
		}
	}
}
