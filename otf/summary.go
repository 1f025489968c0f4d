package otf

import (
	"cmp"
	"fmt"
	"slices"
)

// Summaries holds the summary (statistics) records of a trace as monotone
// samples: for each process and each series (a function, function group,
// message peer, collective, file or file group) the cumulative counts at
// each time a summary was written. It answers interval questions without
// reading events (doc/otf.md §9): the statistics of [a, b) are p(b) − p(a).
//
// The zero Summaries is empty. Its methods other than Add may be called
// concurrently.
type Summaries struct {
	series []*series
	index  map[seriesKey]*series
	times  []uint64
}

// seriesKey identifies one cumulative series of a process. id is the
// function, group, peer, collective or file token; comm and tag are used
// by message and collective summaries.
type seriesKey struct {
	kind      Kind
	process   uint32
	id        uint32
	comm, tag uint32
}

const numValues = 7

type series struct {
	key    seriesKey
	times  []uint64
	values [][numValues]uint64
}

// summaryValues splits a summary record into its series key and values.
func summaryValues(rec *Record) (seriesKey, [numValues]uint64, bool) {
	k := seriesKey{kind: rec.Kind, process: rec.Process}
	var v [numValues]uint64
	switch rec.Kind {
	case KindFunctionSummary:
		s, _ := rec.FunctionSummary()
		k.id = s.Function
		v = [numValues]uint64{s.Count, s.ExclTime, s.InclTime}
	case KindFunctionGroupSummary:
		s, _ := rec.FunctionGroupSummary()
		k.id = s.Group
		v = [numValues]uint64{s.Count, s.ExclTime, s.InclTime}
	case KindMessageSummary:
		s, _ := rec.MessageSummary()
		k.id, k.comm, k.tag = s.Peer, s.Communicator, s.Tag
		v = [numValues]uint64{s.SentCount, s.ReceivedCount, s.BytesSent, s.BytesReceived}
	case KindCollOpSummary:
		s, _ := rec.CollOpSummary()
		k.id, k.comm = s.CollOp, s.Communicator
		v = [numValues]uint64{s.SentCount, s.ReceivedCount, s.BytesSent, s.BytesReceived}
	case KindFileOpSummary:
		s, _ := rec.FileOpSummary()
		k.id = s.File
		v = [numValues]uint64{s.NumOpen, s.NumClose, s.NumRead, s.NumWrite, s.NumSeek, s.BytesRead, s.BytesWritten}
	case KindFileGroupOpSummary:
		s, _ := rec.FileGroupOpSummary()
		k.id = s.Group
		v = [numValues]uint64{s.NumOpen, s.NumClose, s.NumRead, s.NumWrite, s.NumSeek, s.BytesRead, s.BytesWritten}
	default:
		return k, v, false
	}
	return k, v, true
}

// setSummary makes rec the summary record of series k with values v.
func setSummary(rec *Record, k seriesKey, v *[numValues]uint64) {
	switch k.kind {
	case KindFunctionSummary:
		rec.SetFunctionSummary(FunctionSummary{Function: k.id, Count: v[0], ExclTime: v[1], InclTime: v[2]})
	case KindFunctionGroupSummary:
		rec.SetFunctionGroupSummary(FunctionGroupSummary{Group: k.id, Count: v[0], ExclTime: v[1], InclTime: v[2]})
	case KindMessageSummary:
		rec.SetMessageSummary(MessageSummary{Peer: k.id, Communicator: k.comm, Tag: k.tag,
			SentCount: v[0], ReceivedCount: v[1], BytesSent: v[2], BytesReceived: v[3]})
	case KindCollOpSummary:
		rec.SetCollOpSummary(CollOpSummary{Communicator: k.comm, CollOp: k.id,
			SentCount: v[0], ReceivedCount: v[1], BytesSent: v[2], BytesReceived: v[3]})
	case KindFileOpSummary:
		rec.SetFileOpSummary(FileOpSummary{File: k.id, NumOpen: v[0], NumClose: v[1], NumRead: v[2],
			NumWrite: v[3], NumSeek: v[4], BytesRead: v[5], BytesWritten: v[6]})
	case KindFileGroupOpSummary:
		rec.SetFileGroupOpSummary(FileGroupOpSummary{Group: k.id, NumOpen: v[0], NumClose: v[1], NumRead: v[2],
			NumWrite: v[3], NumSeek: v[4], BytesRead: v[5], BytesWritten: v[6]})
	}
	rec.Process = k.process
}

// ReadSummaries reads the summary records of the trace's statistics files
// (all of them, once; summary files are small next to the events) for
// the given processes (nil means all). Summary comments are skipped. A
// series whose value decreases from one sample to the next, which no
// cumulative summary can do, is reported as an error wrapping ErrRange.
func (t *Trace) ReadSummaries(processes []uint32) (*Summaries, error) {
	tr, err := t.NewReader(&TraceReaderOptions{File: FileStats, Processes: processes})
	if err != nil {
		return nil, err
	}
	defer tr.Close()
	s := &Summaries{}
	for rec, err := range tr.All() {
		if err != nil {
			return nil, err
		}
		if err := s.Add(rec); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Add adds one summary record as a sample; other kinds are ignored.
// Samples of one series must come in time order with non-decreasing
// values; a sample at the time of the series' last one replaces it.
func (s *Summaries) Add(rec *Record) error {
	k, v, ok := summaryValues(rec)
	if !ok {
		return nil
	}
	if s.index == nil {
		s.index = make(map[seriesKey]*series)
	}
	se := s.index[k]
	if se == nil {
		se = &series{key: k}
		s.index[k] = se
		i, _ := slices.BinarySearchFunc(s.series, k, func(x *series, k seriesKey) int { return compareKeys(x.key, k) })
		s.series = slices.Insert(s.series, i, se)
	}
	if n := len(se.times); n > 0 {
		last := &se.values[n-1]
		if rec.Time < se.times[n-1] {
			return fmt.Errorf("otf: %v of process %d at time %d: samples out of time order: %w", rec.Kind, rec.Process, rec.Time, ErrRange)
		}
		for i := range v {
			if v[i] < last[i] {
				return fmt.Errorf("otf: %v of process %d at time %d: value %d below %d at time %d: %w",
					rec.Kind, rec.Process, rec.Time, v[i], last[i], se.times[n-1], ErrRange)
			}
		}
		if rec.Time == se.times[n-1] {
			*last = v
			return nil
		}
	}
	se.times = append(se.times, rec.Time)
	se.values = append(se.values, v)
	if i, found := slices.BinarySearch(s.times, rec.Time); !found {
		s.times = slices.Insert(s.times, i, rec.Time)
	}
	return nil
}

// Times returns the distinct sample times, ascending. The slice is owned
// by s.
func (s *Summaries) Times() []uint64 { return s.times }

// at returns the values of se at time t: those of its latest sample at or
// before t, zero if there is none.
func (se *series) at(t uint64) [numValues]uint64 {
	i, found := slices.BinarySearch(se.times, t)
	if found {
		return se.values[i]
	}
	if i == 0 {
		return [numValues]uint64{}
	}
	return se.values[i-1]
}

// At returns, for every series of every process, the cumulative summary
// at time t: the latest sample at or before t. Series without a sample by
// then are left out. The records have Time t and are sorted by process,
// kind and token; they are new and owned by the caller.
func (s *Summaries) At(t uint64) []*Record {
	var out []*Record
	for _, se := range s.series {
		if len(se.times) == 0 || se.times[0] > t {
			continue
		}
		v := se.at(t)
		rec := &Record{Time: t}
		setSummary(rec, se.key, &v)
		rec.Time = t
		out = append(out, rec)
	}
	return out
}

// Interval returns, for every series of every process, the statistics of
// the interval [a, b): p(b) − p(a) field by field, where p(x) is the
// latest sample at or before x and a series without one counts as zero.
// The answer is exact when a and b are sample times (see Times); otherwise
// it is that of the sample times just below them. Series with no change
// in the interval are left out. The records have Time b and are sorted by
// process, kind and token; they are new and owned by the caller.
func (s *Summaries) Interval(a, b uint64) []*Record {
	if b < a {
		a, b = b, a
	}
	var out []*Record
	for _, se := range s.series {
		va, vb := se.at(a), se.at(b)
		if va == vb {
			continue
		}
		var d [numValues]uint64
		for i := range d {
			d[i] = vb[i] - va[i]
		}
		rec := &Record{}
		setSummary(rec, se.key, &d)
		rec.Time = b
		out = append(out, rec)
	}
	return out
}

// compareKeys orders series by process, kind and tokens.
func compareKeys(a, b seriesKey) int {
	return cmp.Or(cmp.Compare(a.process, b.process), cmp.Compare(a.kind, b.kind),
		cmp.Compare(a.id, b.id), cmp.Compare(a.comm, b.comm), cmp.Compare(a.tag, b.tag))
}
