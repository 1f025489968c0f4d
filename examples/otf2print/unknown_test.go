package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/otf2"
)

// writeUnknown writes definitions with values newer libraries write and
// OTF2 3.0 does not name: region role 40 (Score-P 9's HIP kernels), a
// paradigm, location and location group type beyond the enumerations, a
// flag set with bits no flag names, and the boolean paradigm property
// RMA_ONLY, true and false. (A property of no name is left out:
// otf2-print 3.0.2 prints it with a value from uninitialised memory.)
func writeUnknown(t *testing.T, dir string) {
	w, err := otf2.NewArchiveWriter(model.DirCreator(dir), &otf2.WriterOptions{Creator: "unknown_test.go"})
	if err != nil {
		t.Fatal(err)
	}
	b := &builder{t: t, w: w, strings: map[string]uint64{}}
	b.s("")
	b.def(otf2.DefKindClockProperties, 1000000000, 0, 100, uint64(otf2.Undefined64))
	b.def(otf2.DefKindParadigm, 4, b.s("MPI"), 0)
	b.def(otf2.DefKindParadigmProperty, 4, 2, 1, 1)  // RMA_ONLY, UINT8, TRUE
	b.def(otf2.DefKindParadigmProperty, 13, 2, 1, 0) // SHMEM: RMA_ONLY, UINT8, FALSE
	b.def(otf2.DefKindParadigm, 40, b.s("NEWER"), 7)
	b.def(otf2.DefKindSystemTreeNode, 0, b.s("node"), b.s("node"), u32)
	b.def(otf2.DefKindLocationGroup, 0, b.s("Process 0"), 9, 0, u32)
	b.def(otf2.DefKindLocation, 0, b.s("Master thread"), 1, 2, 0)
	b.def(otf2.DefKindLocation, 1, b.s("device"), 12, 0, 0)
	b.def(otf2.DefKindRegion, 0, b.s("kernel"), 0, 0, u32, 0, 0, b.s("kernel"), 40, 23, 0)
	b.def(otf2.DefKindRegion, 1, b.s("newer"), 0, 0, u32, 0, 0, b.s("newer"), 1, 40, 9)
	b.def(otf2.DefKindRegion, 2, b.s("flags"), 0, 0, u32, 0, 0, b.s("flags"), 1, 1, 1<<20|0x18|2)
	ew, err := w.EventWriter(0)
	if err != nil {
		t.Fatal(err)
	}
	for i, k := range []otf2.Kind{otf2.KindEnter, otf2.KindLeave} {
		ev := otf2.NewEvent(k, uint64(10+i))
		if err := ew.Write(ev); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.EventWriter(1); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestUnknownValues checks the values OTF2 3.0 does not name, and the
// boolean paradigm property, against otf2-print's text (goldens made by
// otf2-print 3.0.2, committed with the archive under testdata/unknown).
func TestUnknownValues(t *testing.T) {
	dir := filepath.Join("testdata", "unknown")
	anchor := filepath.Join(dir, "trace", "traces.otf2")
	if *update {
		os.RemoveAll(filepath.Join(dir, "trace"))
		writeUnknown(t, filepath.Join(dir, "trace"))
		for _, args := range [][]string{nil, {"-G"}} {
			out, err := exec.Command("otf2-print", append(args, anchor)...).CombinedOutput()
			if err != nil {
				t.Fatalf("otf2-print %v: %v\n%s", args, err, out)
			}
			name := "golden_otf2print.txt"
			if args != nil {
				name = "golden_otf2print_G.txt"
			}
			if err := os.WriteFile(filepath.Join(dir, name), out, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, v := range []struct {
		golden string
		args   []string
	}{{"golden_otf2print.txt", nil}, {"golden_otf2print_G.txt", []string{"-G"}}} {
		t.Run(v.golden, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join(dir, v.golden))
			if err != nil {
				t.Fatal(err)
			}
			if got := output(t, append(v.args, anchor)); volatile(got) != volatile(string(want)) {
				diffLines(t, volatile(string(want)), volatile(got))
			}
		})
	}
}
