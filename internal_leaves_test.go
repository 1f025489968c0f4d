package hpctrace

import (
	"os/exec"
	"strings"
	"testing"
)

// TestInternalLeaves checks the layering rule of issue 28: the packages
// under internal/ are leaves (they import nothing of the module outside
// internal/), and the programs' plumbing lives under examples/internal/,
// which no library package imports.
func TestInternalLeaves(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...").Output()
	if err != nil {
		t.Fatal(err)
	}
	const mod = "github.com/hpctrace/hpctrace"
	checked := 0
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		pkg, imports := f[0], f[1:]
		internal := strings.HasPrefix(pkg, mod+"/internal/")
		library := !strings.HasPrefix(pkg, mod+"/examples/") && !strings.HasPrefix(pkg, mod+"/bench") && !internal
		for _, imp := range imports {
			if !strings.HasPrefix(imp, mod) {
				continue
			}
			if internal && !strings.HasPrefix(imp, mod+"/internal/") {
				t.Errorf("%s imports %s: a package under internal/ must be a leaf", pkg, imp)
			}
			if library && strings.HasPrefix(imp, mod+"/examples/") {
				t.Errorf("%s imports %s: a library package must not import the programs' plumbing", pkg, imp)
			}
		}
		if internal {
			checked++
		}
	}
	if checked < 5 {
		t.Errorf("checked %d packages under internal/; the listing is wrong", checked)
	}
}
