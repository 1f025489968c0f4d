package hpctrace

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// formatPackages are the packages whose model sources programs must not
// tell apart: what a program needs to know of a trace is in the model's
// definitions (model.Location's MPI and Stream, model.Defs.ByRank) or a
// format-neutral interface (model.CommReporter).
var formatPackages = map[string]bool{
	"github.com/hpctrace/hpctrace/picl":   true,
	"github.com/hpctrace/hpctrace/dumpi":  true,
	"github.com/hpctrace/hpctrace/otf":    true,
	"github.com/hpctrace/hpctrace/otf2":   true,
	"github.com/hpctrace/hpctrace/chrome": true,
}

// formatAssertions returns the positions in the Go file src at which a
// type assertion or a type switch asks whether a value is a format
// package's ModelSource.
func formatAssertions(fset *token.FileSet, name string, src any) ([]string, error) {
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	local := map[string]bool{} // names under which f imports a format package
	for _, im := range f.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		if !formatPackages[p] {
			continue
		}
		n := p[strings.LastIndexByte(p, '/')+1:]
		if im.Name != nil {
			n = im.Name.Name
		}
		local[n] = true
	}
	isSource := func(e ast.Expr) bool {
		if s, ok := e.(*ast.StarExpr); ok {
			e = s.X
		}
		sel, ok := e.(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != "ModelSource" {
			return false
		}
		id, ok := sel.X.(*ast.Ident)
		return ok && local[id.Name]
	}
	var found []string
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.TypeAssertExpr:
			if n.Type != nil && isSource(n.Type) {
				found = append(found, fset.Position(n.Pos()).String())
			}
		case *ast.TypeSwitchStmt:
			for _, c := range n.Body.List {
				for _, e := range c.(*ast.CaseClause).List {
					if isSource(e) {
						found = append(found, fset.Position(e.Pos()).String())
					}
				}
			}
		}
		return true
	})
	return found, nil
}

// TestNoFormatAssertions: no program (examples/, nested modules included)
// and no internal package asks which format's model source it has.
func TestNoFormatAssertions(t *testing.T) {
	fset := token.NewFileSet()
	// The check itself finds what it must.
	probe := `package p
import (
	d "github.com/hpctrace/hpctrace/dumpi"
	"github.com/hpctrace/hpctrace/otf2"
)
func f(src any) {
	_, _ = src.(*d.ModelSource)
	switch src.(type) {
	case *otf2.ModelSource:
	}
}`
	if got, err := formatAssertions(fset, "probe.go", probe); err != nil || len(got) != 2 {
		t.Fatalf("the probe's assertions: found %v (%v), want 2", got, err)
	}
	files := 0
	for _, dir := range []string{"examples", "internal"} {
		err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() || !strings.HasSuffix(path, ".go") {
				return err
			}
			if strings.Contains(filepath.ToSlash(path), "/testdata/") {
				return nil
			}
			files++
			found, err := formatAssertions(fset, path, nil)
			if err != nil {
				return err
			}
			for _, p := range found {
				t.Errorf("%s: a type assertion on a format's model source; use the facts of model.Defs and model.Location or model.CommReporter", p)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if files < 50 {
		t.Fatalf("%d Go files under examples/ and internal/; the walk missed them", files)
	}
}
