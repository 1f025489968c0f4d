// Package dumpicalls turns the DUMPI tables (calls.tsv, constants.tsv and
// ascii.tsv of package dumpi) into Go source: one struct per call with its
// decoder, encoder, deep copy and reference-ASCII printer, the Label
// constants, and the typed handle and enumeration constants; and, for the
// tests, a plain reference decoder per call to compare the fast ones with.
//
// It is used by the dumpigen command (go generate) and by the staleness test
// of package dumpi, which regenerates in memory and compares.
package dumpicalls

import (
	"bufio"
	"bytes"
	"fmt"
	"go/format"
	"io/fs"
	"sort"
	"strconv"
	"strings"
)

// File is one generated file.
type File struct {
	Name string
	Data []byte
}

// Generate reads the tables from fsys and returns the generated files,
// gofmt-formatted, in a fixed order.
func Generate(fsys fs.FS) ([]File, error) {
	calls, err := readCalls(fsys, "calls.tsv")
	if err != nil {
		return nil, err
	}
	if err := readASCII(fsys, "ascii.tsv", calls); err != nil {
		return nil, err
	}
	consts, err := readConstants(fsys, "constants.tsv")
	if err != nil {
		return nil, err
	}
	var out []File
	src, err := genCalls(calls)
	if err != nil {
		return nil, err
	}
	out = append(out, File{"calls_gen.go", src})
	src, err = genModel(calls)
	if err != nil {
		return nil, err
	}
	out = append(out, File{"model_gen.go", src})
	src, err = genRef(calls)
	if err != nil {
		return nil, err
	}
	out = append(out, File{"calls_ref_gen_test.go", src})
	src, err = genConstants(consts)
	if err != nil {
		return nil, err
	}
	out = append(out, File{"constants_gen.go", src})
	return out, nil
}

// kind of an argument's wire form.
type shape int

const (
	scalar  shape = iota
	array         // T[n]: i32 count then elements
	strArgc       // string*argc: argc strings, no prefix
	strArr2       // string[n][]: i32 count then string lists
	int2D         // int[n][3]: i32 rows, each an int array
)

type arg struct {
	wire    string // field name in the table
	print   string // name the reference printer uses
	goName  string
	typ     string // base wire type (int, comm, status, string, ...)
	shape   shape
	count   string // sizing field ("" for [])
	cond    string // field compared with root ("" if unconditional)
	condRHS string
	legacy  string // version before which an array is a single int32
}

type call struct {
	id     int
	label  string // DUMPI_Send
	name   string // MPI_Send
	goName string // Send
	args   []*arg
	order  []*arg // printed order
	kind   string // "", "no-record", "sentinel"
	model  string // the model column: "-" or role(field,...)
}

func readLines(fsys fs.FS, name string) ([][]string, error) {
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, err
	}
	var rows [][]string
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		rows = append(rows, strings.Split(line, "\t"))
	}
	return rows, sc.Err()
}

func camel(s string) string {
	var b strings.Builder
	for _, p := range strings.Split(s, "_") {
		if p == "" {
			continue
		}
		b.WriteString(strings.ToUpper(p[:1]) + p[1:])
	}
	return b.String()
}

var legacyArrays = map[string]string{
	"40.indices": "typeStructScalar", // before 0.6.9
	"105.coords": "cartGetScalar",    // before 0.6.8
}

func readCalls(fsys fs.FS, name string) ([]*call, error) {
	rows, err := readLines(fsys, name)
	if err != nil {
		return nil, err
	}
	var calls []*call
	for _, r := range rows {
		if len(r) < 4 {
			return nil, fmt.Errorf("%s: short row %q", name, r)
		}
		id, err := strconv.Atoi(r[0])
		if err != nil || id != len(calls) {
			return nil, fmt.Errorf("%s: row %q: want id %d", name, r, len(calls))
		}
		c := &call{id: id, label: r[1], name: r[2], model: r[3]}
		switch {
		case strings.HasPrefix(c.label, "DUMPIO_"):
			c.goName = "MPIO" + camel(strings.TrimPrefix(c.label, "DUMPIO_"))
		default:
			c.goName = camel(strings.TrimPrefix(c.label, "DUMPI_"))
		}
		if id == 290 || id == 293 {
			c.goName = camel(strings.ToLower(strings.TrimPrefix(c.label, "DUMPI_")))
		}
		for _, a := range r[4:] {
			if strings.HasPrefix(a, "#") {
				if strings.HasPrefix(a, "#no-record") {
					c.kind = "no-record"
				} else {
					c.kind = "sentinel"
				}
				continue
			}
			ar, err := parseArg(a)
			if err != nil {
				return nil, fmt.Errorf("%s: %s: %v", name, c.name, err)
			}
			ar.legacy = legacyArrays[fmt.Sprintf("%d.%s", id, ar.wire)]
			c.args = append(c.args, ar)
		}
		c.order = c.args
		calls = append(calls, c)
	}
	return calls, nil
}

func parseArg(s string) (*arg, error) {
	field, typ, ok := strings.Cut(s, ":")
	if !ok {
		return nil, fmt.Errorf("argument %q: no type", s)
	}
	a := &arg{wire: field, print: field, goName: camel(field)}
	if t, cond, ok := strings.Cut(typ, "?"); ok {
		typ = t
		l, r, ok := strings.Cut(cond, "=")
		if !ok {
			return nil, fmt.Errorf("argument %q: bad condition", s)
		}
		a.cond, a.condRHS = l, r
	}
	switch {
	case strings.HasSuffix(typ, "*argc"):
		a.typ, a.shape, a.count = strings.TrimSuffix(typ, "*argc"), strArgc, "argc"
	case strings.HasSuffix(typ, "[][]"):
		return nil, fmt.Errorf("argument %q: unsupported shape", s)
	case strings.HasSuffix(typ, "[]") && strings.Count(typ, "[") == 2:
		// string[n][]
		i := strings.Index(typ, "[")
		a.typ, a.shape, a.count = typ[:i], strArr2, typ[i+1:strings.Index(typ, "]")]
	case strings.HasSuffix(typ, "[3]"):
		i := strings.Index(typ, "[")
		a.typ, a.shape, a.count = typ[:i], int2D, typ[i+1:strings.Index(typ, "]")]
	case strings.HasSuffix(typ, "]"):
		i := strings.Index(typ, "[")
		a.typ, a.shape, a.count = typ[:i], array, typ[i+1:len(typ)-1]
	default:
		a.typ = typ
	}
	if _, ok := wireTypes[a.typ]; !ok && a.typ != "string" && a.typ != "status" {
		return nil, fmt.Errorf("argument %q: unknown type %q", s, a.typ)
	}
	return a, nil
}

func readASCII(fsys fs.FS, name string, calls []*call) error {
	rows, err := readLines(fsys, name)
	if err != nil {
		return err
	}
	byName := map[string]*call{}
	for _, c := range calls {
		byName[c.name] = c
	}
	for _, r := range rows {
		c := byName[r[0]]
		if c == nil {
			return fmt.Errorf("%s: unknown call %q", name, r[0])
		}
		if len(r)-1 != len(c.args) {
			return fmt.Errorf("%s: %s lists %d fields, the call has %d", name, r[0], len(r)-1, len(c.args))
		}
		var order []*arg
		seen := map[string]bool{}
		for _, f := range r[1:] {
			w, p, _ := strings.Cut(f, "=")
			var found *arg
			for _, a := range c.args {
				if a.wire == w {
					found = a
				}
			}
			if found == nil || seen[w] {
				return fmt.Errorf("%s: %s: bad field %q", name, r[0], w)
			}
			seen[w] = true
			if p != "" {
				found.print = p
			}
			order = append(order, found)
		}
		c.order = order
	}
	return nil
}

// wireType describes a scalar wire type.
type wireType struct {
	goType string // Go type of the field
	size   int    // bytes on the wire
	read   string // wire.Dec method
	app    string // wire append function
	conv   string // Go type the wire value converts through
	kind   string // printer kind: int, int64, handle, enum, request, iorequest, src, dest, tag
	word   string // printed type word for handles
}

var wireTypes = map[string]wireType{
	"int":          {"int32", 4, "I32", "AppendI32", "int32", "int", ""},
	"int64":        {"int64", 8, "I64", "AppendI64", "int64", "int64", ""},
	"dest":         {"int32", 4, "I32", "AppendI32", "int32", "dest", ""},
	"source":       {"int32", 4, "I32", "AppendI32", "int32", "source", ""},
	"tag":          {"int32", 4, "I32", "AppendI32", "int32", "tag", ""},
	"errcode":      {"int32", 4, "I32", "AppendI32", "int32", "int", ""},
	"request":      {"Request", 4, "I32", "AppendI32", "int32", "request", "MPI_Request"},
	"iorequest":    {"IORequest", 4, "I32", "AppendI32", "int32", "request", "MPIO_Request"},
	"datatype":     {"Datatype", 2, "U16", "AppendU16", "uint16", "handle", "MPI_Datatype"},
	"comm":         {"Comm", 2, "U16", "AppendU16", "uint16", "handle", "MPI_Comm"},
	"group":        {"Group", 2, "U16", "AppendU16", "uint16", "handle", "MPI_Group"},
	"info":         {"Info", 2, "U16", "AppendU16", "uint16", "handle", "MPI_Info"},
	"file":         {"FileHandle", 2, "U16", "AppendU16", "uint16", "handle", "MPI_File"},
	"win":          {"Win", 2, "U16", "AppendU16", "uint16", "handle", "int"},
	"errhandler":   {"Errhandler", 2, "U16", "AppendU16", "uint16", "handle", "int"},
	"keyval":       {"Keyval", 2, "U16", "AppendU16", "uint16", "handle", "int"},
	"op":           {"Op", 1, "U8", "AppendU8", "uint8", "handle", "MPI_Op"},
	"combiner":     {"Combiner", 1, "U8", "AppendU8", "uint8", "handle", "int"},
	"comparison":   {"Comparison", 1, "U8", "AppendU8", "uint8", "handle", "int"},
	"distribution": {"Distribution", 1, "U8", "AppendU8", "uint8", "handle", "int"},
	"filemode":     {"FileMode", 1, "U8", "AppendU8", "uint8", "handle", "int"},
	"locktype":     {"LockType", 1, "U8", "AppendU8", "uint8", "handle", "int"},
	"ordering":     {"Ordering", 1, "U8", "AppendU8", "uint8", "handle", "int"},
	"threadlevel":  {"ThreadLevel", 1, "U8", "AppendU8", "uint8", "handle", "int"},
	"topology":     {"Topology", 1, "U8", "AppendU8", "uint8", "handle", "int"},
	"typeclass":    {"TypeClass", 1, "U8", "AppendU8", "uint8", "handle", "int"},
	"whence":       {"Whence", 1, "U8", "AppendU8", "uint8", "handle", "int"},
	"winassert":    {"WinAssert", 1, "U8", "AppendU8", "uint8", "handle", "int"},
}

func (a *arg) goType() string {
	switch a.typ {
	case "status":
		return "[]Status"
	case "string":
		switch a.shape {
		case scalar:
			return "[]byte"
		case strArr2:
			return "[][][]byte"
		default:
			return "[][]byte"
		}
	}
	t := wireTypes[a.typ].goType
	switch a.shape {
	case array:
		if a.legacy != "" {
			return "[]" + t
		}
		return "[]" + t
	case int2D:
		return "[][]" + t
	}
	return t
}

func (a *arg) doc() string {
	var s string
	switch a.shape {
	case scalar:
		s = a.typ
	case array:
		s = a.typ + "[" + a.count + "]"
	case strArgc:
		s = "argc strings"
	case strArr2:
		s = a.typ + "[" + a.count + "][]"
	case int2D:
		s = a.typ + "[" + a.count + "][3]"
	}
	if a.typ == "status" {
		s += "; present only when the record's mask has status bits"
	}
	if a.cond != "" {
		s += "; only when " + camel(a.cond) + " == " + camel(a.condRHS)
	}
	return s
}

type gen struct {
	bytes.Buffer
}

func (g *gen) p(format string, args ...any) {
	fmt.Fprintf(g, format, args...)
	g.WriteByte('\n')
}

const header = "// Code generated by dumpigen from calls.tsv, constants.tsv and ascii.tsv. DO NOT EDIT.\n\n"

func genCalls(calls []*call) ([]byte, error) {
	g := &gen{}
	g.WriteString(header)
	g.p("package dumpi\n")
	g.p("import (\n\"encoding/binary\"\n\n\"github.com/hpctrace/hpctrace/internal/wire\"\n)\n")
	g.p("// Function labels, the uint16 that starts every call record.")
	g.p("const (")
	for _, c := range calls {
		g.p("Label%s Label = %d // %s", c.goName, c.id, c.name)
	}
	g.p(")\n")
	g.p("// NumLabels is the number of labels, 0 through LabelEndOfStream.")
	g.p("const NumLabels = %d\n", len(calls))
	g.p("var labelNames = [NumLabels]string{")
	for _, c := range calls {
		g.p("%q,", c.name)
	}
	g.p("}\n")
	g.p("var labelGoNames = [NumLabels]string{")
	for _, c := range calls {
		g.p("%q,", c.goName)
	}
	g.p("}\n")

	// newArgs
	g.p("// newArgs returns a fresh argument struct for label l, or nil for the")
	g.p("// sentinels (ALL_FUNCTIONS, END_OF_STREAM) and labels out of range.")
	g.p("func newArgs(l Label) Args {")
	g.p("switch l {")
	for _, c := range calls {
		if c.kind == "sentinel" {
			continue
		}
		g.p("case %d: return new(%s)", c.id, c.goName)
	}
	g.p("}")
	g.p("return nil")
	g.p("}\n")

	for _, c := range calls {
		if c.kind == "sentinel" {
			continue
		}
		genCall(g, c)
	}
	return format.Source(g.Bytes())
}

// genRef writes the reference decoders: for each call a decodeRef method
// in the plain cursor-based form, which the tests compare with the fast
// decode methods on arbitrary input.
func genRef(calls []*call) ([]byte, error) {
	g := &gen{}
	g.WriteString(header)
	g.p("package dumpi\n")
	g.p("import \"encoding/binary\"\n")
	for _, c := range calls {
		if c.kind == "sentinel" {
			continue
		}
		recv := "a"
		if len(c.args) == 0 {
			recv = "_"
		}
		g.p("func (%s *%s) decodeRef(d *decoder) {", recv, c.goName)
		if len(c.args) == 0 {
			g.p("_ = d")
		}
		emitDecodeRef(g, c)
		emitAbsent(g, c)
		g.p("}\n")
	}
	return format.Source(g.Bytes())
}

func findArg(c *call, wire string) *arg {
	for _, a := range c.args {
		if a.wire == wire {
			return a
		}
	}
	return nil
}

func genCall(g *gen, c *call) {
	switch c.kind {
	case "no-record":
		g.p("// %s holds the arguments of %s (label %d). The tracer never writes", c.goName, c.name, c.id)
		g.p("// this label; a record of it has no arguments.")
	default:
		g.p("// %s holds the arguments of %s (label %d), in wire order.", c.goName, c.name, c.id)
	}
	g.p("type %s struct {", c.goName)
	for _, a := range c.args {
		g.p("%s %s // %s: %s", a.goName, a.goType(), a.wire, a.doc())
	}
	g.p("}\n")
	g.p("// Label returns %s.", "Label"+c.goName)
	g.p("func (*%s) Label() Label { return Label%s }\n", c.goName, c.goName)

	recv := "a"
	if len(c.args) == 0 {
		recv = "_"
	}
	// decode
	if len(c.args) == 0 {
		g.p("func (*%s) decode(_ *decoder, b []byte) []byte { return b }\n", c.goName)
	} else {
		g.p("func (a *%s) decode(d *decoder, b []byte) []byte {", c.goName)
		emitDecode(g, c)
		g.p("}\n")
	}
	// encode
	dRecv := "e"
	if len(c.args) == 0 {
		dRecv = "_"
	}
	g.p("func (%s *%s) encode(%s *encoder) {", recv, c.goName, dRecv)
	emitFields(g, c, nil, func(a *arg) { encodeArg(g, c, a) })
	g.p("}\n")
	// clone
	g.p("func (%s *%s) clone() Args {", recv, c.goName)
	if len(c.args) == 0 {
		g.p("return new(%s)", c.goName)
	} else {
		g.p("b := *a")
		for _, a := range c.args {
			switch {
			case a.typ == "string" && a.shape == scalar, a.shape == array, a.typ == "status":
				g.p("b.%s = cloneSlice(a.%s)", a.goName, a.goName)
			case a.shape == strArgc || (a.typ == "string" && a.shape == array):
				g.p("b.%s = cloneStrs(a.%s)", a.goName, a.goName)
			case a.shape == strArr2:
				g.p("b.%s = cloneStrLists(a.%s)", a.goName, a.goName)
			case a.shape == int2D:
				g.p("b.%s = cloneRows(a.%s)", a.goName, a.goName)
			}
		}
		g.p("return &b")
	}
	g.p("}\n")
	// ascii
	pRecv := "p"
	if len(c.args) == 0 {
		pRecv = "_"
	}
	g.p("func (%s *%s) appendASCII(b []byte, %s printer) []byte {", recv, c.goName, pRecv)
	for _, a := range c.order {
		asciiArg(g, c, a)
	}
	g.p("return b")
	g.p("}\n")
}

// fixedScalar reports whether a is a fixed-size scalar that can join a run
// decoded with one bounds check.
func fixedScalar(c *call, a *arg) bool {
	if a.shape != scalar || a.typ == "status" || a.typ == "string" {
		return false
	}
	return !(c.id == 124 && a.wire == "argc") // legacy hook follows it
}

// emitAbsent zeroes the conditional fields absent from the record.
func emitAbsent(g *gen, c *call) {
	var absent []*arg
	for _, a := range c.args {
		if a.cond != "" {
			absent = append(absent, a)
		}
	}
	if len(absent) == 0 {
		return
	}
	a0 := absent[0]
	g.p("if a.%s != a.%s {", camel(a0.cond), camel(a0.condRHS))
	for _, a := range absent {
		if strings.HasPrefix(a.goType(), "[]") {
			g.p("a.%s = a.%s[:0]", a.goName, a.goName)
		} else {
			g.p("a.%s = 0", a.goName)
		}
	}
	g.p("}")
}

// numArray reports whether a is an array of fixed-size numbers whose count
// prefix can join the run of scalars before it.
func numArray(a *arg) bool {
	return a.shape == array && a.legacy == "" && a.typ != "status" && a.typ != "string"
}

// emitDecode writes the body of a call's decode method. It decodes from
// b, the record bytes not yet consumed (a suffix of d.B), and returns the
// bytes after the arguments, or nil at the first error, which it leaves in
// d.Err. Each run of fixed-size scalars,
// together with the count of a numeric array that follows it, is read
// after one length check, with constant indexes that need no further
// bounds checks; the array's elements follow after one check of the count.
// Status lists take an inline path for the common empty list. The rare
// shapes (strings, int[n][3], legacy layouts) go through the decoder's
// cursor: d.Off is synchronised from b before them and b from d.Off after.
func emitDecode(g *gen, c *call) {
	needN, needOK := false, false
	for _, a := range c.args {
		switch {
		case numArray(a):
			needN = true
		case a.typ == "status":
			needOK = true
		}
	}
	if needN {
		g.p("var n int")
	}
	if needOK {
		g.p("var ok bool")
	}
	slow := false // d.Off, not b, is the cursor
	enterSlow := func() {
		if !slow {
			g.p("d.Off = len(d.B) - len(b)")
			slow = true
		}
	}
	leaveSlow := func() {
		if slow {
			g.p("if d.Err != nil {")
			g.p("return nil")
			g.p("}")
			g.p("b = d.B[d.Off:]")
			slow = false
		}
	}
	var run []*arg
	// flush emits the pending scalars and, when arr is not nil, the count
	// and elements of arr.
	flush := func(arr *arg) {
		if len(run) == 0 && arr == nil {
			return
		}
		leaveSlow()
		size := 0
		for _, a := range run {
			size += wireTypes[a.typ].size
		}
		total := size
		if arr != nil {
			total += 4
		}
		g.p("if len(b) < %d {", total)
		g.p("d.short()")
		g.p("return nil")
		g.p("}")
		assignRun(g, run)
		run = run[:0]
		if arr == nil {
			g.p("b = b[%d:]", size)
			return
		}
		w := wireTypes[arr.typ]
		f := "a." + arr.goName
		g.p("n = int(int32(binary.BigEndian.Uint32(b[%d:])))", size)
		g.p("b = b[%d:]", total)
		if w.size == 1 {
			g.p("if uint(n) > uint(len(b)) {")
		} else {
			g.p("if uint(n) > uint(len(b))/%d {", w.size)
		}
		g.p("d.badCount(n)")
		g.p("return nil")
		g.p("}")
		g.p("if cap(%s) < n {", f)
		g.p("%s = make([]%s, n)", f, w.goType)
		g.p("} else {")
		g.p("%s = %s[:n]", f, f)
		g.p("}")
		switch w.size {
		case 1:
			g.p("for i, s := 0, %s; i < len(s); i++ {", f)
			g.p("s[i] = %s(b[i])", w.goType)
			g.p("}")
			g.p("b = b[n:]")
		case 2:
			g.p("for i, s := 0, %s; i < len(s); i++ {", f)
			g.p("s[i] = %s(binary.BigEndian.Uint16(b))", w.goType)
			g.p("b = b[2:]")
			g.p("}")
		case 4:
			g.p("for i, s := 0, %s; i < len(s); i++ {", f)
			g.p("s[i] = %s(binary.BigEndian.Uint32(b))", w.goType)
			g.p("b = b[4:]")
			g.p("}")
		}
	}
	emitFields(g, c, func() { flush(nil); leaveSlow() }, func(a *arg) {
		switch {
		case fixedScalar(c, a):
			run = append(run, a)
		case numArray(a):
			flush(a)
		case a.typ == "status":
			flush(nil)
			leaveSlow()
			f := "a." + a.goName
			g.p("if !d.hasStatus {")
			g.p("%s = %s[:0]", f, f)
			g.p("} else if len(b) >= 4 && binary.BigEndian.Uint32(b) == 0 {")
			g.p("%s = %s[:0]", f, f)
			g.p("b = b[4:]")
			g.p("} else if b, ok = d.statusList(&%s, b); !ok {", f)
			g.p("return nil")
			g.p("}")
		default:
			flush(nil)
			enterSlow()
			decodeArg(g, c, a)
		}
	})
	flush(nil)
	emitAbsent(g, c)
	if slow {
		g.p("return d.B[d.Off:]")
	} else {
		g.p("return b")
	}
}

// emitDecodeRef writes the body of the reference decoder, the plain
// cursor-based form that calls_ref_gen_test.go keeps for comparing with
// the fast decoders. It walks the fields in wire order like emitFields,
// decoding each run of fixed-size scalars with a single bounds check.
// assignRun writes the assignments of a run of fixed-size arguments from
// the big-endian bytes of b, the first at offset 0, the others after it.
func assignRun(g *gen, run []*arg) {
	off := 0
	for _, a := range run {
		w := wireTypes[a.typ]
		var expr string
		switch w.size {
		case 1:
			expr = fmt.Sprintf("b[%d]", off)
		case 2:
			expr = fmt.Sprintf("binary.BigEndian.Uint16(b[%d:])", off)
		case 4:
			expr = fmt.Sprintf("binary.BigEndian.Uint32(b[%d:])", off)
		case 8:
			expr = fmt.Sprintf("binary.BigEndian.Uint64(b[%d:])", off)
		}
		g.p("a.%s = %s(%s)", a.goName, w.goType, expr)
		off += w.size
	}
}

func emitDecodeRef(g *gen, c *call) {
	var run []*arg
	flush := func() {
		if len(run) == 0 {
			return
		}
		size := 0
		for _, a := range run {
			size += wireTypes[a.typ].size
		}
		if len(run) == 1 {
			decodeArg(g, c, run[0])
			run = run[:0]
			return
		}
		g.p("if b := d.Next(%d); b != nil {", size)
		assignRun(g, run)
		g.p("}")
		run = run[:0]
	}
	emitFields(g, c, flush, func(a *arg) {
		if fixedScalar(c, a) {
			run = append(run, a)
			return
		}
		flush()
		decodeArg(g, c, a)
	})
	flush()
}

// emitFields walks the fields in wire order, wrapping each run of fields
// with the same condition in one if block. boundary, if not nil, is called
// before a block opens or closes, so that the caller can emit what it holds
// back (a run of fixed fields) on the right side of the brace.
func emitFields(g *gen, c *call, boundary func(), f func(a *arg)) {
	open := ""
	for _, a := range c.args {
		cond := ""
		if a.cond != "" {
			cond = "a." + camel(a.cond) + " == a." + camel(a.condRHS)
		}
		if cond != open {
			if boundary != nil {
				boundary()
			}
			if open != "" {
				g.p("}")
			}
			if cond != "" {
				g.p("if %s {", cond)
			}
			open = cond
		}
		f(a)
	}
	if open != "" {
		if boundary != nil {
			boundary()
		}
		g.p("}")
	}
}

func countExpr(c *call, a *arg) string {
	if a.count == "" {
		return "-1"
	}
	n := findArg(c, a.count)
	if n == nil {
		return "-1"
	}
	return "int(a." + n.goName + ")"
}

func decodeArg(g *gen, c *call, a *arg) {
	f := "a." + a.goName
	if a.typ == "status" {
		g.p("%s = d.statuses(%s[:0])", f, f)
		return
	}
	if a.typ == "string" {
		switch a.shape {
		case scalar:
			g.p("%s = d.str()", f)
		case array:
			g.p("%s = d.strs(%s[:0])", f, f)
		case strArgc:
			g.p("%s = d.strsN(%s[:0], %s)", f, f, countExpr(c, a))
		case strArr2:
			g.p("%s = d.strLists(%s[:0])", f, f)
		}
		return
	}
	w := wireTypes[a.typ]
	switch a.shape {
	case scalar:
		if w.goType == w.conv {
			g.p("%s = d.%s()", f, w.read)
		} else {
			g.p("%s = %s(d.%s())", f, w.goType, w.read)
		}
		if c.id == 124 && a.wire == "argc" {
			g.p("if d.initTwice { d.I32() }")
		}
	case array:
		fn := map[string]string{"I32": "int32s", "U16": "uint16s", "U8": "uint8s"}[w.read]
		if a.legacy != "" {
			g.p("if d.%s { %s = append(%s[:0], %s(d.I32())) } else {", a.legacy, f, f, w.goType)
			g.p("%s = %s(d, %s[:0])", f, fn, f)
			g.p("}")
		} else {
			g.p("%s = %s(d, %s[:0])", f, fn, f)
		}
	case int2D:
		g.p("%s = d.rows(%s[:0])", f, f)
	}
}

func encodeArg(g *gen, c *call, a *arg) {
	f := "a." + a.goName
	if a.typ == "status" {
		g.p("e.statuses(%s)", f)
		return
	}
	if a.typ == "string" {
		switch a.shape {
		case scalar:
			g.p("e.str(%s)", f)
		case array:
			g.p("e.strs(%s, true)", f)
		case strArgc:
			g.p("e.strs(%s, false)", f)
		case strArr2:
			g.p("e.strLists(%s)", f)
		}
		return
	}
	w := wireTypes[a.typ]
	switch a.shape {
	case scalar:
		if w.goType == w.conv {
			g.p("e.b = wire.%s(e.b, %s)", w.app, f)
		} else {
			g.p("e.b = wire.%s(e.b, %s(%s))", w.app, w.conv, f)
		}
		if c.id == 124 && a.wire == "argc" {
			g.p("if e.initTwice { e.b = wire.AppendI32(e.b, %s) }", f)
		}
	case array:
		fn := map[string]string{"I32": "putInt32s", "U16": "putUint16s", "U8": "putUint8s"}[w.read]
		if a.legacy != "" {
			g.p("if e.%s { e.b = wire.AppendI32(e.b, first(%s)) } else {", a.legacy, f)
			g.p("%s(e, %s)", fn, f)
			g.p("}")
		} else {
			g.p("%s(e, %s)", fn, f)
		}
	case int2D:
		g.p("e.rows(%s)", f)
	}
}

// lastSized returns the last array of c, in wire order, that the
// reference reader reads into the count field named wire: the reference's
// get32arr (and its 16- and 8-bit kin) stores an array's length into the
// field that sizes it, so that field prints as that length, not as the
// value recorded (an MPI_Waitsome of no requests records MPI_UNDEFINED
// as outcount and prints 0). Status lists, strings, rows and arrays that
// are conditional or were a scalar in old files leave the field alone.
func lastSized(c *call, wire string) *arg {
	var last *arg
	for _, b := range c.args {
		if b.count == wire && b.shape == array && b.typ != "status" && b.typ != "string" && b.cond == "" && b.legacy == "" {
			last = b
		}
	}
	return last
}

func asciiArg(g *gen, c *call, a *arg) {
	f := "a." + a.goName
	name := strconv.Quote(a.print)
	n := countExpr(c, a)
	if l := lastSized(c, a.count); a.count != "" && l != nil {
		n = "len(a." + l.goName + ")"
	}
	if l := lastSized(c, a.wire); a.shape == scalar && l != nil && wireTypes[a.typ].kind == "int" {
		g.p("b = p.int(b, %s, int32(len(a.%s)))", name, l.goName)
		return
	}
	if a.typ == "status" {
		if a.shape == scalar {
			g.p("b = p.status(b, %s, %s)", name, f)
		} else {
			g.p("b = p.statusArray(b, %s, %s, %s)", name, n, f)
		}
		return
	}
	if a.typ == "string" {
		switch a.shape {
		case scalar:
			g.p("b = p.str(b, %s, %s)", name, f)
		case array, strArgc:
			g.p("b = p.strArray(b, %s, %s, %s)", name, n, f)
		case strArr2:
			g.p("b = p.strLists(b, %s, %s, %s)", name, n, f)
		}
		return
	}
	if (c.id == 291 || c.id == 292) && a.wire == "fn" {
		g.p("b = p.fn(b, %s, %s)", name, f)
		return
	}
	w := wireTypes[a.typ]
	switch a.shape {
	case scalar:
		switch w.kind {
		case "int", "dest", "source", "tag":
			g.p("b = p.%s(b, %s, %s)", w.kind, name, f)
		case "int64":
			g.p("b = p.int64(b, %s, %s)", name, f)
		case "request":
			g.p("b = p.request(b, %q, %s, int32(%s))", w.word, name, f)
		case "handle":
			g.p("b = p.handle(b, %q, %s, int(%s), %s.String())", w.word, name, f, f)
		}
	case array:
		switch {
		case w.kind == "request":
			g.p("b = requestList(b, %q, %s, %s, %s)", w.word, name, n, f)
		case a.typ == "datatype" || a.typ == "info":
			g.p("b = plainList(b, %q, %s, %s, %s)", w.word, name, n, f)
		case a.typ == "distribution":
			g.p("b = plainList(b, \"int\", %s, %s, %s)", name, n, f)
		default:
			g.p("b = p.intArray(b, %s, %s, %s)", name, n, f)
		}
	case int2D:
		g.p("b = p.rows(b, %s, %s, %s)", name, n, f)
	}
}

// ---- constants ----

type constRow struct {
	kind, wire, value, symbol, meaning string
}

func readConstants(fsys fs.FS, name string) ([]constRow, error) {
	rows, err := readLines(fsys, name)
	if err != nil {
		return nil, err
	}
	var out []constRow
	for _, r := range rows {
		if len(r) != 5 {
			return nil, fmt.Errorf("%s: row %q: want 5 columns", name, r)
		}
		out = append(out, constRow{r[0], r[1], r[2], r[3], r[4]})
	}
	return out, nil
}

// handleKinds maps the constant kinds that become Go types to their type.
var handleKinds = map[string]string{
	"topology": "Topology", "combiner": "Combiner", "datatype": "Datatype",
	"file": "FileHandle", "info": "Info", "keyval": "Keyval", "op": "Op",
	"comparison": "Comparison", "group": "Group", "comm": "Comm",
	"request": "Request", "iorequest": "IORequest", "distribution": "Distribution",
	"errhandler": "Errhandler", "filemode": "FileMode", "locktype": "LockType",
	"ordering": "Ordering", "threadlevel": "ThreadLevel", "typeclass": "TypeClass",
	"win": "Win", "whence": "Whence", "winassert": "WinAssert",
}

func constName(r constRow) string {
	first, _, _ := strings.Cut(r.meaning, " ")
	if strings.HasPrefix(first, "MPI_") || strings.HasPrefix(first, "MPIO_") {
		return first
	}
	if r.kind == "iorequest" {
		return "DUMPIO_" + r.symbol
	}
	return "DUMPI_" + r.symbol
}

// noNameTable lists the kinds whose String method needs no name table.
var noNameTable = map[string]bool{"file": true, "info": true, "errhandler": true, "win": true, "winassert": true}

var maskNames = map[string]string{
	"STATUS_SUCCESS": "MaskStatusSuccess", "STATUS_ENABLE": "MaskStatusEnable",
	"TIME_CPU": "MaskCPUTime", "TIME_WALL": "MaskWallTime",
	"THREADID": "MaskThread", "PERFINFO": "MaskPerf",
}

func genConstants(rows []constRow) ([]byte, error) {
	g := &gen{}
	g.WriteString(header)
	g.p("package dumpi\n")
	kinds := map[string][]constRow{}
	var order []string
	for _, r := range rows {
		if _, ok := handleKinds[r.kind]; ok {
			if kinds[r.kind] == nil {
				order = append(order, r.kind)
			}
			kinds[r.kind] = append(kinds[r.kind], r)
		}
	}
	for _, k := range order {
		typ := handleKinds[k]
		g.p("// Predefined %s values (%s in constants.tsv).", typ, k)
		g.p("const (")
		names := map[int]string{}
		maxv := 0
		for _, r := range kinds[k] {
			v, err := strconv.Atoi(r.value)
			if err != nil {
				return nil, fmt.Errorf("constants: %q: %v", r.value, err)
			}
			if k == "winassert" && v < 0 {
				v &= 0xff
			}
			g.p("%s %s = %d // %s", constName(r), typ, v, r.meaning)
			if !strings.HasPrefix(r.symbol, "FIRST_USER") {
				names[v] = constName(r)
				maxv = max(maxv, v)
			}
		}
		g.p(")\n")
		if noNameTable[k] {
			continue
		}
		// name table for the predefined values
		var keys []int
		for v := range names {
			keys = append(keys, v)
		}
		sort.Ints(keys)
		g.p("var %sNames = map[int]string{", k)
		for _, v := range keys {
			g.p("%d: %q,", v, names[v])
		}
		g.p("}\n")
	}
	// untyped specials
	g.p("// Special rank, tag and error-code values stored in call records.")
	g.p("const (")
	for _, r := range rows {
		switch r.kind {
		case "rank", "tag", "errcode":
			if r.value == "native" {
				continue
			}
			g.p("%s = %s // %s", constName(r), r.value, r.meaning)
		}
	}
	g.p(")\n")
	g.p("// Mask bits of a call record.")
	g.p("const (")
	for _, r := range rows {
		if r.kind == "mask" {
			n, ok := maskNames[r.symbol]
			if !ok {
				return nil, fmt.Errorf("constants: unknown mask bit %q", r.symbol)
			}
			g.p("%s Mask = %s // %s", n, r.value, r.meaning)
		}
	}
	g.p(")\n")
	return format.Source(g.Bytes())
}

// A modelRole is a value of the model column: what a call means to the
// format-neutral model. The generated code calls rankModel.model<Role>
// with the call's fields; the role's semantics live there.
type modelRole struct {
	params   int    // number of field arguments
	root     int    // index of the root argument, which may be "-"; -1 if none
	class    string // the model.Class of a collective; "" for point-to-point
	unrooted string // the class when the root is "-"
}

var modelRoles = map[string]modelRole{
	"send":           {5, -1, "", ""},
	"ssend":          {5, -1, "", ""},
	"isend":          {6, -1, "", ""},
	"issend":         {6, -1, "", ""},
	"recv":           {6, -1, "", ""},
	"sendrecv":       {10, -1, "", ""},
	"irecv":          {6, -1, "", ""},
	"send_init":      {6, -1, "", ""},
	"ssend_init":     {6, -1, "", ""},
	"recv_init":      {6, -1, "", ""},
	"start":          {1, -1, "", ""},
	"startall":       {1, -1, "", ""},
	"cancel":         {1, -1, "", ""},
	"free":           {1, -1, "", ""},
	"wait":           {2, -1, "", ""},
	"test":           {3, -1, "", ""},
	"waitany":        {3, -1, "", ""},
	"testany":        {4, -1, "", ""},
	"waitall":        {2, -1, "", ""},
	"testall":        {3, -1, "", ""},
	"waitsome":       {3, -1, "", ""},
	"barrier":        {1, -1, "ClassBarrier", ""},
	"bcast":          {4, 2, "ClassOneToAll", ""},
	"reduce":         {4, 2, "ClassAllToOne", ""},
	"allreduce":      {3, -1, "ClassAllToAll", ""},
	"gather":         {6, 4, "ClassAllToOne", "ClassAllToAll"},
	"gatherv":        {6, 4, "ClassAllToOne", "ClassAllToAll"},
	"scatter":        {6, 4, "ClassOneToAll", ""},
	"scatterv":       {6, 4, "ClassOneToAll", ""},
	"alltoall":       {5, -1, "ClassAllToAll", ""},
	"alltoallv":      {5, -1, "ClassAllToAll", ""},
	"alltoallw":      {5, -1, "ClassAllToAll", ""},
	"reduce_scatter": {3, -1, "ClassAllToAll", ""},
}

// genModel writes model_gen.go: the dispatch of each call with a model
// role to its rankModel method, and the collective class of each label.
func genModel(calls []*call) ([]byte, error) {
	g := &gen{}
	g.WriteString(header)
	g.p("package dumpi\n")
	g.p("import \"github.com/hpctrace/hpctrace/model\"\n")
	g.p("// modelEvents queues the events the model column of calls.tsv gives the")
	g.p("// arguments a of a call (its messages, requests and collective) and")
	g.p("// reports whether the call is a collective.")
	g.p("func (rm *rankModel) modelEvents(e *callEnv, a Args) bool {")
	g.p("switch a := a.(type) {")
	classes := map[string][]string{}
	var order []string
	for _, c := range calls {
		if c.model == "-" {
			continue
		}
		role, rest, ok := strings.Cut(c.model, "(")
		params, ok2 := strings.CutSuffix(rest, ")")
		r, known := modelRoles[role]
		if !ok || !ok2 || !known {
			return nil, fmt.Errorf("calls.tsv: %s: model %q: want a known role(field,...)", c.name, c.model)
		}
		fields := strings.Split(params, ",")
		if len(fields) != r.params {
			return nil, fmt.Errorf("calls.tsv: %s: model %q: role %s takes %d fields", c.name, c.model, role, r.params)
		}
		var exprs []string
		class := r.class
		for i, f := range fields {
			if f == "-" && i == r.root {
				exprs = append(exprs, "-1")
				class = r.unrooted
				continue
			}
			a := findArg(c, f)
			if a == nil {
				return nil, fmt.Errorf("calls.tsv: %s: model %q: no field %q", c.name, c.model, f)
			}
			exprs = append(exprs, "a."+a.goName)
		}
		if r.class != "" && class == "" {
			return nil, fmt.Errorf("calls.tsv: %s: model %q: role %s needs a root", c.name, c.model, role)
		}
		g.p("case *%s:", c.goName)
		g.p("rm.model%s(e, %s)", camel(role), strings.Join(exprs, ", "))
		if class != "" {
			g.p("return true")
			if classes[class] == nil {
				order = append(order, class)
			}
			classes[class] = append(classes[class], "Label"+c.goName)
		}
	}
	g.p("}")
	g.p("return false")
	g.p("}\n")
	g.p("// collClass returns the class of the collective with label l, from the")
	g.p("// model column of calls.tsv; ClassUnknown for the other labels.")
	g.p("func collClass(l Label) model.Class {")
	g.p("switch l {")
	for _, class := range order {
		g.p("case %s:", strings.Join(classes[class], ", "))
		g.p("return model.%s", class)
	}
	g.p("}")
	g.p("return model.ClassUnknown")
	g.p("}")
	return format.Source(g.Bytes())
}
