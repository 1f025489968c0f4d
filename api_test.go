package hpctrace

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/importer"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite api/hpctrace.txt with the exported API of the module's packages")

// apiFile is the committed listing of the module's exported API: one line
// per exported identifier, field and method of every package of the module
// that is neither a program nor internal (examples/, internal/).
const apiFile = "api/hpctrace.txt"

// TestAPI fails when the exported API of the module's packages is not the
// one api/hpctrace.txt lists, printing the lines added and removed. A
// deliberate change is recorded with
//
//	go test . -run TestAPI -args -update
//
// and noted in CHANGELOG.md.
func TestAPI(t *testing.T) {
	got, err := apiListing()
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(apiFile, []byte(strings.Join(got, "\n")+"\n"), 0o666); err != nil {
			t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile(apiFile)
	if err != nil {
		t.Fatalf("%v (write it with: go test . -run TestAPI -args -update)", err)
	}
	if msg := apiDiff(strings.Split(strings.TrimSuffix(string(b), "\n"), "\n"), got); msg != "" {
		t.Errorf("the exported API is not the one %s lists:\n%s\nIf the change is deliberate, run: go test . -run TestAPI -args -update\nand note it in CHANGELOG.md.", apiFile, msg)
	}
}

// TestAPIDiffReportsChange holds that TestAPI's check fails on a listing
// that differs from the API in one line, and names both sides of it: the
// committed listing against itself with one line changed.
func TestAPIDiffReportsChange(t *testing.T) {
	b, err := os.ReadFile(apiFile)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if msg := apiDiff(got, got); msg != "" {
		t.Fatalf("apiDiff of a listing with itself = %q, want none", msg)
	}
	i := slices.IndexFunc(got, func(l string) bool { return strings.Contains(l, ", func Open(") })
	if i < 0 {
		t.Fatal("the listing has no func Open")
	}
	want := slices.Clone(got)
	want[i] = strings.Replace(want[i], "func Open(", "func OpenTrace(", 1)
	msg := apiDiff(want, got)
	if msg == "" {
		t.Fatal("apiDiff reports nothing for a listing with one line changed")
	}
	lines := strings.Split(strings.TrimSuffix(msg, "\n"), "\n")
	wantLines := []string{"+" + got[i], "-" + want[i]}
	slices.Sort(wantLines)
	slices.Sort(lines)
	if !slices.Equal(lines, wantLines) {
		t.Errorf("apiDiff =\n%s\nwant\n%s", msg, strings.Join(wantLines, "\n"))
	}
}

// TestAPIListing holds the shape of the listing's lines on a package of
// the module whose API the test knows.
func TestAPIListing(t *testing.T) {
	got, err := apiListing()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.IsSorted(got) {
		t.Error("the listing is not sorted")
	}
	if len(slices.Compact(slices.Clone(got))) != len(got) {
		t.Error("the listing has duplicate lines")
	}
	const root = "pkg github.com/hpctrace/hpctrace, "
	for _, want := range []string{
		root + "type Format uint8",
		root + "type Format, method String() string",
		"pkg github.com/hpctrace/hpctrace/model, type Source interface, Defs() *Defs",
		"pkg github.com/hpctrace/hpctrace/model, type Location struct, MPI bool",
	} {
		if !slices.Contains(got, want) {
			t.Errorf("the listing has no line %q", want)
		}
	}
	for _, l := range got {
		if strings.Contains(l, "/internal/") || strings.Contains(l, "/examples/") || strings.HasPrefix(l, "pkg github.com/hpctrace/hpctrace/bench,") {
			t.Errorf("the listing holds a program's or an internal package's line: %s", l)
		}
	}
}

// apiDiff returns the lines of got not in want, prefixed "+", and the lines
// of want not in got, prefixed "-", in the listing's order, one a line; or
// "" when the two listings hold the same lines.
func apiDiff(want, got []string) string {
	in := func(s []string) map[string]bool {
		m := make(map[string]bool, len(s))
		for _, l := range s {
			m[l] = true
		}
		return m
	}
	w, g := in(want), in(got)
	var diff []string
	for l := range g {
		if !w[l] {
			diff = append(diff, "+"+l)
		}
	}
	for l := range w {
		if !g[l] {
			diff = append(diff, "-"+l)
		}
	}
	if len(diff) == 0 {
		return ""
	}
	slices.SortFunc(diff, func(a, b string) int {
		if c := strings.Compare(a[1:], b[1:]); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	return strings.Join(diff, "\n") + "\n"
}

// apiListing returns the sorted lines of the exported API of the module's
// library packages: every package of ./... that is not a command and not
// under internal/ or examples/. The packages' types come from the export
// data the go command compiles (go list -export), so the listing is what a
// user's program sees.
func apiListing() ([]string, error) {
	pkgs, err := goList("./...")
	if err != nil {
		return nil, err
	}
	var lib []string
	for _, p := range pkgs {
		if p.Name == "main" || strings.Contains(p.ImportPath+"/", "/internal/") || strings.Contains(p.ImportPath+"/", "/examples/") {
			continue
		}
		lib = append(lib, p.ImportPath)
	}
	deps, err := goList(append([]string{"-export", "-deps"}, lib...)...)
	if err != nil {
		return nil, err
	}
	export := map[string]string{}
	for _, p := range deps {
		export[p.ImportPath] = p.Export
	}
	imp := importer.ForCompiler(token.NewFileSet(), "gc", func(path string) (io.ReadCloser, error) {
		f, ok := export[path]
		if !ok || f == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(f)
	})
	var lines []string
	for _, path := range lib {
		pkg, err := imp.Import(path)
		if err != nil {
			return nil, err
		}
		lines = append(lines, apiLines(pkg)...)
	}
	slices.Sort(lines)
	return slices.Compact(lines), nil
}

type listedPackage struct {
	ImportPath, Name, Export string
	Error                    *struct{ Err string }
}

// goList runs go list -json with args and returns the packages it lists.
func goList(args ...string) ([]listedPackage, error) {
	cmd := exec.Command("go", append([]string{"list", "-json=ImportPath,Name,Export,Error"}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
	}
	var pkgs []listedPackage
	for d := json.NewDecoder(bytes.NewReader(out)); ; {
		var p listedPackage
		if err := d.Decode(&p); errors.Is(err, io.EOF) {
			return pkgs, nil
		} else if err != nil {
			return nil, err
		}
		if p.Error != nil {
			return nil, fmt.Errorf("go list: %s: %s", p.ImportPath, p.Error.Err)
		}
		pkgs = append(pkgs, p)
	}
}

// apiLines returns the listing's lines of pkg's exported identifiers:
//
//	pkg PATH, const NAME TYPE = VALUE
//	pkg PATH, var NAME TYPE
//	pkg PATH, func NAME(PARAMS) RESULTS
//	pkg PATH, type NAME[TPARAMS] UNDERLYING   (struct, interface, or the type)
//	pkg PATH, type NAME = TYPE                 (an alias)
//	pkg PATH, type NAME struct, FIELD TYPE     (embedded fields: embedded TYPE)
//	pkg PATH, type NAME interface, METHOD(PARAMS) RESULTS
//	pkg PATH, type NAME, method [(*NAME)] METHOD(PARAMS) RESULTS
//
// A type's methods are its method set and its pointer's (promoted methods
// included); those of the pointer alone say (*NAME). Types of other
// packages are qualified by their package's name.
func apiLines(pkg *types.Package) []string {
	prefix := "pkg " + pkg.Path() + ", "
	qual := func(p *types.Package) string {
		if p == pkg {
			return ""
		}
		return p.Name()
	}
	// str writes a type as types.TypeString does, but signatures (of
	// functions in fields, parameters and results too) without parameter
	// names, which are no part of the API.
	var str func(t types.Type) string
	var sig func(s *types.Signature) string
	str = func(t types.Type) string {
		switch t := t.(type) {
		case *types.Signature:
			return "func" + sig(t)
		case *types.Pointer:
			return "*" + str(t.Elem())
		case *types.Slice:
			return "[]" + str(t.Elem())
		case *types.Array:
			return fmt.Sprintf("[%d]%s", t.Len(), str(t.Elem()))
		case *types.Map:
			return "map[" + str(t.Key()) + "]" + str(t.Elem())
		case *types.Chan:
			switch t.Dir() {
			case types.SendOnly:
				return "chan<- " + str(t.Elem())
			case types.RecvOnly:
				return "<-chan " + str(t.Elem())
			}
			return "chan " + str(t.Elem())
		case *types.Named:
			name := t.Obj().Name()
			if p := t.Obj().Pkg(); p != nil && p != pkg {
				name = p.Name() + "." + name
			}
			if args := t.TypeArgs(); args != nil && args.Len() > 0 {
				var as []string
				for i := range args.Len() {
					as = append(as, str(args.At(i)))
				}
				name += "[" + strings.Join(as, ", ") + "]"
			}
			return name
		}
		return types.TypeString(t, qual)
	}
	sig = func(s *types.Signature) string {
		tuple := func(t *types.Tuple, variadic bool) string {
			var ts []string
			for i := range t.Len() {
				ty := t.At(i).Type()
				if variadic && i == t.Len()-1 {
					ts = append(ts, "..."+str(ty.(*types.Slice).Elem()))
					continue
				}
				ts = append(ts, str(ty))
			}
			return strings.Join(ts, ", ")
		}
		out := "(" + tuple(s.Params(), s.Variadic()) + ")"
		switch r := s.Results(); r.Len() {
		case 0:
		case 1:
			out += " " + tuple(r, false)
		default:
			out += " (" + tuple(r, false) + ")"
		}
		return out
	}
	var lines []string
	add := func(format string, args ...any) { lines = append(lines, prefix+fmt.Sprintf(format, args...)) }
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		if !obj.Exported() {
			continue
		}
		switch obj := obj.(type) {
		case *types.Const:
			add("const %s %s = %s", name, str(obj.Type()), obj.Val().ExactString())
		case *types.Var:
			add("var %s %s", name, str(obj.Type()))
		case *types.Func:
			s := obj.Type().(*types.Signature)
			tparams := ""
			if tp := s.TypeParams(); tp != nil && tp.Len() > 0 {
				var ps []string
				for i := range tp.Len() {
					p := tp.At(i)
					ps = append(ps, p.Obj().Name()+" "+str(p.Constraint()))
				}
				tparams = "[" + strings.Join(ps, ", ") + "]"
			}
			add("func %s%s%s", name, tparams, sig(s))
		case *types.TypeName:
			if obj.IsAlias() {
				add("type %s = %s", name, str(types.Unalias(obj.Type())))
				continue
			}
			named := obj.Type().(*types.Named)
			decl := name
			if tp := named.TypeParams(); tp != nil && tp.Len() > 0 {
				var ps []string
				for i := range tp.Len() {
					p := tp.At(i)
					ps = append(ps, p.Obj().Name()+" "+str(p.Constraint()))
				}
				decl += "[" + strings.Join(ps, ", ") + "]"
			}
			switch u := named.Underlying().(type) {
			case *types.Struct:
				add("type %s struct", decl)
				for i := range u.NumFields() {
					f := u.Field(i)
					switch {
					case f.Embedded():
						add("type %s struct, embedded %s", name, str(f.Type()))
					case f.Exported():
						add("type %s struct, %s %s", name, f.Name(), str(f.Type()))
					}
				}
			case *types.Interface:
				add("type %s interface", decl)
				for i := range u.NumMethods() {
					m := u.Method(i)
					if m.Exported() {
						add("type %s interface, %s%s", name, m.Name(), sig(m.Type().(*types.Signature)))
					} else {
						add("type %s interface, unexported methods", name)
					}
				}
				if !u.IsMethodSet() {
					add("type %s interface, constraint %s", name, str(u))
				}
			default:
				add("type %s %s", decl, str(u))
			}
			if _, ok := named.Underlying().(*types.Interface); ok {
				continue
			}
			value := types.NewMethodSet(named)
			ptr := types.NewMethodSet(types.NewPointer(named))
			for i := range ptr.Len() {
				m := ptr.At(i).Obj()
				if !m.Exported() {
					continue
				}
				recv := ""
				if value.Lookup(m.Pkg(), m.Name()) == nil {
					recv = "(*" + name + ") "
				}
				add("type %s, method %s%s%s", name, recv, m.Name(), sig(m.Type().(*types.Signature)))
			}
		}
	}
	return lines
}
