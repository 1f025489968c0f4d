package picl

// A scope keeps the definitions that decide how later records decode:
// descriptor aliases (-6 records) and subsets (-201, -202, -203). Reader and
// Writer each keep one, so the Writer resolves aliases exactly as a Reader
// of its output will.
type scope struct {
	aliases map[int64][]aliasDef // nil when no alias is defined
	subsets [3]map[int32][]int32 // processors, processes, event types
	gen     uint64               // bumped by every definition

	// one-entry cache of the last resolution
	cGen                    uint64
	cAlias                  int64
	cEvent, cProc, cProcess int32
	cCtl                    *control
	cValid                  bool
}

type aliasDef struct {
	event, proc, process int32
	ctl                  *control
}

const (
	subsetProcessors = iota
	subsetProcesses
	subsetEvents
)

func (s *scope) reset() {
	s.aliases = nil
	for i := range s.subsets {
		clear(s.subsets[i])
	}
	s.gen++
	s.cValid = false
}

// member reports whether v is in the subset id of the given kind.
func (s *scope) member(kind int, id, v int32) bool {
	if m, ok := s.subsets[kind][id]; ok {
		for _, x := range m {
			if x == v {
				return true
			}
		}
		return false
	}
	if kind == subsetEvents {
		return EventType(id).Contains(EventType(v))
	}
	return false
}

func (s *scope) matches(kind int, def, v int32) bool {
	return def == -1 || def == v || s.member(kind, def, v)
}

// resolve returns the control string alias stands for in a record with the
// given event, processor and process, or nil when it is undefined there.
func (s *scope) resolve(alias int64, event EventType, proc, process int32) *control {
	if len(s.aliases) == 0 {
		if alias >= 0 && alias < int64(len(predefined)) {
			return predefined[alias]
		}
		return nil
	}
	if s.cValid && s.cGen == s.gen && s.cAlias == alias && s.cEvent == int32(event) && s.cProc == proc && s.cProcess == process {
		return s.cCtl
	}
	var ctl *control
	defs := s.aliases[alias]
	for i := len(defs) - 1; i >= 0; i-- {
		d := &defs[i]
		if s.matches(subsetEvents, d.event, int32(event)) && s.matches(subsetProcessors, d.proc, proc) &&
			s.matches(subsetProcesses, d.process, process) {
			ctl = d.ctl
			break
		}
	}
	if ctl == nil && alias >= 0 && alias < int64(len(predefined)) {
		ctl = predefined[alias]
	}
	s.cValid, s.cGen, s.cAlias, s.cEvent, s.cProc, s.cProcess, s.cCtl = true, s.gen, alias, int32(event), proc, process, ctl
	return ctl
}

// apply records the definitions a record makes: -6 aliases and -201/-202/-203
// subsets. ctl is the control string the record's descriptor resolved to.
// Records that are not fully decoded define nothing.
func (s *scope) apply(r *Record, ctl *control) {
	if r.Flags&(FlagUndecoded|FlagTruncated) != 0 || ctl == nil || ctl.undecoded || ctl.chars {
		return
	}
	switch r.Type {
	case RecordDescriptor:
		k := len(ctl.convs)
		for i := 0; i+k <= len(r.Data); i += k {
			f := r.Data[i : i+k]
			if len(f) != 2 || f[0].Kind != KindInt || f[1].Kind != KindString || f[0].Int < 0 || f[0].Int > 1<<31-1 {
				continue
			}
			s.define(f[0].Int, aliasDef{int32(r.Event), r.Processor, r.Process, compileControl(string(f[1].Text))})
		}
	case RecordProcessorSubset, RecordProcessSubset, RecordEventSubset:
		if len(r.Data) == 0 {
			return
		}
		for _, v := range r.Data {
			if v.Kind != KindInt || v.Int != int64(int32(v.Int)) {
				return
			}
		}
		members := make([]int32, len(r.Data)-1)
		for i, v := range r.Data[1:] {
			members[i] = int32(v.Int)
		}
		kind := int(RecordProcessorSubset - r.Type)
		if s.subsets[kind] == nil {
			s.subsets[kind] = make(map[int32][]int32)
		}
		s.subsets[kind][int32(r.Data[0].Int)] = members
		s.gen++
	}
}

func (s *scope) define(alias int64, d aliasDef) {
	if s.aliases == nil {
		s.aliases = make(map[int64][]aliasDef)
	}
	defs := s.aliases[alias]
	// A definition with the same scope shadows the earlier one completely.
	for i := range defs {
		if defs[i].event == d.event && defs[i].proc == d.proc && defs[i].process == d.process {
			defs = append(defs[:i], defs[i+1:]...)
			break
		}
	}
	s.aliases[alias] = append(defs, d)
	s.gen++
}
