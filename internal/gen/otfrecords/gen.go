// Package otfrecords turns the OTF record table (records.tsv of package
// otf) into Go source, records_gen.go: the record kinds, one typed struct
// per record kind with its accessor and setter on otf.Record, and the
// field table the reader and writer share.
//
// It is used by the otfgen command (go generate) and by the staleness test
// of package otf, which regenerates in memory and compares.
package otfrecords

import (
	"bytes"
	"fmt"
	"go/format"
	"io/fs"
	"strings"
)

// File is one generated file.
type File struct {
	Name string
	Data []byte
}

// Generate reads records.tsv from fsys and returns the generated file,
// gofmt-formatted. The output depends only on the table.
func Generate(fsys fs.FS) ([]File, error) {
	data, err := fs.ReadFile(fsys, "records.tsv")
	if err != nil {
		return nil, err
	}
	kinds, err := parse(data)
	if err != nil {
		return nil, err
	}
	src, err := generate(kinds)
	if err != nil {
		return nil, err
	}
	return []File{{"records_gen.go", src}}, nil
}

type field struct {
	name   string // tsv name
	goName string
	typ    string // u8 u32 u64 str list mlist ver kv
	kws    []string
	opt    bool
	slot   int // slot index within its storage class
}

type kind struct {
	category string
	name     string
	goName   string
	file     string
	short    string
	long     string
	readonly bool
	notes    string
	fields   []field
}

var kindNames = map[string]string{
	"def/definition_comment":               "DefComment",
	"def/key_definition":                   "DefKeyValue",
	"def/scl":                              "DefSCL",
	"def/scl_file":                         "DefSCLFile",
	"def/unique_id":                        "DefUniqueID",
	"def/collective_operation":             "DefCollOp",
	"def/process_or_group_attributes":      "DefProcessOrGroupAttributes",
	"event/noop":                           "NoOp",
	"event/rma_put":                        "RMAPut",
	"event/rma_put_remote_end":             "RMAPutRemoteEnd",
	"event/rma_get":                        "RMAGet",
	"event/rma_end":                        "RMAEnd",
	"event/collective_operation":           "CollOp",
	"event/begin_collective_operation":     "BeginCollOp",
	"event/end_collective_operation":       "EndCollOp",
	"event/file_operation":                 "FileOp",
	"event/begin_file_operation":           "BeginFileOp",
	"event/end_file_operation":             "EndFileOp",
	"event/begin_file_operation_old":       "BeginFileOpOld",
	"event/end_file_operation_old":         "EndFileOpOld",
	"event/send":                           "Send",
	"event/receive":                        "Receive",
	"snapshot/begin_collop_snapshot":       "BeginCollOpSnapshot",
	"snapshot/begin_fileop_snapshot":       "BeginFileOpSnapshot",
	"snapshot/collop_count_snapshot":       "CollOpCountSnapshot",
	"summary/collop_summary":               "CollOpSummary",
	"summary/file_operation_summary":       "FileOpSummary",
	"summary/file_group_operation_summary": "FileGroupOpSummary",
	"marker/def_marker":                    "DefMarker",
	"marker/marker_spot":                   "MarkerSpot",
	"state/time":                           "Time",
	"state/process":                        "Process",
	"keyvalue/keyvalue_pair":               "KeyValue",
	"master/stream_map":                    "StreamMap",
}

var fieldNames = map[string]string{
	"attr_list":        "AttrList",
	"sclfile":          "SCLFile",
	"scl":              "SCL",
	"uid":              "UID",
	"collop":           "CollOp",
	"matching_id":      "MatchingID",
	"originaltime":     "OriginalTime",
	"n_open":           "NumOpen",
	"n_close":          "NumClose",
	"n_read":           "NumRead",
	"n_write":          "NumWrite",
	"n_seek":           "NumSeek",
	"procs_or_groups":  "ProcsOrGroups",
	"ticks_per_second": "TicksPerSecond",
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

func parse(data []byte) ([]kind, error) {
	var kinds []kind
	for ln, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "category\t") {
			continue
		}
		c := strings.Split(line, "\t")
		if len(c) < 8 {
			return nil, fmt.Errorf("line %d: %d columns, want 8", ln+1, len(c))
		}
		k := kind{category: c[0], name: c[1], file: c[2], short: c[3], long: c[4], readonly: c[6] == "yes", notes: c[7]}
		key := k.category + "/" + k.name
		if n, ok := kindNames[key]; ok {
			k.goName = n
		} else {
			switch k.category {
			case "def":
				k.goName = "Def" + camel(k.name)
			default:
				k.goName = camel(k.name)
			}
		}
		nslot, sslot := 0, 0
		if c[5] != "" {
			for _, f := range strings.Split(c[5], ";") {
				p := strings.SplitN(f, ":", 3)
				if len(p) != 3 {
					return nil, fmt.Errorf("line %d: bad field %q", ln+1, f)
				}
				fd := field{name: p[0], typ: p[1]}
				kw := p[2]
				if strings.HasSuffix(kw, "?") {
					fd.opt = true
					kw = strings.TrimSuffix(kw, "?")
				}
				if kw != "-" && kw != "" && fd.typ != "mlist" {
					fd.kws = strings.Split(kw, "/")
				}
				if n, ok := fieldNames[fd.name]; ok {
					fd.goName = n
				} else {
					fd.goName = camel(fd.name)
				}
				switch fd.typ {
				case "u32", "u64", "kv":
					fd.slot = nslot
					nslot++
				case "str":
					fd.slot = sslot
					sslot++
				case "list", "mlist":
				case "ver":
					fd.slot = nslot
					nslot += 3
					sslot++
				default:
					return nil, fmt.Errorf("line %d: unknown type %q", ln+1, fd.typ)
				}
				k.fields = append(k.fields, fd)
			}
		}
		kinds = append(kinds, k)
	}
	return kinds, nil
}

func hasStruct(k kind) bool {
	switch k.category {
	case "state", "keyvalue", "master":
		return false
	}
	return true
}

var fileClass = map[string]string{
	"def": "classDef", "events": "classEvents", "snaps": "classSnaps", "stats": "classStats",
	"marker": "classMarker", "any": "classAny", "otf": "classMaster", "events,snaps,stats": "classAny",
}

var typeCode = map[string]string{
	"u32": "tU32", "u64": "tU64", "str": "tStr", "list": "tList", "mlist": "tList", "ver": "tVer", "kv": "tKV",
}

func generate(kinds []kind) ([]byte, error) {
	var b bytes.Buffer
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("// Code generated by otfgen from records.tsv; DO NOT EDIT.\n\npackage otf\n\n")

	p("// Record kinds, one per row of records.tsv.\nconst (\n")
	p("\t// KindUnknown is a line whose keyword the reader does not know (lenient mode).\n\tKindUnknown Kind = iota\n")
	for _, k := range kinds {
		kw := k.short
		if k.long != "-" && k.long != k.short {
			kw += ", " + k.long
		}
		p("\t// Kind%s is the %s record (%s).\n\tKind%s\n", k.goName, strings.ReplaceAll(k.name, "_", " "), kw, k.goName)
	}
	p("\tnumKinds\n)\n\n")

	p("var kindNames = [numKinds]string{\n\tKindUnknown: \"Unknown\",\n")
	for _, k := range kinds {
		p("\tKind%s: %q,\n", k.goName, k.goName)
	}
	p("}\n\n")

	p("var kindSpecs = [numKinds]kindSpec{\n")
	for _, k := range kinds {
		numeric := len(k.fields) > 0
		optTail := len(k.fields)
		for _, f := range k.fields {
			if f.typ != "u32" && f.typ != "u64" {
				numeric = false
			}
		}
		for i := len(k.fields) - 1; i >= 0 && k.fields[i].opt; i-- {
			optTail = i
		}
		p("\tKind%s: {short: %q, long: %q, class: %s, readonly: %v, numeric: %v, optTail: %d, fields: []fieldSpec{", k.goName,
			strings.TrimPrefix(k.short, "-"), strings.TrimPrefix(k.long, "-"), fileClass[k.file], k.readonly, numeric, optTail)
		for i, f := range k.fields {
			if i > 0 {
				p(", ")
			}
			kws := "nil"
			if len(f.kws) > 0 {
				kws = fmt.Sprintf("%#v", f.kws)
			}
			p("{typ: %s, slot: %d, opt: %v, kws: %s}", typeCode[f.typ], f.slot, f.opt, kws)
		}
		p("}},\n")
	}
	p("}\n\n")

	// Keyword lookup per file class.
	classes := []struct{ name, fn string }{
		{"def", "lookupDef"}, {"events", "lookupEvents"}, {"snaps", "lookupSnaps"},
		{"stats", "lookupStats"}, {"marker", "lookupMarker"},
	}
	for _, c := range classes {
		p("func %s(kw []byte) Kind {\n\tswitch string(kw) {\n", c.fn)
		for _, k := range kinds {
			in := k.file == c.name || (c.name == "events" && k.file == "snaps")
			if !in {
				continue
			}
			if k.short == k.long || k.long == "-" {
				p("\tcase %q:\n\t\treturn Kind%s\n", k.short, k.goName)
			} else {
				p("\tcase %q, %q:\n\t\treturn Kind%s\n", k.short, k.long, k.goName)
			}
		}
		p("\t}\n\treturn KindUnknown\n}\n\n")
	}

	for _, k := range kinds {
		if !hasStruct(k) {
			continue
		}
		kw := k.short
		if k.long != k.short {
			kw += " or " + k.long
		}
		p("// %s is the body of a %s record (%s).", k.goName, strings.ReplaceAll(k.name, "_", " "), kw)
		if k.notes != "" {
			p("\n// Notes from the format table: %s.", strings.TrimSuffix(k.notes, "."))
		}
		if k.readonly {
			p("\n// The 1.12.5 writer no longer produces it; the reader accepts it.")
		}
		p("\ntype %s struct {\n", k.goName)
		for _, f := range k.fields {
			switch f.typ {
			case "u32":
				p("\t%s uint32\n", f.goName)
			case "u64":
				p("\t%s uint64\n", f.goName)
			case "str":
				p("\t%s []byte\n", f.goName)
			case "list", "mlist":
				p("\t%s []uint32\n", f.goName)
			case "ver":
				p("\tMajor, Minor, Sub uint8\n\tName []byte\n")
			}
		}
		p("}\n\n")
		p("// %s returns the body of a Kind%s record and true, or the zero value and\n// false for another kind. Its slices are owned like the Record's.\n", k.goName, k.goName)
		p("func (r *Record) %s() (%s, bool) {\n\tif r.Kind != Kind%s {\n\t\treturn %s{}, false\n\t}\n\treturn %s{", k.goName, k.goName, k.goName, k.goName, k.goName)
		for i, f := range k.fields {
			if i > 0 {
				p(", ")
			}
			switch f.typ {
			case "u32":
				p("%s: uint32(r.num[%d])", f.goName, f.slot)
			case "u64":
				p("%s: r.num[%d]", f.goName, f.slot)
			case "str":
				p("%s: r.str[%d]", f.goName, f.slot)
			case "list", "mlist":
				p("%s: r.list", f.goName)
			case "ver":
				p("Major: uint8(r.num[%d]), Minor: uint8(r.num[%d]), Sub: uint8(r.num[%d]), Name: r.str[%d]", f.slot, f.slot+1, f.slot+2, 0)
			}
		}
		p("}, true\n}\n\n")
		p("// Set%s makes r a Kind%s record with body v. It keeps r's Stream, Time,\n// Process and key-value list and retains v's slices.\n", k.goName, k.goName)
		p("func (r *Record) Set%s(v %s) {\n\tr.setKind(Kind%s)\n", k.goName, k.goName, k.goName)
		for _, f := range k.fields {
			switch f.typ {
			case "u32", "u64":
				p("\tr.num[%d] = uint64(v.%s)\n", f.slot, f.goName)
			case "str":
				p("\tr.str[%d] = v.%s\n", f.slot, f.goName)
			case "list", "mlist":
				p("\tr.list = v.%s\n", f.goName)
			case "ver":
				p("\tr.num[%d], r.num[%d], r.num[%d] = uint64(v.Major), uint64(v.Minor), uint64(v.Sub)\n\tr.str[0] = v.Name\n", f.slot, f.slot+1, f.slot+2)
			}
		}
		p("}\n\n")
	}
	return format.Source(b.Bytes())
}
