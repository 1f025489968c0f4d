// Command otf2records generates the record code of package otf2 from the
// package's tables: records.tsv (every record with its type id, framing and
// typed fields), enums.tsv (every enumeration) and attic.tsv (the values of
// the obsolete Region.regionType and Group.groupTypePre12 bytes).
//
// Usage (from the otf2 directory, through go generate):
//
//	go run ../internal/gen/otf2records -dir .
//
// It writes records_gen.go: the event, snapshot and definition kinds, the
// wire layouts the table-driven decoder and encoder walk, one typed struct
// per record with its accessor, and the enumeration types with their String
// methods. The output depends only on the tables, so running it twice gives
// the same bytes; the package's tests regenerate it in memory and compare.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

func main() {
	dir := flag.String("dir", ".", "directory holding records.tsv, enums.tsv and attic.tsv; the output goes there too")
	flag.Parse()
	src, err := Generate(os.DirFS(*dir))
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(*dir, "records_gen.go"), src, 0o644); err != nil {
		log.Fatal(err)
	}
}

type field struct {
	name   string // wire name from the table
	goName string
	wire   string // u8, cu32, ...
	enum   string
	ref    string
	mapTo  string // OTF2_MAPPING_X suffix, "" if none
	since  string
	attic  bool
	clock  bool
	count  bool // array count; the following elems are its group
	elem   bool // member of an array group
	group  int  // for count: number of elem fields
}

type record struct {
	kind      string // globaldef, localdef, event, snapshot
	name      string
	id        int
	singleton bool
	fields    []field
}

type enumEntry struct {
	name  string
	value uint64
}

type enum struct {
	name    string
	wire    string
	entries []enumEntry
}

// Generate reads the tables from fsys and returns records_gen.go, gofmt-formatted.
func Generate(fsys fs.FS) ([]byte, error) {
	recs, err := readRecords(fsys)
	if err != nil {
		return nil, err
	}
	enums, err := readEnums(fsys)
	if err != nil {
		return nil, err
	}
	attic, atticEnums, err := readAttic(fsys)
	if err != nil {
		return nil, err
	}
	enums = append(enums, atticEnums...)
	g := &gen{enums: map[string]*enum{}}
	for _, e := range enums {
		g.enums[e.name] = e
	}
	g.header()
	g.enumCode(enums)
	g.kinds(recs)
	g.layouts(recs)
	g.typed(recs)
	g.lookups(recs)
	g.atticCode(attic)
	src, err := format.Source(g.b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("gofmt: %w", err)
	}
	return src, nil
}

func lines(fsys fs.FS, name string) ([][]string, error) {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, err
	}
	var out [][]string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		l := sc.Text()
		if l == "" {
			continue
		}
		out = append(out, strings.Split(l, "\t"))
	}
	return out, sc.Err()
}

func readRecords(fsys fs.FS) ([]*record, error) {
	rows, err := lines(fsys, "records.tsv")
	if err != nil {
		return nil, err
	}
	var recs []*record
	for i, r := range rows {
		if i == 0 {
			continue
		}
		if len(r) < 6 {
			return nil, fmt.Errorf("records.tsv:%d: %d columns", i+1, len(r))
		}
		switch r[0] {
		case "globaldef", "localdef", "event", "snapshot":
		default:
			continue // buffer, marker and thumbnail rows are handled by hand or not at all
		}
		id, err := strconv.Atoi(r[2])
		if err != nil {
			return nil, fmt.Errorf("records.tsv:%d: %w", i+1, err)
		}
		rec := &record{kind: r[0], name: r[1], id: id, singleton: r[4] == "singleton"}
		meta := map[string]string{}
		if len(r) > 6 {
			for _, m := range strings.Fields(r[6]) {
				k, v, _ := strings.Cut(m, "=")
				meta[k] = v
			}
		}
		if r[5] != "" {
			if err := parseFields(rec, r[5], meta); err != nil {
				return nil, fmt.Errorf("records.tsv:%d: %w", i+1, err)
			}
		}
		recs = append(recs, rec)
	}
	return recs, nil
}

func parseFields(rec *record, spec string, meta map[string]string) error {
	// Split at commas outside brackets.
	var parts []string
	depth, start := 0, 0
	for i, c := range spec {
		switch c {
		case '[':
			depth++
		case ']':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, spec[start:i])
				start = i + 1
			}
		}
	}
	parts = append(parts, spec[start:])
	mk := func(s string) (field, error) {
		n, w, ok := strings.Cut(s, ":")
		if !ok {
			return field{}, fmt.Errorf("bad field %q", s)
		}
		f := field{name: n, goName: export(n), wire: w}
		for _, m := range strings.Split(meta[n], "|") {
			k, v, _ := strings.Cut(m, "=")
			switch k {
			case "enum":
				f.enum = v
				if v == "GroupTypePre" {
					f.enum = "GroupTypePre12"
				}
			case "ref":
				f.ref = v
			case "map":
				f.mapTo = strings.TrimPrefix(v, "OTF2_MAPPING_")
			case "since":
				f.since = v
			case "attic":
				f.attic = true
			case "clockcorrected":
				f.clock = true
			}
		}
		// "origEventTime=clockcorrected" has no '='-separated value.
		if meta[n] == "clockcorrected" || strings.HasPrefix(meta[n], "clockcorrected") {
			f.clock = true
		}
		return f, nil
	}
	for _, p := range parts {
		if i := strings.IndexByte(p, '['); i >= 0 {
			cnt, err := mk(p[:i])
			if err != nil {
				return err
			}
			cnt.count = true
			elems := strings.Split(strings.TrimSuffix(p[i+1:], "]"), ";")
			cnt.group = len(elems)
			rec.fields = append(rec.fields, cnt)
			for _, e := range elems {
				f, err := mk(e)
				if err != nil {
					return err
				}
				f.elem = true
				rec.fields = append(rec.fields, f)
			}
			continue
		}
		f, err := mk(p)
		if err != nil {
			return err
		}
		rec.fields = append(rec.fields, f)
	}
	return nil
}

func export(s string) string {
	s = strings.ToUpper(s[:1]) + s[1:]
	for _, ini := range []string{"Id", "Ids"} {
		if strings.HasSuffix(s, ini) {
			s = strings.TrimSuffix(s, ini) + strings.ToUpper(ini[:2]) + ini[2:]
		}
	}
	s = strings.ReplaceAll(s, "IdMap", "IDMap")
	s = strings.ReplaceAll(s, "IDs", "IDs")
	return s
}

func readEnums(fsys fs.FS) ([]*enum, error) {
	rows, err := lines(fsys, "enums.tsv")
	if err != nil {
		return nil, err
	}
	var out []*enum
	byName := map[string]*enum{}
	for i, r := range rows {
		if i == 0 {
			continue
		}
		if len(r) < 4 {
			return nil, fmt.Errorf("enums.tsv:%d: %d columns", i+1, len(r))
		}
		e := byName[r[0]]
		if e == nil {
			e = &enum{name: r[0], wire: r[1]}
			byName[r[0]] = e
			out = append(out, e)
		}
		v, err := strconv.ParseUint(r[3], 10, 64)
		if err != nil {
			if r[3] == "!OTF2_FALSE" {
				v = 1
			} else {
				return nil, fmt.Errorf("enums.tsv:%d: %w", i+1, err)
			}
		}
		e.entries = append(e.entries, enumEntry{r[2], v})
	}
	return out, nil
}

type atticRow struct{ a, b, c, v int }

func readAttic(fsys fs.FS) (map[string][]atticRow, []*enum, error) {
	rows, err := lines(fsys, "attic.tsv")
	if err != nil {
		return nil, nil, err
	}
	tables := map[string][]atticRow{}
	cur := ""
	var enums []*enum
	byName := map[string]*enum{}
	for _, r := range rows {
		if strings.HasPrefix(r[0], "#") {
			switch {
			case strings.Contains(r[0], "regionType written"):
				cur = "region"
			case strings.Contains(r[0], "groupTypePre12 written"):
				cur = "group"
			case strings.Contains(r[0], "attic enums"):
				cur = "enums"
			}
			continue
		}
		if cur == "enums" {
			if r[0] == "enum" {
				continue
			}
			e := byName[r[0]]
			if e == nil {
				e = &enum{name: r[0], wire: "u8"}
				byName[r[0]] = e
				enums = append(enums, e)
			}
			v, err := strconv.ParseUint(r[2], 10, 64)
			if err != nil {
				return nil, nil, err
			}
			e.entries = append(e.entries, enumEntry{r[1], v})
			continue
		}
		if len(r) != 4 {
			continue
		}
		var x [4]int
		ok := true
		for i := range 4 {
			n, err := strconv.Atoi(r[i])
			if err != nil {
				ok = false // the column header line
				break
			}
			x[i] = n
		}
		if ok {
			tables[cur] = append(tables[cur], atticRow{x[0], x[1], x[2], x[3]})
		}
	}
	return tables, enums, nil
}

type gen struct {
	b     bytes.Buffer
	enums map[string]*enum
}

func (g *gen) p(format string, args ...any) { fmt.Fprintf(&g.b, format, args...); g.b.WriteByte('\n') }

func (g *gen) header() {
	g.p("// Code generated by otf2records from records.tsv, enums.tsv and attic.tsv; DO NOT EDIT.")
	g.p("")
	g.p("package otf2")
	g.p("")
	g.p("import \"math\"")
	g.p("")
}

func isFlags(e *enum) bool {
	return strings.HasSuffix(e.name, "Flag") || e.name == "RmaSyncLevel"
}

// enumPrefix is the common prefix of the entries up to and including its last '_'.
func enumPrefix(e *enum) string {
	p := e.entries[0].name
	for _, x := range e.entries[1:] {
		for !strings.HasPrefix(x.name, p) {
			p = p[:len(p)-1]
		}
	}
	if i := strings.LastIndexByte(p, '_'); i >= 0 {
		p = p[:i+1]
	}
	if len(e.entries) == 1 {
		// a single entry: drop OTF2_ and the enum's own name (IO_PARADIGM_PROPERTY_)
		var b strings.Builder
		for i, r := range e.name {
			if i > 0 && r >= 'A' && r <= 'Z' {
				b.WriteByte('_')
			}
			b.WriteRune(r)
		}
		p = "OTF2_" + strings.ToUpper(b.String()) + "_"
		if !strings.HasPrefix(e.entries[0].name, p) {
			p = "OTF2_"
		}
	}
	return p
}

func camel(s string) string {
	var b strings.Builder
	for _, w := range strings.Split(strings.ToLower(s), "_") {
		if w == "" {
			continue
		}
		switch w {
		case "mpi", "cpu", "io", "os", "id", "rma", "gpu", "hip", "upc", "tbb", "omp", "papi", "cuda", "hmpp", "mtapi", "gaspi", "shmem":
			b.WriteString(strings.ToUpper(w))
			continue
		}
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	return b.String()
}

func (g *gen) enumCode(enums []*enum) {
	g.p("func enumTable(name string) ([]enumName, bool, bool) {")
	g.p("\tswitch name {")
	for _, e := range enums {
		g.p("\tcase %q:", e.name)
		g.p("\t\treturn names%s[:], %v, true", e.name, isFlags(e))
	}
	g.p("\t}")
	g.p("\treturn nil, false, false")
	g.p("}")
	g.p("")
	for _, e := range enums {
		base := "uint8"
		if e.wire == "cu32" {
			base = "uint32"
		}
		pre := enumPrefix(e)
		if isFlags(e) {
			g.p("// %s is the OTF2 flag set OTF2_%s (a bit set on the wire).", e.name, e.name)
		} else {
			g.p("// %s is the OTF2 enumeration OTF2_%s.", e.name, e.name)
		}
		g.p("type %s %s", e.name, base)
		g.p("")
		g.p("// Values of %s.", e.name)
		g.p("const (")
		seen := map[string]bool{}
		for _, x := range e.entries {
			c := e.name + camel(strings.TrimPrefix(x.name, pre))
			if seen[c] {
				continue
			}
			seen[c] = true
			g.p("\t%s %s = %d // %s", c, e.name, x.value, x.name)
		}
		g.p(")")
		g.p("")
		// names table
		g.p("var names%s = [...]enumName{", e.name)
		for _, x := range e.entries {
			g.p("\t{%d, %q},", x.value, strings.TrimPrefix(x.name, pre))
		}
		g.p("}")
		g.p("")
		if isFlags(e) {
			g.p("// String returns NONE for the empty set, else the names of the set bits")
			g.p("// in ascending order as {A, B}; unknown bits print as INVALID <n>.")
			g.p("func (v %s) String() string { return flagString(uint64(v), names%s[:]) }", e.name, e.name)
		} else {
			g.p("// String returns the value's name without the OTF2 prefix, or INVALID <n>.")
			g.p("func (v %s) String() string { return enumString(uint64(v), names%s[:]) }", e.name, e.name)
		}
		g.p("")
	}
}

func kindConst(r *record) string {
	switch r.kind {
	case "event":
		return "Kind" + r.name
	case "snapshot":
		return "SnapKind" + r.name
	}
	return "DefKind" + r.name
}

func (g *gen) kinds(recs []*record) {
	g.p("// Event kinds; the value is the record's type id in event files.")
	g.p("const (")
	for _, r := range recs {
		if r.kind == "event" {
			g.p("\t%s Kind = %d", kindConst(r), r.id)
		}
	}
	g.p(")")
	g.p("")
	g.p("// Snapshot kinds; the value is the record's type id in snapshot files.")
	g.p("const (")
	for _, r := range recs {
		if r.kind == "snapshot" {
			g.p("\t%s SnapKind = %d", kindConst(r), r.id)
		}
	}
	g.p(")")
	g.p("")
	g.p("// Definition kinds, global and local. A DefKind is not a type id: global")
	g.p("// and local files give the ids 5 and 6 different meanings ([DefKind.TypeID]).")
	g.p("const (")
	g.p("\tDefKindUnknown DefKind = iota")
	seen := map[string]bool{}
	for _, r := range recs {
		if (r.kind == "globaldef" || r.kind == "localdef") && !seen[r.name] {
			seen[r.name] = true
			g.p("\t%s", kindConst(r))
		}
	}
	g.p("\tnumDefKinds // number of definition kinds")
	g.p(")")
	g.p("")
}

var wireConst = map[string]string{
	"u8": "wU8", "i8": "wI8", "u16": "wU16", "i16": "wI16", "u64": "wU64", "f32": "wF32", "f64": "wF64",
	"cu32": "wCU32", "ci32": "wCI32", "cu64": "wCU64", "ci64": "wCI64", "str": "wStr",
	"attrvalue": "wAttr", "metricvalue": "wMetric", "idmap": "wIDMap",
}

func (g *gen) layoutLit(r *record) string {
	var b strings.Builder
	fmt.Fprintf(&b, "{name: %q, id: %d, singleton: %v, fields: []FieldInfo{", r.name, r.id, r.singleton)
	si, ei := 0, 0
	for _, f := range r.fields {
		slot := si
		switch {
		case f.elem:
			slot = ei
			ei++
		case f.wire == "str" || f.wire == "idmap":
			slot = -1
		default:
			si++
		}
		w, ok := wireConst[f.wire]
		if !ok {
			panic("wire type " + f.wire)
		}
		mt := "noMap"
		if f.mapTo != "" {
			mt = "MappingType" + camel(f.mapTo)
		}
		since := 0
		if f.since != "" {
			maj, mnr, _ := strings.Cut(f.since, ".")
			a, _ := strconv.Atoi(maj)
			c, _ := strconv.Atoi(mnr)
			since = a*10 + c
		}
		fmt.Fprintf(&b, "\n{name: %q, wire: %s, slot: %d, mapping: %s, ref: %q, enum: %q, since: %d, attic: %v, clock: %v, count: %v, elem: %v, group: %d},",
			f.name, w, slot, mt, f.ref, f.enum, since, f.attic, f.clock, f.count, f.elem, f.group)
	}
	b.WriteString("}}")
	return b.String()
}

func (g *gen) layouts(recs []*record) {
	g.p("var eventLayouts = [256]*layout{")
	for _, r := range recs {
		if r.kind == "event" {
			g.p("\t%d: %s,", r.id, g.layoutLit(r))
		}
	}
	g.p("}")
	g.p("")
	g.p("var snapLayouts = [256]*layout{")
	for _, r := range recs {
		if r.kind == "snapshot" {
			g.p("\t%d: %s,", r.id, g.layoutLit(r))
		}
	}
	g.p("}")
	g.p("")
	g.p("// defLayouts is indexed by DefKind.")
	g.p("var defLayouts = [numDefKinds]*layout{")
	seen := map[string]bool{}
	for _, r := range recs {
		if (r.kind == "globaldef" || r.kind == "localdef") && !seen[r.name] {
			seen[r.name] = true
			g.p("\t%s: %s,", kindConst(r), g.layoutLit(r))
		}
	}
	g.p("}")
	g.p("")
	for _, k := range []string{"globaldef", "localdef"} {
		g.p("var %sKinds = [256]DefKind{", strings.TrimSuffix(k, "def"))
		for _, r := range recs {
			if r.kind == k {
				g.p("\t%d: %s,", r.id, kindConst(r))
			}
		}
		g.p("}")
		g.p("")
	}
	g.p("var defIsGlobal = [numDefKinds]bool{")
	for _, r := range recs {
		if r.kind == "globaldef" {
			g.p("\t%s: true,", kindConst(r))
		}
	}
	g.p("}")
	g.p("")
}

func (g *gen) goType(f field) string {
	if f.enum != "" {
		if _, ok := g.enums[f.enum]; ok {
			if f.elem {
				return "[]uint64"
			}
			return f.enum
		}
	}
	if f.elem {
		return "[]uint64"
	}
	switch f.wire {
	case "u8":
		return "uint8"
	case "i8":
		return "int8"
	case "u16":
		return "uint16"
	case "i16":
		return "int16"
	case "u64", "cu64", "metricvalue", "attrvalue":
		return "uint64"
	case "cu32":
		return "uint32"
	case "ci32":
		return "int32"
	case "ci64":
		return "int64"
	case "f32":
		return "float32"
	case "f64":
		return "float64"
	case "str":
		return "string"
	case "idmap":
		return "IDMap"
	}
	panic(f.wire)
}

func (g *gen) conv(f field, v string) string {
	t := g.goType(f)
	switch t {
	case "float64":
		return "math.Float64frombits(" + v + ")"
	case "float32":
		return "math.Float32frombits(uint32(" + v + "))"
	case "uint64":
		return v
	}
	return t + "(" + v + ")"
}

func (g *gen) typed(recs []*record) {
	seen := map[string]bool{}
	for _, r := range recs {
		var tname, recv, kconst string
		switch r.kind {
		case "event":
			tname, recv, kconst = r.name, "Event", kindConst(r)
		case "snapshot":
			tname, recv, kconst = "Snap"+r.name, "Snapshot", kindConst(r)
		default:
			if seen[r.name] {
				continue
			}
			seen[r.name] = true
			tname, recv, kconst = "Def"+r.name, "Def", kindConst(r)
		}
		g.p("// %s holds the fields of the %s record (type id %d).", tname, r.name, r.id)
		if r.kind == "event" {
			g.p("// Ids are the global ones (translated through the location's mapping")
			g.p("// tables); [Event.RawValue] gives the stored ones.")
		}
		g.p("type %s struct {", tname)
		for _, f := range r.fields {
			comment := ""
			switch {
			case f.ref != "":
				comment = " // reference to a " + f.ref + " definition"
			case f.elem:
				comment = " // one value per element; " + f.wire
				if f.enum != "" {
					comment += " holding " + f.enum + " values"
				}
			case f.wire == "attrvalue":
				comment = " // the value's bits, typed by the preceding Type field"
			case f.wire == "metricvalue":
				comment = " // the value's bits"
			}
			if f.attic {
				comment += " (obsolete: still written, replaced by newer fields)"
			}
			if f.clock {
				comment += " (clock-corrected)"
			}
			if comment != "" && !strings.HasPrefix(comment, " //") {
				comment = " //" + comment
			}
			g.p("\t%s %s%s", f.goName, g.goType(f), comment)
		}
		g.p("}")
		g.p("")
		acc := r.name
		g.p("// %s returns the record's fields if it is a %s record.", acc, r.name)
		if hasElems(r) {
			g.p("// The slices are owned by the record: valid as long as it is.")
		}
		g.p("func (x *%s) %s() (%s, bool) {", recv, acc, tname)
		g.p("\tif x.Kind != %s {", kconst)
		g.p("\t\treturn %s{}, false", tname)
		g.p("\t}")
		g.p("\treturn %s{", tname)
		si, ei := 0, 0
		for _, f := range r.fields {
			switch {
			case f.elem:
				g.p("\t\t%s: x.arrs[%d],", f.goName, ei)
				ei++
			case f.wire == "str":
				g.p("\t\t%s: x.str(),", f.goName)
			case f.wire == "idmap":
				g.p("\t\t%s: x.idMap,", f.goName)
			default:
				g.p("\t\t%s: %s,", f.goName, g.conv(f, fmt.Sprintf("x.vals[%d]", si)))
				si++
			}
		}
		g.p("\t}, true")
		g.p("}")
		g.p("")
	}
}

func hasElems(r *record) bool {
	for _, f := range r.fields {
		if f.elem {
			return true
		}
	}
	return false
}

func (g *gen) atticCode(t map[string][]atticRow) {
	g.p("// atticRegionType gives Region.regionType for (paradigm, role, dynamic flag).")
	g.p("var atticRegionType = map[[3]uint8]RegionType{")
	keys := t["region"]
	sort.SliceStable(keys, func(i, j int) bool { return false })
	for _, r := range keys {
		g.p("\t{%d, %d, %d}: %d,", r.a, r.b, r.c, r.v)
	}
	g.p("}")
	g.p("")
	g.p("// atticGroupType gives Group.groupTypePre12 for (groupType, paradigm, global-members flag); rows with value 0 are left out.")
	g.p("var atticGroupType = map[[3]uint8]GroupTypePre12{")
	for _, r := range t["group"] {
		if r.v != 0 {
			g.p("\t{%d, %d, %d}: %d,", r.a, r.b, r.c, r.v)
		}
	}
	g.p("}")
}

func (g *gen) lookups(recs []*record) {
	seen := map[string]bool{}
	for _, r := range recs {
		if r.kind != "globaldef" || seen[r.name] || len(r.fields) == 0 || r.fields[0].name != "self" {
			continue
		}
		seen[r.name] = true
		t := g.goType(r.fields[0])
		g.p("// %s returns the %s definition with id id.", r.name, r.name)
		g.p("func (d *Defs) %s(id %s) (Def%s, bool) {", r.name, t, r.name)
		g.p("\tx, ok := d.Lookup(%s, uint64(id))", kindConst(r))
		g.p("\tif !ok {")
		g.p("\t\treturn Def%s{}, false", r.name)
		g.p("\t}")
		g.p("\treturn x.%s()", r.name)
		g.p("}")
		g.p("")
	}
}
