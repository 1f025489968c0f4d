package otf

import "github.com/hpctrace/hpctrace/internal/kmerge"

// The merge of a TraceReader is a loser tree (kmerge.Tree) over its
// streams keyed by (time, process), with ties broken by the stream's
// index: a mergeKey is the time, then process<<32 | stream index, so
// that one two-word comparison settles every tie. The hot merge narrows
// these keys to one word when it can (narrow.go).
type (
	merger   = kmerge.Tree[uint64]
	mergeKey = kmerge.Key[uint64]
)

// doneKey is the key of an exhausted stream, which sorts after every
// record (a record's low word is below all ones since k < 2³²-1).
var doneKey = kmerge.Done[uint64]()

// doneWord is both words of doneKey, for code that builds or tests the
// key without loading the variable.
const doneWord = ^uint64(0)

func makeKey(time uint64, proc uint32, src int) mergeKey {
	return kmerge.MakeKey(time, proc, src)
}
