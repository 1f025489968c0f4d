package otf2

import "strconv"

// Defs holds the global definitions of an archive in file order, indexed by
// kind and id, so references resolve with one lookup.
//
// Definitions that share an id space are indexed together: MetricClass and
// MetricInstance (the Metric space), Comm and InterComm, IoRegularFile and
// IoDirectory (the IoFile space); Lookup with either kind finds both.
//
// A definition whose id repeats one of an earlier definition of its id
// space replaces it for Lookup (the last one wins, as in libotf2); All
// keeps both, and Duplicates counts the replaced ones.
//
// Defs is read-only after ReadDefs and safe for concurrent use.
type Defs struct {
	dups      int
	all       []*Def
	index     [numDefKinds]map[uint64]int
	paradigms map[Paradigm]int
	clock     int // index of ClockProperties, -1 if none
	locations []uint64
}

// space gives the kind whose index holds k's ids.
func space(k DefKind) DefKind {
	switch k {
	case DefKindMetricInstance:
		return DefKindMetricClass
	case DefKindInterComm:
		return DefKindComm
	case DefKindIoDirectory:
		return DefKindIoRegularFile
	}
	return k
}

// ReadDefs reads every definition of r into a Defs.
func ReadDefs(r *DefReader) (*Defs, error) {
	d := &Defs{clock: -1, paradigms: map[Paradigm]int{}}
	for r.Next() {
		d.add(r.Record().Clone())
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	return d, nil
}

func (d *Defs) add(x *Def) {
	i := len(d.all)
	d.all = append(d.all, x)
	switch x.Kind {
	case DefKindClockProperties:
		d.clock = i
	case DefKindParadigm:
		d.paradigms[Paradigm(x.vals[0])] = i
	case DefKindLocation:
		d.locations = append(d.locations, x.vals[0])
	}
	if id, ok := x.Self(); ok {
		s := space(x.Kind)
		if d.index[s] == nil {
			d.index[s] = map[uint64]int{}
		}
		if _, dup := d.index[s][id]; dup {
			d.dups++
		}
		d.index[s][id] = i
	}
}

// Duplicates returns the number of definitions whose id an earlier
// definition of its id space had, each of which replaced that one.
func (d *Defs) Duplicates() int { return d.dups }

// All returns every definition in file order (unknown records included,
// with Kind DefKindUnknown). The slice is shared: do not modify it.
func (d *Defs) All() []*Def { return d.all }

// Len returns the number of definitions.
func (d *Defs) Len() int { return len(d.all) }

// Lookup returns the definition of kind k (or of its id space) with id id.
func (d *Defs) Lookup(k DefKind, id uint64) (*Def, bool) {
	if k >= numDefKinds {
		return nil, false
	}
	i, ok := d.index[space(k)][id]
	if !ok {
		return nil, false
	}
	return d.all[i], true
}

// Str returns the text of String definition id.
func (d *Defs) Str(id uint32) (string, bool) {
	x, ok := d.Lookup(DefKindString, uint64(id))
	if !ok {
		return "", false
	}
	return x.str(0), true
}

// ClockProperties returns the archive's ClockProperties definition.
func (d *Defs) ClockProperties() (DefClockProperties, bool) {
	if d.clock < 0 {
		return DefClockProperties{}, false
	}
	return d.all[d.clock].ClockProperties()
}

// Paradigm returns the Paradigm definition of paradigm p.
func (d *Defs) Paradigm(p Paradigm) (DefParadigm, bool) {
	i, ok := d.paradigms[p]
	if !ok {
		return DefParadigm{}, false
	}
	return d.all[i].Paradigm()
}

// Locations returns the location ids in definition order.
func (d *Defs) Locations() []uint64 { return d.locations }

// Name resolves the name of definition id of kind k (or of its id
// space): the text of a String; the name of a definition with a name
// field (Region, Comm, Location, ...; for IoParadigm its name, not its
// identification); "file:line" for a SourceCodeLocation; the region's name
// for a CallingContext. ok is false for an unknown id or a kind without a
// name (MetricClass, MetricInstance, Callpath, the supplements).
func (d *Defs) Name(k DefKind, id uint64) (name string, ok bool) {
	x, ok := d.Lookup(k, id)
	if !ok {
		return "", false
	}
	switch x.Kind {
	case DefKindString:
		return x.str(0), true
	case DefKindSourceCodeLocation:
		s, _ := x.SourceCodeLocation()
		f, _ := d.Str(s.File)
		return f + ":" + strconv.FormatUint(uint64(s.LineNumber), 10), true
	case DefKindCallingContext:
		c, _ := x.CallingContext()
		return d.Name(DefKindRegion, uint64(c.Region))
	}
	for i, f := range x.Kind.Fields() {
		if f.name == "name" {
			return d.Str(uint32(x.Value(i)))
		}
	}
	return "", false
}
