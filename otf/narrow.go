package otf

import (
	"cmp"
	"math/bits"
	"slices"
)

// The hot merge of a TraceReader runs on one-word keys when it can: the
// master file lists the processes of every stream, so the pairs
// (process, stream) can be ranked once in the order of the merge's tie
// break, and a record's key becomes time<<shift | rank<<srcBits | src,
// which orders like the two-word mergeKey as long as the time leaves
// room for the rest, and names the winner's source in its low bits. A
// replay then moves one word per node of the loser tree instead of two.
// A record whose process is not listed for its stream, or whose time is
// too large, makes the reader widen the tree back to mergeKeys and go
// on with those.

// A narrowPair is one ranked (process, stream) pair: rank r is
// narrow.pairs[r], src being the index of the stream's reader.
type narrowPair struct {
	proc uint32
	src  uint32
}

// A narrowProc is a listed process of a stream with the low bits of its
// keys, rank<<srcBits | src.
type narrowProc struct {
	proc uint32
	low  uint64
}

// narrow is the state of the one-word merge.
type narrow struct {
	on      bool   // the hot merge uses tree; the merger's tree is stale
	srcBits uint   // bits of a source index
	shift   uint   // bits of rank and source index
	srcMask uint64 // 1<<srcBits - 1
	tmax    uint64 // times must be below tmax
	pairs   []narrowPair
	procs   [][]narrowProc // by source: each listed process; the last one seen is Reader.nlast
	tree    []uint64       // as the merger's nodes, with one-word keys; doneWord when done
	// run is the smallest key of the streams other than the winner
	// when the winner won its last match by replaying the tree (then
	// it is the smallest loser on the winner's path), else 0. A next
	// key of the winner's below it wins without a replay: a stream
	// whose records come in runs before the others' (one process
	// busy while others wait, or whose clock runs ahead) costs a
	// comparison a record; one that takes turns with the others, a
	// comparison and the test of whether the winner changed.
	run uint64
}

// runnerUp returns the smallest key on the path from leaf to the root,
// without the root's.
func (nw *narrow) runnerUp(leaf int) uint64 {
	m := doneWord
	for n := uint(leaf) >> 1; n > 0; n >>= 1 {
		m = min(m, nw.tree[n])
	}
	return m
}

// narrowStart switches the hot merge of tr to one-word keys if every
// current key fits, after tr.m.Init. The tables are built on the first
// call and kept for later restarts, so Reset and SeekTime allocate
// nothing here.
func (tr *TraceReader) narrowStart() {
	nw := &tr.nw
	nw.on = false
	nw.run = 0
	if tr.noNarrow {
		return
	}
	k := len(tr.readers)
	if nw.procs == nil {
		nw.procs = make([][]narrowProc, k)
		for src, r := range tr.readers {
			for _, s := range tr.t.Streams {
				if s.ID == r.opts.Stream {
					for _, p := range s.Processes {
						nw.pairs = append(nw.pairs, narrowPair{p, uint32(src)})
					}
				}
			}
		}
		slices.SortFunc(nw.pairs, func(a, b narrowPair) int {
			return cmp.Or(cmp.Compare(a.proc, b.proc), cmp.Compare(a.src, b.src))
		})
		// Repeated pairs (a process listed twice) keep one rank.
		nw.pairs = slices.Compact(nw.pairs)
		nw.srcBits = uint(bits.Len(uint(k - 1)))
		nw.srcMask = 1<<nw.srcBits - 1
		nw.shift = nw.srcBits + uint(bits.Len(uint(len(nw.pairs))))
		for rank, p := range nw.pairs {
			nw.procs[p.src] = append(nw.procs[p.src], narrowProc{p.proc, uint64(rank)<<nw.srcBits | uint64(p.src)})
		}
		nw.tree = make([]uint64, len(tr.m.Nodes()))
	}
	if nw.shift >= 48 {
		return // times would be too short
	}
	nw.tmax = doneWord>>nw.shift - 1
	// Seed each stream's cache with a listed process, so that the cache
	// never holds a pair that is not ranked.
	for i, ps := range nw.procs {
		if len(ps) == 0 {
			return // a stream without processes in the master file
		}
		tr.readers[i].nlast = ps[0]
	}
	for n, key := range tr.m.Nodes() {
		if key.Done() {
			nw.tree[n] = doneWord
			continue
		}
		low, ok := tr.narrowLow(key.Source(), uint32(key.Tie>>32), key.Major)
		if !ok {
			return
		}
		nw.tree[n] = key.Major<<nw.shift | low
	}
	nw.on = true
}

// narrowLow returns the low bits of the keys of process proc in source
// src, if it is listed and time fits, and caches them as src's last
// process.
func (tr *TraceReader) narrowLow(src int, proc uint32, time uint64) (uint64, bool) {
	nw := &tr.nw
	if time >= nw.tmax {
		return 0, false
	}
	for _, p := range nw.procs[src] {
		if p.proc == proc {
			tr.readers[src].nlast = p
			return p.low, true
		}
	}
	return 0, false
}

// widen turns the one-word tree back into mergeKeys in tr.m.Nodes(), for
// good until the merge restarts.
func (tr *TraceReader) widen() {
	nw := &tr.nw
	nw.on = false
	nodes := tr.m.Nodes()
	for n, key := range nw.tree {
		if key == doneWord {
			nodes[n] = doneKey
			continue
		}
		p := nw.pairs[key&(1<<nw.shift-1)>>nw.srcBits]
		nodes[n] = makeKey(key>>nw.shift, p.proc, int(p.src))
	}
}
