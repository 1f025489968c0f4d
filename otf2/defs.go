package otf2

// Defs holds the global definitions of an archive in file order, indexed by
// kind and id, so references resolve with one lookup.
//
// Definitions that share an id space are indexed together: MetricClass and
// MetricInstance (the Metric space), Comm and InterComm, IoRegularFile and
// IoDirectory (the IoFile space); Lookup with either kind finds both.
//
// Defs is read-only after ReadDefs and safe for concurrent use.
type Defs struct {
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
		d.add(r.Def().Clone())
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
		if _, dup := d.index[s][id]; !dup {
			d.index[s][id] = i
		}
	}
}

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
	return x.str(), true
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
