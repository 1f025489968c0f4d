package main

import (
	"bufio"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/hpctrace/hpctrace/internal/termsafe"
	"github.com/hpctrace/hpctrace/otf2"
)

// item is one "Label: {field:mod:arg}" of a line format.
type item struct {
	prefix string // text before the field (", " and the label)
	field  int    // index in the kind's fields, -1 for none
	mod    string
	arg    int          // index of the field named by the modifier's argument
	word   string       // plural word for refs
	kind   otf2.DefKind // the referenced definition kind (refKinds), 0 if none
	plain  bool         // a number printed in decimal
	named  bool         // a reference printed by name ("name" <id>) through refK
}

type format struct {
	items  []item
	suffix string
}

// compile parses a line format against a kind's fields.
func compile(spec string, fields []otf2.FieldInfo) (format, error) {
	idx := func(name string) (int, error) {
		for i := range fields {
			if fields[i].Name() == name {
				return i, nil
			}
		}
		return -1, fmt.Errorf("no field %q", name)
	}
	var f format
	rest := spec
	for {
		i := strings.IndexByte(rest, '{')
		if i < 0 {
			f.suffix = rest
			return f, nil
		}
		j := strings.IndexByte(rest[i:], '}')
		if j < 0 {
			return f, fmt.Errorf("unclosed {")
		}
		parts := strings.Split(rest[i+1:i+j], ":")
		it := item{prefix: rest[:i], arg: -1}
		var err error
		if it.field, err = idx(parts[0]); err != nil {
			return f, err
		}
		if len(parts) > 1 {
			it.mod = parts[1]
		}
		if len(parts) > 2 {
			if it.mod == "refs" {
				it.word = parts[2]
			} else if it.arg, err = idx(parts[2]); err != nil {
				return f, err
			}
		}
		fi := &fields[it.field]
		it.kind = refKinds[fi.Ref()]
		it.plain = fi.Enum() == "" && fi.Ref() == "" && !fi.Wire().Float()
		it.named = it.kind != 0 && fi.Ref() != "Metric" && fi.Ref() != "Callpath"
		f.items = append(f.items, it)
		rest = rest[i+j+1:]
	}
}

// printer writes otf2-print's text for one archive.
type printer struct {
	w          *bufio.Writer
	a          *otf2.Archive
	defs       *otf2.Defs
	offsetMode bool
	globalOff  uint64
	evFmt      [256]*format
	defFmt     map[otf2.DefKind]*format
	refs       map[refKey]string
	dense      [256][]string
	ranks      map[[2]uint64]string
	rankDense  [][]string   // ranks for small communicator ids and ranks: [comm][rank]
	metrics    []metricInfo // by metric id, for small ids
	labels     [256][]byte  // event labels padded to 32 columns and a blank
	b          []byte
	num        [24]byte
}

func newPrinter(w *bufio.Writer, a *otf2.Archive) (*printer, error) {
	p := &printer{w: w, a: a, defs: a.Defs, defFmt: map[otf2.DefKind]*format{}, refs: map[refKey]string{}, ranks: map[[2]uint64]string{}}
	if cp, ok := a.Defs.ClockProperties(); ok {
		p.globalOff = cp.GlobalOffset
	}
	for k := range 256 {
		kind := otf2.Kind(k)
		if kind.String() == "Unknown" {
			continue
		}
		spec, ok := eventFormats[kind.String()]
		if !ok {
			return nil, fmt.Errorf("no format for event %v", kind)
		}
		f, err := compile(spec, kind.Fields())
		if err != nil {
			return nil, fmt.Errorf("event %v: %w", kind, err)
		}
		p.evFmt[k] = &f
		p.labels[k] = fmt.Appendf(nil, "%-32s ", label(kind.String()))
	}
	for k := otf2.DefKind(1); k.String() != "Unknown"; k++ {
		spec, ok := defFormats[k.String()]
		if !ok {
			continue
		}
		f, err := compile(spec, k.Fields())
		if err != nil {
			return nil, fmt.Errorf("definition %v: %w", k, err)
		}
		p.defFmt[k] = &f
	}
	return p, nil
}

// label converts a record name to otf2-print's label (MpiSend → MPI_SEND).
func label(name string) string {
	switch name {
	case "ParameterInt":
		return "PARAMETER_INT64"
	case "ParameterUnsignedInt":
		return "PARAMETER_UINT64"
	case "IoChangeStatusFlags":
		return "IO_CHANGE_FLAGS"
	}
	var b strings.Builder
	for i, r := range name {
		if i > 0 && r >= 'A' && r <= 'Z' {
			b.WriteByte('_')
		}
		b.WriteRune(r)
	}
	return strings.ToUpper(b.String())
}

func (p *printer) time(t uint64) string {
	if !p.offsetMode {
		return strconv.FormatUint(t, 10)
	}
	if t >= p.globalOff {
		return strconv.FormatUint(t-p.globalOff, 10)
	}
	return "-" + strconv.FormatUint(p.globalOff-t, 10)
}

// cG formats like C's %g.
func cG(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }

// refKind maps a field's Ref to the definition kind holding its names.
var refKinds = map[string]otf2.DefKind{
	"String": otf2.DefKindString, "Region": otf2.DefKindRegion, "Comm": otf2.DefKindComm,
	"Group": otf2.DefKindGroup, "Location": otf2.DefKindLocation, "LocationGroup": otf2.DefKindLocationGroup,
	"SystemTreeNode": otf2.DefKindSystemTreeNode, "Attribute": otf2.DefKindAttribute,
	"Parameter": otf2.DefKindParameter, "RmaWin": otf2.DefKindRmaWin, "MetricMember": otf2.DefKindMetricMember,
	"CartDimension": otf2.DefKindCartDimension, "CartTopology": otf2.DefKindCartTopology,
	"SourceCodeLocation": otf2.DefKindSourceCodeLocation, "CallingContext": otf2.DefKindCallingContext,
	"InterruptGenerator": otf2.DefKindInterruptGenerator, "IoFile": otf2.DefKindIoRegularFile,
	"IoHandle": otf2.DefKindIoHandle, "IoParadigm": otf2.DefKindIoParadigm,
	"Metric": otf2.DefKindMetricClass, "Callpath": otf2.DefKindCallpath,
}

// refNames inverts refKinds for the named kinds.
var refNames = func() map[otf2.DefKind]string {
	m := map[otf2.DefKind]string{}
	for n, k := range refKinds {
		m[k] = n
	}
	return m
}()

func (p *printer) str(id uint64) string {
	s, _ := p.defs.Str(uint32(id))
	return termsafe.String(s) // names from the file must not act on the terminal
}

// named formats a reference to definition v whose name is the string
// name: "name" <v>, or v alone when no String defines name (otf2-print's
// otf2_print_get_name, given the NULL name of an undefined string).
func (p *printer) named(name, v uint64) string {
	s, ok := p.defs.Str(uint32(name))
	if !ok {
		return strconv.FormatUint(v, 10)
	}
	return "\"" + termsafe.String(s) + "\" <" + strconv.FormatUint(v, 10) + ">"
}

func fieldIndex(fields []otf2.FieldInfo, name string) int {
	for i := range fields {
		if fields[i].Name() == name {
			return i
		}
	}
	return -1
}

// nameOf returns the text otf2-print shows for a definition.
func (p *printer) nameOf(d *otf2.Def) string {
	switch d.Kind {
	case otf2.DefKindString:
		return termsafe.String(string(d.Bytes())) // names from the file must not act on the terminal
	case otf2.DefKindSystemTreeNode:
		x, _ := d.SystemTreeNode()
		return p.str(uint64(x.ClassName)) + "::" + p.str(uint64(x.Name))
	case otf2.DefKindIoRegularFile:
		x, _ := d.IoRegularFile()
		return "file://" + p.str(uint64(x.Name))
	case otf2.DefKindIoDirectory:
		x, _ := d.IoDirectory()
		return "directory://" + p.str(uint64(x.Name))
	case otf2.DefKindSourceCodeLocation:
		x, _ := d.SourceCodeLocation()
		return p.str(uint64(x.File)) + ":" + strconv.FormatUint(uint64(x.LineNumber), 10)
	case otf2.DefKindCallingContext:
		x, _ := d.CallingContext()
		s := ""
		if r, ok := p.defs.Lookup(otf2.DefKindRegion, uint64(x.Region)); ok {
			s = p.nameOf(r)
		}
		if x.SourceCodeLocation != otf2.Undefined32 {
			if l, ok := p.defs.Lookup(otf2.DefKindSourceCodeLocation, uint64(x.SourceCodeLocation)); ok {
				s += "@" + p.nameOf(l)
			}
		}
		return s
	}
	if i := fieldIndex(d.Kind.Fields(), "name"); i >= 0 {
		return p.str(d.Value(i))
	}
	return ""
}

// composite reports the kinds whose shown name nameOf builds from more
// than their name string.
func composite(k otf2.DefKind) bool {
	switch k {
	case otf2.DefKindString, otf2.DefKindSystemTreeNode, otf2.DefKindIoRegularFile, otf2.DefKindIoDirectory,
		otf2.DefKindSourceCodeLocation, otf2.DefKindCallingContext:
		return true
	}
	return false
}

func undefined(f *otf2.FieldInfo, v uint64) bool {
	switch f.Wire().String() {
	case "u8":
		return v == otf2.Undefined8
	case "cu64", "u64":
		return v == otf2.Undefined64
	}
	return v == otf2.Undefined32
}

// ref formats a reference to a definition of the kind named ref: "name"
// <id>, or the number alone for metrics and call paths (which have no
// names), INVALID <id> for an id without a definition.
func (p *printer) ref(ref string, v uint64, undef bool) string {
	if undef {
		return "UNDEFINED"
	}
	k, ok := refKinds[ref]
	if !ok {
		return strconv.FormatUint(v, 10)
	}
	key := refKey{k, v}
	if s, ok := p.refs[key]; ok {
		return s
	}
	var s string
	d, ok := p.defs.Lookup(k, v)
	switch {
	case !ok:
		s = "INVALID <" + strconv.FormatUint(v, 10) + ">"
	case ref == "Metric" || ref == "Callpath":
		s = strconv.FormatUint(v, 10)
	default:
		if i := fieldIndex(d.Kind.Fields(), "name"); i >= 0 && !composite(d.Kind) {
			s = p.named(d.Value(i), v)
		} else {
			s = "\"" + p.nameOf(d) + "\" <" + strconv.FormatUint(v, 10) + ">"
		}
	}
	p.refs[key] = s
	return s
}

// refK is ref for a named definition kind, with a dense cache for small ids.
func (p *printer) refK(k otf2.DefKind, v uint64, undef bool) string {
	if undef {
		return "UNDEFINED"
	}
	if v < 1<<16 {
		c := p.dense[k]
		if v < uint64(len(c)) && c[v] != "" {
			return c[v]
		}
	}
	s := p.ref(refNames[k], v, false)
	if v < 1<<16 {
		c := p.dense[k]
		for uint64(len(c)) <= v {
			c = append(c, "")
		}
		c[v] = s
		p.dense[k] = c
	}
	return s
}

type refKey struct {
	k  otf2.DefKind
	id uint64
}

// locRef formats a location as "name" <id>.
func (p *printer) locRef(loc uint64) string { return p.ref("Location", loc, false) }

// rankLoc resolves a rank of a communicator to its location.
func (p *printer) rankLoc(comm uint64, rank uint64) (uint64, bool) {
	c, ok := p.defs.Lookup(otf2.DefKindComm, comm)
	if !ok {
		return 0, false
	}
	var group uint32
	if x, ok := c.Comm(); ok {
		group = x.Group
	} else {
		return 0, false
	}
	g, ok := p.defs.Group(group)
	if !ok {
		return 0, false
	}
	switch g.GroupType {
	case otf2.GroupTypeCommLocations, otf2.GroupTypeLocations:
		if rank < uint64(len(g.Members)) {
			return g.Members[rank], true
		}
		return 0, false
	case otf2.GroupTypeCommGroup:
		if rank >= uint64(len(g.Members)) {
			return 0, false
		}
		return p.commLocation(g.Paradigm, g.Members[rank])
	}
	return 0, false
}

// commLocation resolves a rank of a paradigm's COMM_LOCATIONS group.
func (p *printer) commLocation(par otf2.Paradigm, rank uint64) (uint64, bool) {
	for _, d := range p.defs.All() {
		g, ok := d.Group()
		if !ok || g.GroupType != otf2.GroupTypeCommLocations || g.Paradigm != par {
			continue
		}
		if rank < uint64(len(g.Members)) {
			return g.Members[rank], true
		}
		return 0, false
	}
	return 0, false
}

func (p *printer) rank(comm uint64, rank uint64) string {
	dense := comm < 1<<10 && rank < 1<<16
	if dense && comm < uint64(len(p.rankDense)) && rank < uint64(len(p.rankDense[comm])) && p.rankDense[comm][rank] != "" {
		return p.rankDense[comm][rank]
	}
	key := [2]uint64{comm, rank}
	if s, ok := p.ranks[key]; ok {
		return s
	}
	if dense {
		defer func() {
			for uint64(len(p.rankDense)) <= comm {
				p.rankDense = append(p.rankDense, nil)
			}
			for uint64(len(p.rankDense[comm])) <= rank {
				p.rankDense[comm] = append(p.rankDense[comm], "")
			}
			p.rankDense[comm][rank] = p.ranks[key]
		}()
	}
	s := strconv.FormatUint(rank, 10)
	if loc, ok := p.rankLoc(comm, rank); ok {
		s += " (" + p.locRef(loc) + ")"
	} else {
		s += " (INVALID)"
	}
	p.ranks[key] = s
	return s
}

// typedValue formats a value of an OTF2 Type (attributes, properties).
func (p *printer) typedValue(t otf2.Type, v uint64) string {
	switch t {
	case otf2.TypeUint8, otf2.TypeUint16, otf2.TypeUint32, otf2.TypeUint64:
		return strconv.FormatUint(v, 10)
	case otf2.TypeInt8, otf2.TypeInt16, otf2.TypeInt32, otf2.TypeInt64:
		return strconv.FormatInt(int64(v), 10)
	case otf2.TypeFloat:
		return cG(float64(float32frombits(uint32(v))))
	case otf2.TypeDouble:
		return cG(float64frombits(v))
	case otf2.TypeString:
		return p.ref("String", v, v == otf2.Undefined32)
	case otf2.TypeAttribute:
		return p.ref("Attribute", v, v == otf2.Undefined32)
	case otf2.TypeLocation:
		return p.ref("Location", v, v == otf2.Undefined64)
	case otf2.TypeRegion:
		return p.ref("Region", v, v == otf2.Undefined32)
	case otf2.TypeGroup:
		return p.ref("Group", v, v == otf2.Undefined32)
	case otf2.TypeMetric:
		return p.ref("Metric", v, v == otf2.Undefined32)
	case otf2.TypeComm:
		return p.ref("Comm", v, v == otf2.Undefined32)
	case otf2.TypeParameter:
		return p.ref("Parameter", v, v == otf2.Undefined32)
	case otf2.TypeRMAWin:
		return p.ref("RmaWin", v, v == otf2.Undefined32)
	case otf2.TypeSourceCodeLocation:
		return p.ref("SourceCodeLocation", v, v == otf2.Undefined32)
	case otf2.TypeCallingContext:
		return p.ref("CallingContext", v, v == otf2.Undefined32)
	case otf2.TypeInterruptGenerator:
		return p.ref("InterruptGenerator", v, v == otf2.Undefined32)
	case otf2.TypeIOFile:
		return p.ref("IoFile", v, v == otf2.Undefined32)
	case otf2.TypeIOHandle:
		return p.ref("IoHandle", v, v == otf2.Undefined32)
	case otf2.TypeLocationGroup:
		return p.ref("LocationGroup", v, v == otf2.Undefined32)
	}
	return strconv.FormatUint(v, 10)
}

// value formats field i of a record in its default form.
type record interface {
	Value(i int) uint64
	Elems(i int) []uint64
}

func (p *printer) field(f *otf2.FieldInfo, v uint64) string {
	if e := f.Enum(); e != "" {
		if e == "Paradigm" {
			if d, ok := p.defs.Paradigm(otf2.Paradigm(v)); ok {
				return p.named(uint64(d.Name), v)
			}
		}
		if s, ok := otf2.EnumString(e, v); ok {
			return s
		}
	}
	if r := f.Ref(); r != "" {
		return p.ref(r, v, undefined(f, v))
	}
	w := f.Wire()
	switch {
	case w.Float():
		if w.String() == "f32" {
			return cG(float64(float32frombits(uint32(v))))
		}
		return cG(float64frombits(v))
	case w.Signed():
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatUint(v, 10)
}

func (p *printer) render(b []byte, f *format, fields []otf2.FieldInfo, r record) []byte {
	for _, it := range f.items {
		b = append(b, it.prefix...)
		fi := &fields[it.field]
		v := r.Value(it.field)
		switch it.mod {
		case "":
			switch {
			case it.named:
				b = append(b, p.refK(it.kind, v, undefined(fi, v))...)
			case !it.plain:
				b = append(b, p.field(fi, v)...)
			case fi.Wire().Signed():
				b = strconv.AppendInt(b, int64(v), 10)
			default:
				b = strconv.AppendUint(b, v, 10)
			}
		case "enum":
			s, _ := otf2.EnumString(fi.Enum(), v)
			b = append(b, s...)
		case "num":
			b = append(b, p.ref(fi.Ref(), v, undefined(fi, v))...)
		case "time":
			b = append(b, p.time(v)...)
		case "exit":
			if int64(v) == otf2.UndefinedInt64 {
				b = append(b, "UNDEFINED"...)
			} else {
				b = append(b, strconv.FormatInt(int64(v), 10)...)
			}
		case "rank":
			b = append(b, p.rankArg(fields, r, it, v)...)
		case "root":
			switch v {
			case 0xffffffff:
				b = append(b, "NONE"...)
			case 0xfffffffe:
				b = append(b, "SELF"...)
			case 0xfffffffd:
				b = append(b, "THIS_GROUP"...)
			default:
				b = append(b, p.rankArg(fields, r, it, v)...)
			}
		case "values":
			b = append(b, p.typedValue(otf2.Type(r.Value(it.field-1)), v)...)
		case "ptype", "pvalue":
			// otf2-print shows the boolean paradigm property RMA_ONLY
			// (stored as UINT8) as a BOOLEAN TRUE or FALSE.
			switch {
			case otf2.ParadigmProperty(r.Value(it.arg)) != otf2.ParadigmPropertyRMAOnly:
				if it.mod == "ptype" {
					b = append(b, p.field(fi, v)...)
				} else {
					b = append(b, p.typedValue(otf2.Type(r.Value(it.field-1)), v)...)
				}
			case it.mod == "ptype":
				b = append(b, "BOOLEAN"...)
			default:
				b = append(b, otf2.Boolean(v).String()...)
			}
		case "refs":
			el := r.Elems(it.field)
			b = append(b, strconv.Itoa(len(el))+" "+it.word...)
			if len(el) != 1 {
				b = append(b, "s"...)
			}
			if len(el) > 0 {
				b = append(b, ": "...)
			}
			ef := fi
			for j, x := range el {
				if j > 0 {
					b = append(b, ", "...)
				}
				b = append(b, p.field(ef, x)...)
			}
		}
	}
	b = append(b, f.suffix...)
	return b
}

func (p *printer) rankArg(fields []otf2.FieldInfo, r record, it item, v uint64) string {
	comm := r.Value(it.arg)
	if fields[it.arg].Ref() == "RmaWin" {
		if w, ok := p.defs.RmaWin(uint32(comm)); ok {
			comm = uint64(w.Comm)
		} else {
			return strconv.FormatUint(v, 10) + " (INVALID)"
		}
	}
	return p.rank(comm, v)
}

func (p *printer) event(ev *otf2.Event) {
	if ev.Kind == otf2.KindUnknown {
		// otf2-print ignores --timestamps for unknown records
		fmt.Fprintf(p.w, "%-32s %15d %20d\n", "UNKNOWN", ev.Location, ev.Time)
		return
	}
	b := append(p.b[:0], p.labels[ev.Kind]...)
	b = pad(b, strconv.AppendUint(p.num[:0], ev.Location, 10), 15)
	b = append(b, ' ')
	if p.offsetMode {
		b = pad(b, []byte(p.time(ev.Time)), 20)
	} else {
		b = pad(b, strconv.AppendUint(p.num[:0], ev.Time, 10), 20)
	}
	b = append(b, ' ', ' ')
	if ev.Kind == otf2.KindMetric {
		b = p.metric(b, ev)
	} else {
		b = p.render(b, p.evFmt[ev.Kind], ev.Kind.Fields(), ev)
	}
	b = append(b, '\n')
	p.w.Write(b)
	p.b = b
	if len(ev.Attrs) > 0 {
		p.w.WriteString(strings.Repeat(" ", 71) + "ADDITIONAL ATTRIBUTES: ")
		for i, at := range ev.Attrs {
			if i > 0 {
				p.w.WriteString(", ")
			}
			fmt.Fprintf(p.w, "(%s; %v; %s)", p.ref("Attribute", uint64(at.ID), at.ID == otf2.Undefined32), at.Type, p.typedValue(at.Type, at.Value))
		}
		p.w.WriteByte('\n')
	}
}

// metricInfo is what a Metric event's line needs of its metric class or
// instance: the members and the reference text.
type metricInfo struct {
	ok      bool
	members []uint64
	ref     string
}

func (p *printer) metricOf(id uint32) metricInfo {
	if int(id) < len(p.metrics) && p.metrics[id].ok {
		return p.metrics[id]
	}
	var members []uint64
	if d, ok := p.defs.Lookup(otf2.DefKindMetricClass, uint64(id)); ok {
		if c, ok := d.MetricClass(); ok {
			members = c.MetricMembers
		} else if in, ok := d.MetricInstance(); ok {
			if c, ok := p.defs.MetricClass(in.MetricClass); ok {
				members = c.MetricMembers
			}
		}
	}
	mi := metricInfo{ok: true, members: members, ref: p.ref("Metric", uint64(id), id == otf2.Undefined32)}
	if id < 1<<16 {
		for int(id) >= len(p.metrics) {
			p.metrics = append(p.metrics, metricInfo{})
		}
		p.metrics[id] = mi
	}
	return mi
}

func (p *printer) metric(b []byte, ev *otf2.Event) []byte {
	m, _ := ev.Metric()
	mi := p.metricOf(m.Metric)
	members := mi.members
	b = append(b, "Metric: "...)
	b = append(b, mi.ref...)
	b = append(b, ", "...)
	b = strconv.AppendInt(b, int64(len(m.MetricValues)), 10)
	b = append(b, " Value"...)
	if len(m.MetricValues) != 1 {
		b = append(b, 's')
	}
	if len(m.MetricValues) > 0 {
		b = append(b, ": "...)
	}
	for i, v := range m.MetricValues {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, '(')
		if i < len(members) {
			b = append(b, p.refK(otf2.DefKindMetricMember, members[i], false)...)
		} else {
			b = append(b, "INVALID"...)
		}
		t := otf2.Type(m.TypeIDs[i])
		b = append(b, "; "...)
		switch t {
		case otf2.TypeInt64, otf2.TypeUint64, otf2.TypeDouble:
			b = append(b, t.String()...)
		default: // otf2-print names only the three metric value types
			b = append(b, "INVALID <"...)
			b = strconv.AppendUint(b, uint64(t), 10)
			b = append(b, '>')
		}
		b = append(b, "; "...)
		switch t {
		case otf2.TypeInt64:
			b = strconv.AppendInt(b, int64(v), 10)
		case otf2.TypeUint64:
			b = strconv.AppendUint(b, v, 10)
		case otf2.TypeDouble:
			b = strconv.AppendFloat(b, float64frombits(v), 'g', 6, 64)
		default:
			b = fmt.Appendf(b, "%08x", v)
		}
		b = append(b, ')')
	}
	return b
}

// def prints one global definition line.
func (p *printer) def(d *otf2.Def) {
	if d.Kind == otf2.DefKindUnknown {
		fmt.Fprintf(p.w, "%-27s\n", "UNKNOWN")
		return
	}
	id := ""
	if s, ok := d.Self(); ok {
		id = strconv.FormatUint(s, 10)
	}
	lbl := label(d.Kind.String())
	var text string
	switch d.Kind {
	case otf2.DefKindClockProperties:
		c, _ := d.ClockProperties()
		date := "UNDEFINED"
		if c.RealtimeTimestamp != otf2.Undefined64 {
			date = time.Unix(0, int64(c.RealtimeTimestamp)).Format("2006-01-02 15:04:05.000000000 -0700")
		}
		text = fmt.Sprintf("Ticks per Seconds: %d, Global Offset: %d, Length: %d, Date: %s", c.TimerResolution, c.GlobalOffset, c.TraceLength, date)
	case otf2.DefKindString:
		text = "\"" + termsafe.String(string(d.Bytes())) + "\""
	case otf2.DefKindParadigm:
		x, _ := d.Paradigm()
		id = strconv.Itoa(int(x.Paradigm))
		text = string(p.render(nil, p.defFmt[d.Kind], d.Kind.Fields(), d))
	case otf2.DefKindGroup:
		text = p.group(d)
	case otf2.DefKindMetricInstance:
		x, _ := d.MetricInstance()
		scope := ""
		switch x.MetricScope {
		case otf2.MetricScopeLocation:
			scope = p.ref("Location", x.Scope, x.Scope == otf2.Undefined64)
		case otf2.MetricScopeLocationGroup:
			scope = p.ref("LocationGroup", x.Scope, x.Scope == otf2.Undefined32)
		case otf2.MetricScopeSystemTreeNode:
			scope = p.ref("SystemTreeNode", x.Scope, x.Scope == otf2.Undefined32)
		case otf2.MetricScopeGroup:
			scope = p.ref("Group", x.Scope, x.Scope == otf2.Undefined32)
		default:
			scope = strconv.FormatUint(x.Scope, 10)
		}
		text = fmt.Sprintf("Class: %d, Recorder: %s, Scope: %v %s", x.MetricClass, p.ref("Location", x.Recorder, x.Recorder == otf2.Undefined64), x.MetricScope, scope)
	case otf2.DefKindCartTopology:
		x, _ := d.CartTopology()
		var dims []string
		for _, v := range x.CartDimensions {
			dims = append(dims, p.ref("CartDimension", v, v == otf2.Undefined32))
		}
		s := "s"
		if len(dims) == 1 {
			s = ""
		}
		text = fmt.Sprintf("Name: %s, Communicator: %s, %d Dimension%s: (%s)", p.ref("String", uint64(x.Name), x.Name == otf2.Undefined32),
			p.ref("Comm", uint64(x.Communicator), x.Communicator == otf2.Undefined32), len(dims), s, strings.Join(dims, ", "))
	case otf2.DefKindCartCoordinate:
		x, _ := d.CartCoordinate()
		r := strconv.FormatUint(uint64(x.Rank), 10)
		if t, ok := p.defs.CartTopology(x.CartTopology); ok {
			r = p.rank(uint64(t.Communicator), uint64(x.Rank))
		}
		var cs []string
		for _, v := range x.Coordinates {
			cs = append(cs, strconv.FormatUint(v, 10))
		}
		pl := "s"
		if len(cs) == 1 {
			pl = ""
		}
		text = fmt.Sprintf("Cartesian Topology: %s, Rank: %s, Coordinate%s: (%s)", p.ref("CartTopology", uint64(x.CartTopology), x.CartTopology == otf2.Undefined32), r, pl, strings.Join(cs, ", "))
	case otf2.DefKindIoParadigm:
		x, _ := d.IoParadigm()
		s := "ies"
		if len(x.Properties) == 1 {
			s = "y"
		}
		text = fmt.Sprintf("Identification: %s, Name: %s, Class: %v, Flags: %v, %d Propert%s", p.ref("String", uint64(x.Identification), x.Identification == otf2.Undefined32),
			p.ref("String", uint64(x.Name), x.Name == otf2.Undefined32), x.IoParadigmClass, x.IoParadigmFlags, len(x.Properties), s)
		if len(x.Properties) > 0 {
			text += ": "
			for i := range x.Properties {
				if i > 0 {
					text += ", "
				}
				ps, _ := otf2.EnumString("IoParadigmProperty", x.Properties[i])
				text += fmt.Sprintf("(%s; %v; %s)", ps, otf2.Type(x.Types[i]), p.typedValue(otf2.Type(x.Types[i]), x.Values[i]))
			}
		}
	default:
		f := p.defFmt[d.Kind]
		if f == nil {
			text = ""
		} else {
			text = string(p.render(nil, f, d.Kind.Fields(), d))
		}
	}
	fmt.Fprintf(p.w, "%-27s %12s  %s\n", lbl, id, text)
}

func (p *printer) group(d *otf2.Def) string {
	g, _ := d.Group()
	fi := d.Kind.Fields()
	par := p.field(&fi[fieldIndex(fi, "paradigm")], uint64(g.Paradigm))
	var b strings.Builder
	fmt.Fprintf(&b, "Name: %s, Type: %v, Paradigm: %s, Flags: %v, %d Member", p.ref("String", uint64(g.Name), g.Name == otf2.Undefined32), g.GroupType, par, g.GroupFlags, len(g.Members))
	if len(g.Members) != 1 {
		b.WriteString("s")
	}
	if len(g.Members) > 0 {
		b.WriteString(": ")
	}
	for i, m := range g.Members {
		if i > 0 {
			b.WriteString(", ")
		}
		switch g.GroupType {
		case otf2.GroupTypeLocations, otf2.GroupTypeCommLocations:
			b.WriteString(p.ref("Location", m, m == otf2.Undefined64))
		case otf2.GroupTypeRegions:
			b.WriteString(p.ref("Region", m, m == otf2.Undefined32))
		case otf2.GroupTypeCommGroup:
			b.WriteString(strconv.FormatUint(m, 10))
			if loc, ok := p.commLocation(g.Paradigm, m); ok {
				b.WriteString(" (" + p.locRef(loc) + ")")
			}
		default:
			b.WriteString(strconv.FormatUint(m, 10))
		}
	}
	return b.String()
}

// localDef prints a MappingTable or ClockOffset line of location loc.
func (p *printer) localDef(loc uint64, d *otf2.Def) {
	var text string
	switch d.Kind {
	case otf2.DefKindMappingTable:
		m, _ := d.MappingTable()
		var b strings.Builder
		fmt.Fprintf(&b, "Type: %v, ", m.MappingType)
		if m.IDMap.Sparse {
			b.WriteByte('{')
			for i, pr := range m.IDMap.Pairs {
				if i > 0 {
					b.WriteByte(',')
				}
				fmt.Fprintf(&b, "%d=>%d", pr.Local, pr.Global)
			}
			b.WriteByte('}')
		} else {
			b.WriteByte('[')
			for i, g := range m.IDMap.Dense {
				if i > 0 {
					b.WriteByte(',')
				}
				b.WriteString(strconv.FormatUint(g, 10))
			}
			b.WriteByte(']')
		}
		text = b.String()
	case otf2.DefKindClockOffset:
		c, _ := d.ClockOffset()
		sign := "+"
		if c.Offset < 0 {
			sign = ""
		}
		text = fmt.Sprintf("Time: %d, Offset: %s%d, StdDev: %s", c.Time, sign, c.Offset, cG(c.StandardDeviation))
	default:
		return
	}
	fmt.Fprintf(p.w, "%-27s %12d  %s\n", label(d.Kind.String()), loc, text)
}

const blanks = "                                                                "

// pad appends s right-aligned in width columns.
func pad(b, s []byte, width int) []byte {
	for n := width - len(s); n > 0; n -= len(blanks) {
		b = append(b, blanks[:min(n, len(blanks))]...)
	}
	return append(b, s...)
}

// snapshot prints one snapshot record. SnapshotStart and SnapshotEnd are
// otf2-print's text; the copies of events print as the event kind with
// the original time first (a form not checked against otf2-print).
func (p *printer) snapshot(s *otf2.Snapshot) {
	b := fmt.Appendf(p.b[:0], "%-32s %15d %20s  ", label(s.Kind.String()), s.Location, p.time(s.Time))
	switch s.Kind {
	case otf2.SnapKindSnapshotStart:
		x, _ := s.SnapshotStart()
		b = fmt.Appendf(b, "# Events: %d", x.NumberOfRecords)
	case otf2.SnapKindSnapshotEnd:
		x, _ := s.SnapshotEnd()
		b = fmt.Appendf(b, "Cont. Read Position: %d", x.ContReadPos)
	case 0:
		b = b[:len(b)-2] // unknown records: the label only, as for events
	default:
		b = append(b, "Original Time: "...)
		b = append(b, p.time(s.Value(0))...)
		for i, f := range s.Kind.Fields()[1:] {
			if f.Element() {
				continue
			}
			b = fmt.Appendf(b, ", %s: %s", f.Name(), p.field(&f, s.Value(i+1)))
		}
	}
	b = append(b, '\n')
	p.w.Write(b)
	p.b = b
}
