package waitstate

import (
	"cmp"
	"iter"
	"slices"

	"github.com/hpctrace/hpctrace/model"
)

// Instances analyses src and returns a single-use iterator over every
// instance of the patterns of doc/waitstates.md §2 (not only the top
// ones; a late_sender instance that is also wrong order comes twice, once
// per pattern), in the order the waiting calls were entered (ties:
// location, pattern). Instances are determined only when the whole trace
// has been read, since a wait can depend on any later event of another
// location (a send entered later, a latecomer), so the first one comes
// after the last event. A read error is yielded as the last pair, with a
// nil instance. The instance is valid until the next iteration.
func Instances(src model.Source, opts *Options) iter.Seq2[*Instance, error] {
	return func(yield func(*Instance, error) bool) {
		f, err := analyzeFin(src, opts)
		if err != nil {
			yield(nil, err)
			return
		}
		all := f.allInstances()
		sortByWaiter(all)
		var cur Instance
		for _, in := range all {
			cur = in
			if !yield(&cur, nil) {
				return
			}
		}
	}
}

// sortByWaiter sorts instances in the order of Instances: by the waiting
// call's Enter, then location, then pattern, keeping the order of
// allInstances among equals.
func sortByWaiter(all []Instance) {
	slices.SortStableFunc(all, func(x, y Instance) int {
		return cmp.Or(cmp.Compare(x.Waiter.Enter, y.Waiter.Enter), cmp.Compare(x.Waiter.Loc, y.Waiter.Loc), cmp.Compare(x.Pattern, y.Pattern))
	})
}

// analyzeFin reads src and runs the analysis, returning its working state.
func analyzeFin(src model.Source, opts *Options) (*fin, error) {
	o := Options{KeepLogs: true} // the matched messages need every log
	if opts != nil {
		o = *opts
		o.KeepLogs = true
	}
	a := New(src.Defs(), &o)
	for src.Next() {
		a.Add(src.Event())
	}
	if err := src.Err(); err != nil {
		return nil, err
	}
	a.end()
	f := a.newFin()
	f.run()
	return f, nil
}

// messages returns the matched messages in the order of Messages.
func (f *fin) messages() []Message {
	var out []Message
	for li := range f.locs {
		l := &f.locs[li]
		for i, p := range l.p2p {
			pr := f.partner[li][i]
			if p.kind != pRecv || pr.loc == 0 {
				continue
			}
			sp := &f.locs[pr.loc].p2p[pr.idx]
			out = append(out, Message{
				Sender: pr.loc, Receiver: model.LocID(li), Tag: p.tag, Comm: p.comm, Bytes: sp.bytes,
				Send:         f.callOf(pr.loc, sp.call),
				SendComplete: f.callOf(pr.loc, f.aux[pr.loc][pr.idx]),
				Post:         f.callOf(model.LocID(li), f.aux[li][i]),
				Recv:         f.callOf(model.LocID(li), p.call),
			})
		}
	}
	slices.SortStableFunc(out, func(x, y Message) int {
		return cmp.Or(cmp.Compare(x.Recv.Leave, y.Recv.Leave), cmp.Compare(x.Receiver, y.Receiver), cmp.Compare(x.Sender, y.Sender))
	})
	return out
}
