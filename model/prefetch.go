package model

import "iter"

// PrefetchOptions configures a [Prefetcher]. A nil or zero value means
// defaults.
type PrefetchOptions struct {
	// BatchEvents is the number of events handed over at a time. 0 means
	// 2048.
	BatchEvents int
	// Batches is the number of batches in the ring shared by the two
	// goroutines, at least 2. 0 means 3. The ring is allocated once and
	// holds Batches × BatchEvents events (80 bytes each; 480 KiB by
	// default).
	Batches int
}

// A Prefetcher is a Source that reads another Source in a goroutine of its
// own, a few batches ahead of its consumer. On a machine with a spare core
// the source's parsing and decoding then overlap with the consumer's work
// (a stats.Accumulator, say): a two-stage pipeline whose throughput is that
// of the slower stage instead of the sum of both.
//
// The events come out exactly as the source yields them, followed by its
// error. The definitions are a copy, [Prefetcher.Defs], which the Prefetcher
// brings up to date in step with the events: a definition the source added
// before yielding an event is visible in Defs when Next returns that event,
// and not before, so a consumer sees the same definitions as it would
// reading the source directly. Defs.Recorded is copied again in full at the
// end of the stream, so values the source rewrites in place are current
// once Next has returned false.
//
// Memory is a fixed ring of batches that are reused, so Next allocates
// nothing in the steady state; only the definitions a source adds during the
// stream cost their copy (the locations and regions it had when the
// Prefetcher was made are shared with it, not copied, and cost only an
// index of their native ids). Handing over a batch costs a channel operation,
// and noticing new definitions a comparison per event; a [BulkSource]
// copies runs of events without changes to the definitions straight into
// the batches.
//
// # Lifetime and concurrency
//
// The goroutine starts at the first call to Next. From then on, until Next
// returns false or Close returns, src belongs to the Prefetcher: the caller
// must not call its methods nor touch its Defs, and reads the definitions
// through the Prefetcher instead. When Next returns false the goroutine has
// exited, and src may be used (and closed) again.
//
// A range loop over [Prefetcher.All] that ends early (break, return,
// panic) stops the goroutine and waits for it, keeping the events it had
// read ahead: a later Next or All continues with the following event and
// starts the goroutine again. A consumer that stops calling Next otherwise
// must call Close, which stops the goroutine and waits for it; Close may
// always be called, also twice or after the end. The Prefetcher itself is,
// like any Source, not safe for concurrent use.
type Prefetcher struct {
	src   Source
	sdefs *Defs // src.Defs(), read by the goroutine only while it runs
	defs  Defs  // the consumer's copy
	opts  PrefetchOptions
	mark  defsMark // how far defs reflects sdefs, for the goroutine

	free, full chan *prefetchBatch
	stop       chan struct{}
	running    bool             // the goroutine runs (or has not been waited for)
	finished   bool             // the stream ended or Close was called
	pending    []*prefetchBatch // batches read ahead before a pause, in order
	gen        int              // ring generation, one per start

	cur   *prefetchBatch
	evs   []Event // cur.events[:cur.n]
	i, di int     // next event and next delta of cur
	lim   int     // Next needs no checks while i < lim
	ev    *Event
	zero  Event
	err   error
}

// prefetchBatch is one element of the ring.
type prefetchBatch struct {
	events []Event // len BatchEvents; [:n] filled
	n      int
	gen    int         // the ring (start) it belongs to
	deltas []defsDelta // [:nd] in use, ordered by at
	nd     int
	end    bool  // the last batch of the stream
	err    error // the source's error, with end
}

// NewPrefetcher returns a Prefetcher over src. It copies src.Defs() as they
// are now; src.Defs() must return the same *Defs for the whole stream, as
// every Source in the SDK does. opts is copied; nil means defaults.
func NewPrefetcher(src Source, opts *PrefetchOptions) *Prefetcher {
	p := &Prefetcher{src: src, sdefs: src.Defs()}
	if opts != nil {
		p.opts = *opts
	}
	if p.opts.BatchEvents <= 0 {
		p.opts.BatchEvents = 2048
	}
	if p.opts.Batches <= 0 {
		p.opts.Batches = 3
	}
	p.opts.Batches = max(p.opts.Batches, 2)
	if p.sdefs == nil {
		p.sdefs = new(Defs)
	}
	var x defsDelta
	p.sdefs.deltaSince(&p.mark, &x)
	p.defs.adopt(p.sdefs, &x)
	p.ev = &p.zero
	return p
}

// adopt is apply for the first delta, x, taken from src into an empty d:
// the locations and regions, which a trace of many locations has by the
// million, are src's own arrays, shared rather than copied (a Defs only
// appends to them, and the shared part is clipped, so that either side's
// appends go to an array of its own or past the other's end); the
// native-id indexes are d's own, built from them.
func (d *Defs) adopt(src *Defs, x *defsDelta) {
	if len(d.locs) != 0 || len(d.regions) != 0 || len(x.locs) != len(src.Locations()) || len(x.regions) != len(src.regions[min(1, len(src.regions)):]) {
		d.apply(x)
		return
	}
	d.locs = src.locs[:len(src.locs):len(src.locs)]
	for _, l := range x.locs {
		d.locNative.set(l.Native, l.ID)
	}
	d.regions = src.regions[:len(src.regions):len(src.regions)]
	for _, r := range x.regions {
		d.regionNative.set(r.Native, r.ID)
	}
	d.gen += uint64(len(x.locs) + len(x.regions))
	x.locs, x.regions = nil, nil
	d.apply(x)
}

// start starts the goroutine with a new ring, from the source's current
// position and p.mark.
func (p *Prefetcher) start() {
	p.running = true
	p.free = make(chan *prefetchBatch, p.opts.Batches)
	p.full = make(chan *prefetchBatch, p.opts.Batches)
	p.stop = make(chan struct{})
	p.gen++
	for range p.opts.Batches {
		p.free <- &prefetchBatch{events: make([]Event, p.opts.BatchEvents), gen: p.gen}
	}
	go p.run(p.src, p.sdefs, p.mark)
}

// run is the goroutine: it fills free batches from src and passes them on,
// until the end of the stream or a stop. On a stop it passes on the events
// it has read (the full channel has room for every batch of the ring, so
// sending never blocks) and leaves the mark in p.mark, so that a pause
// loses nothing.
func (p *Prefetcher) run(src Source, d *Defs, mark defsMark) {
	defer close(p.full)
	defer func() { p.mark = mark }()
	bulk, _ := src.(BulkSource)
	for {
		if p.stopped() {
			return
		}
		var b *prefetchBatch
		select {
		case b = <-p.free:
		case <-p.stop:
			return
		}
		b.nd, b.end, b.err = 0, false, nil
		events := b.events
		n := 0
	fill:
		for n < len(events) {
			if n > 0 && p.stopped() { // every 256 events
				b.n = n
				p.full <- b
				return
			}
			chunk := events[:min(n+256, len(events))]
			for n < len(chunk) {
				if bulk != nil {
					k := bulk.ReadEvents(chunk[n:])
					n += k
					if k > 0 && d.changed(&mark) { // against the contract; early is safer than late
						d.deltaSince(&mark, b.delta(n-k))
					}
					if k > 0 && n < len(chunk) {
						continue
					}
					if n == len(chunk) {
						break
					}
				}
				if !src.Next() {
					b.end, b.err = true, src.Err()
					break fill
				}
				if d.changed(&mark) {
					d.deltaSince(&mark, b.delta(n))
				}
				chunk[n] = *src.Event()
				n++
			}
		}
		b.n = n
		if b.end {
			// A last delta with all of Recorded, which sources may set
			// in place.
			x := b.delta(b.n)
			d.deltaSince(&mark, x)
			x.recorded = append(x.recorded[:0], d.Recorded...)
			x.allRecorded = true
		}
		p.full <- b
		if b.end {
			return
		}
	}
}

// stopped reports whether Close asked the goroutine to stop.
func (p *Prefetcher) stopped() bool {
	select {
	case <-p.stop:
		return true
	default:
		return false
	}
}

// delta returns a cleared delta of b that applies before event at.
func (b *prefetchBatch) delta(at int) *defsDelta {
	if b.nd == len(b.deltas) {
		b.deltas = append(b.deltas, defsDelta{})
	}
	x := &b.deltas[b.nd]
	b.nd++
	rec := x.recorded[:0]
	*x = defsDelta{at: at, recorded: rec}
	return x
}

// Next advances to the next event of the source, bringing Defs up to date
// with it. It starts the goroutine on the first call.
func (p *Prefetcher) Next() bool {
	if p.i < p.lim {
		p.ev = &p.evs[p.i]
		p.i++
		return true
	}
	return p.next()
}

// next is Next at a definition change or the end of a batch.
func (p *Prefetcher) next() bool {
	for {
		if b := p.cur; b != nil {
			for p.di < b.nd && b.deltas[p.di].at <= p.i {
				p.defs.apply(&b.deltas[p.di])
				p.di++
			}
			if p.i < b.n {
				// The events up to the next change need no checks.
				p.lim = b.n
				if p.di < b.nd {
					p.lim = b.deltas[p.di].at
				}
				p.ev = &p.evs[p.i]
				p.i++
				return true
			}
			p.evs, p.lim = nil, 0
			if b.end {
				p.err = b.err
				p.finish()
				return false
			}
			p.cur = nil
			if p.running && b.gen == p.gen {
				p.free <- b // never blocks: the ring has room for every batch
			}
		}
		if p.finished {
			return false
		}
		var b *prefetchBatch
		if len(p.pending) > 0 {
			b = p.pending[0]
			p.pending[0] = nil
			p.pending = p.pending[1:]
		} else {
			if !p.running {
				p.start()
			}
			var ok bool
			if b, ok = <-p.full; !ok { // the goroutine stops only when asked to
				p.finished = true
				return false
			}
		}
		p.cur, p.evs, p.i, p.di = b, b.events[:b.n], 0, 0
	}
}

// finish waits for the goroutine to exit after its last batch.
func (p *Prefetcher) finish() {
	p.finished = true
	p.pending = nil
	if p.running {
		for range p.full {
		}
		p.running = false
	}
}

// pause stops the goroutine and waits for it, keeping the batches it has
// filled in p.pending.
func (p *Prefetcher) pause() {
	if !p.running || p.finished {
		return
	}
	close(p.stop)
	for b := range p.full {
		p.pending = append(p.pending, b)
	}
	p.running = false
}

// Event returns the current event. It is valid until the next call to Next
// or Close. Before the first Next it returns a zero Event.
func (p *Prefetcher) Event() *Event { return p.ev }

// Err returns the source's error once Next has returned false; nil after a
// clean end or a Close.
func (p *Prefetcher) Err() error { return p.err }

// Defs returns the copy of the source's definitions, as they were when the
// source yielded the current event.
func (p *Prefetcher) Defs() *Defs { return &p.defs }

// All returns a single-use iterator over the remaining events; see [All].
// A loop that ends early stops the goroutine and waits for it (see the
// type's documentation); a later Next or All continues with the following
// event.
func (p *Prefetcher) All() iter.Seq2[*Event, error] {
	return func(yield func(*Event, error) bool) {
		defer p.pause() // a loop that ends early; nothing to do after the end
		for p.Next() {
			if !yield(p.Event(), nil) {
				return
			}
		}
		if err := p.Err(); err != nil {
			yield(nil, err)
		}
	}
}

// Close stops the goroutine, if it runs, and waits for it to exit, which
// may take up to 256 more calls to the source's Next. Afterwards Next
// returns false. Close does not close the source.
func (p *Prefetcher) Close() {
	if p.finished {
		return
	}
	p.finished = true
	if p.running {
		close(p.stop)
		for range p.full {
		}
		p.running = false
	}
	p.pending = nil
	p.cur, p.evs, p.lim = nil, nil, 0
	p.ev = &p.zero
}

// defsMark records the state of a Defs that a copy has caught up with.
type defsMark struct {
	gen      uint64
	tb       TimeBase
	bounds   Bounds
	rel      *RelativeStats
	recorded int

	// lengths of the tables
	locs, regions, sites, comms, counters, subsets, strings int
}

// changed reports whether d differs from m: definitions added, a new time
// base, Bounds or Relative, or Recorded of another length.
func (d *Defs) changed(m *defsMark) bool {
	return d.gen != m.gen || d.TimeBase != m.tb || d.Bounds != m.bounds || d.Relative != m.rel || len(d.Recorded) != m.recorded
}

// defsDelta holds what a Defs gained since a mark. The table slices are
// sub-slices of the Defs' own tables, whose elements are never written
// again once added; Recorded, an exported slice that its owner may write,
// is copied.
type defsDelta struct {
	at          int // index of the first event of the batch that sees it
	tb          TimeBase
	bounds      Bounds
	rel         *RelativeStats
	locs        []Location
	regions     []Region
	sites       []Site
	comms       []Comm
	counters    []Counter
	subsets     []Subset
	strings     []string
	recorded    []Recorded
	allRecorded bool // recorded replaces Recorded instead of extending it
}

// deltaSince fills x with what d gained since m and moves m to now.
func (d *Defs) deltaSince(m *defsMark, x *defsDelta) {
	x.tb = d.TimeBase
	x.bounds = d.Bounds
	x.rel = d.Relative
	x.locs = since(d.locs, m.locs)
	x.regions = since(d.regions, m.regions)
	x.sites = since(d.sites, m.sites)
	x.comms = since(d.comms, m.comms)
	x.counters = since(d.counters, m.counters)
	x.subsets = since(d.subsets, m.subsets)
	x.strings = since(d.strings, m.strings)
	if len(d.Recorded) >= m.recorded {
		x.recorded = append(x.recorded[:0], d.Recorded[m.recorded:]...)
	} else {
		x.recorded = append(x.recorded[:0], d.Recorded...)
		x.allRecorded = true
	}
	*m = defsMark{
		gen: d.gen, tb: d.TimeBase, bounds: d.Bounds, rel: d.Relative, recorded: len(d.Recorded),
		locs: len(d.locs), regions: len(d.regions), sites: len(d.sites), comms: len(d.comms),
		counters: len(d.counters), subsets: len(d.subsets), strings: len(d.strings),
	}
}

// since returns the elements of a table from index n on, skipping the
// unused element 0.
func since[T any](s []T, n int) []T {
	n = max(n, 1)
	if len(s) <= n {
		return nil
	}
	return s[n:len(s):len(s)]
}

// apply adds the definitions of x to d, which must be a copy of the Defs x
// was taken from, caught up to the same mark, so that every id comes out
// the same.
func (d *Defs) apply(x *defsDelta) {
	d.TimeBase = x.tb
	d.Bounds = x.bounds
	d.Relative = x.rel
	for _, v := range x.locs {
		d.AddLocation(v)
	}
	for _, v := range x.regions {
		d.AddRegion(v)
	}
	for _, v := range x.sites {
		d.AddSite(v)
	}
	for _, v := range x.comms {
		d.AddComm(v)
	}
	for _, v := range x.counters {
		d.AddCounter(v)
	}
	for _, v := range x.subsets {
		d.AddSubset(v)
	}
	for _, v := range x.strings {
		d.Intern(v)
	}
	if x.allRecorded {
		d.Recorded = append(d.Recorded[:0:0], x.recorded...)
	} else if len(x.recorded) > 0 {
		d.Recorded = append(d.Recorded, x.recorded...)
	}
}
