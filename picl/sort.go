package picl

import (
	"cmp"
	"slices"
)

// Sort sorts recs by timestamp (numeric value), stably: records with equal
// timestamps keep their order, so a processor's own records never swap and
// statistics records sharing the -901 exit time stay after it (doc/picl.md §9). This is the order ParaGraph needs.
//
// Sort works in place and allocates nothing: its memory is the records
// themselves, which the caller holds (kept with [Record.Clone]; about 150
// bytes per record plus its tokens and data, so a 10-million-record trace
// needs a few GB). It makes O(n log n) comparisons and O(n log² n) moves.
// To sort a trace too large for memory, split it per processor (each
// processor's records are already in time order when PICL writes them) and
// merge the streams.
func Sort(recs []Record) {
	slices.SortStableFunc(recs, func(a, b Record) int { return cmp.Compare(a.Time, b.Time) })
}

// SortByTimeProcessor is Sort with ties broken by processor id, then by input
// order: the order of merging per-processor streams. Memory use is as for
// Sort.
func SortByTimeProcessor(recs []Record) {
	slices.SortStableFunc(recs, func(a, b Record) int {
		if c := cmp.Compare(a.Time, b.Time); c != 0 {
			return c
		}
		return cmp.Compare(a.Processor, b.Processor)
	})
}

// IsSorted reports whether the timestamps of recs are non-decreasing, and if
// not, the index of the first record whose timestamp is smaller than its
// predecessor's.
func IsSorted(recs []Record) (bool, int) {
	for i := 1; i < len(recs); i++ {
		if recs[i].Time < recs[i-1].Time {
			return false, i
		}
	}
	return true, -1
}
