package main

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/otf2"
)

// writeOddDefs writes an archive of two locations with an Enter and a
// Leave each, whose region 0 is defined twice (named "first", then
// "last"), whose region 1's name is string 9, which no String defines,
// and whose location 1 has its events declared but its event file removed
// when drop.
func writeOddDefs(t *testing.T, dir string, drop bool) string {
	t.Helper()
	w, err := otf2.NewArchiveWriter(model.DirCreator(dir), nil)
	if err != nil {
		t.Fatal(err)
	}
	b := &builder{t: t, w: w, strings: map[string]uint64{}}
	b.s("")
	region := func(id, name uint64) {
		d := otf2.NewDef(otf2.DefKindRegion)
		for i := range d.Kind.Fields() {
			d.SetValue(i, 0)
		}
		d.SetValue(0, id)
		d.SetValue(1, name)
		d.SetValue(2, name)
		d.SetValue(3, name)
		d.SetValue(7, b.s(""))
		if err := w.WriteDef(d); err != nil {
			t.Fatal(err)
		}
	}
	region(0, b.s("first"))
	region(0, b.s("last"))
	region(1, 9)
	for loc := range uint64(2) {
		b.def(otf2.DefKindLocation, loc, b.s("thread"), 1, 0, 0)
		ew, _ := w.EventWriter(loc)
		for i, k := range []otf2.Kind{otf2.KindEnter, otf2.KindEnter, otf2.KindLeave, otf2.KindLeave} {
			ev := otf2.NewEvent(k, uint64(100+i))
			ev.SetValue(0, uint64(i%3&1)) // regions 0, 1, 1, 0
			if err := ew.Write(ev); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if drop {
		if err := os.Remove(filepath.Join(dir, "traces", "1.evt")); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "traces.otf2")
}

// runStderr runs otf2print with args and returns its output, warnings and
// error.
func runStderr(args ...string) (string, string, error) {
	o, err := parseArgs(args)
	if err != nil {
		return "", "", err
	}
	var out, stderr bytes.Buffer
	o.stderr = &stderr
	w := bufio.NewWriter(&out)
	err = run(w, o)
	w.Flush()
	return out.String(), stderr.String(), err
}

// TestOddDefinitions: a region defined twice prints with its last
// definition, and a warning counts the duplicate; a name that is an
// undefined string prints as the id of the definition alone, as
// otf2-print's otf2_print_get_name does with the NULL name it gets for an
// undefined string.
func TestOddDefinitions(t *testing.T) {
	anchor := writeOddDefs(t, t.TempDir(), false)
	out, stderr, err := runStderr(anchor)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, `Region: "last" <0>`) || strings.Contains(out, `"first"`) {
		t.Errorf("region defined twice: want the last definition's name:\n%s", out)
	}
	if !strings.Contains(out, "Region: 1\n") {
		t.Errorf("region whose name is an undefined string: want \"Region: 1\":\n%s", out)
	}
	if !strings.Contains(stderr, "1 global definitions repeat the id") {
		t.Errorf("stderr %q: want a warning counting the duplicate", stderr)
	}
}

// TestMissingEvents: a missing event file of a location that declares
// events is an error, or with --allow-missing-events an empty location
// and a warning with the counts.
func TestMissingEvents(t *testing.T) {
	anchor := writeOddDefs(t, t.TempDir(), true)
	out, _, err := runStderr(anchor)
	if !errors.Is(err, otf2.ErrIntegrity) || !strings.Contains(err.Error(), "declares 4 events") {
		t.Errorf("missing event file: got error %v, want ErrIntegrity naming the 4 declared events", err)
	}
	if strings.Contains(out, "ENTER") {
		t.Errorf("events printed before the error:\n%s", out)
	}
	out, stderr, err := runStderr("--allow-missing-events", anchor)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out, "\nENTER"); n != 2 {
		t.Errorf("lenient: %d Enter events, want 2 (location 0's):\n%s", n, out)
	}
	if !strings.Contains(stderr, "1 locations listed as empty") || !strings.Contains(stderr, "declare 4 events") {
		t.Errorf("stderr %q: want a warning counting the location and its events", stderr)
	}
}
