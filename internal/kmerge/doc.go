// Package kmerge merges k ordered sources with a loser tree. It is the
// engine behind the time-ordered readers of the dumpi, otf and otf2
// packages: each source is a pull cursor whose current record has a Key,
// and the merge never copies a record, it only decides which cursor's
// current record comes next.
//
// Keys order by a 64-bit major part (a time), then by a tie word whose low
// 32 bits are the source's index, so that the merge is deterministic and
// stable: records of equal time come in the caller's tie order, then by
// source, and each source's records in their own order.
//
// Packed is the same tree over keys of one word, for callers that can pack
// their time and tie break into 64 bits: its matches are one comparison
// and two conditional moves each, without the two-word comparison of a
// Tree; a caller moves to a Tree when a key stops fitting.
//
// A Tree allocates only when it is reset for more sources than before;
// Push allocates nothing.
package kmerge
