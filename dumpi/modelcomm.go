package dumpi

import (
	"maps"
	"slices"

	"github.com/hpctrace/hpctrace/model"
)

// cref is a rank's binding of a communicator handle in the model pass.
type cref struct {
	handle Comm
	id     model.CommID
	v      cview  // v.g is nil when the membership is unknown
	why    string // why it is unknown
	msgs   int64  // messages whose peer could not be mapped
	colls  int64  // collectives on it
	bad    int64  // Comm_rank and Comm_size results that contradict it
}

// CommReport returns the report on how the source mapped ranks in
// communicators other than MPI_COMM_WORLD and MPI_COMM_SELF to locations
// (a [model.CommReporter]): the communicators reconstructed from the
// constructor calls of every rank, the handles of unknown membership
// that messages or collectives used, and the recorded MPI_Comm_rank and
// MPI_Comm_size results that contradict the reconstruction. The counts
// cover the events read so far; they are complete at the end of the
// stream.
func (s *ModelSource) CommReport() model.CommReport {
	r := s.report
	r.Notes = nil
	if s.cset != nil {
		r.Reconstructed = s.cset.made
		r.Notes = append(r.Notes, s.cset.noteLines()...)
	}
	r.Unknown = 0
	for _, rm := range s.ranks {
		for _, c := range rm.unknown {
			if c.msgs == 0 && c.colls == 0 {
				continue
			}
			r.Unknown++
			r.Notes = append(r.Notes, "rank "+itoa(rm.rank)+": communicator handle "+itoa(int(c.handle))+
				": "+itoa64(c.msgs)+" messages and "+itoa64(c.colls)+" collectives on a communicator of unknown membership ("+c.why+")")
		}
		for _, h := range slices.Sorted(maps.Keys(rm.comms)) {
			if c := rm.comms[h]; c.bad > 0 {
				r.Notes = append(r.Notes, "rank "+itoa(rm.rank)+": communicator handle "+itoa(int(c.handle))+
					": "+itoa64(c.bad)+" MPI_Comm_rank or MPI_Comm_size results contradict its reconstructed membership")
			}
		}
	}
	return r
}

func itoa64(v int64) string { return itoa(int(v)) }

// reconstruct reads the communicator and group constructors of every rank
// (a first pass over the run, only when some footer counts a recorded
// constructor call) and defines the communicators they make.
//
// The first pass reads a rank's calls up to its last communicator-making
// call, as many as its footer counts recorded: the group constructors and
// frees after it cannot change what the calls before made. A rank whose
// footer counts none is not read; one without a footer, or whose footer
// counts more calls of such a function not recorded than made, is read
// to its end.
func (s *ModelSource) reconstruct(files []*File) error {
	n := len(files)
	need := false
	want := make([]int64, n) // the rank's recorded communicator-making calls; -1: unknown
	for i, f := range files {
		ft, err := f.Footer()
		if err != nil {
			return err
		}
		if f.Index.Footer == 0 {
			want[i] = -1
		}
		for l := range Label(LabelAllFunctions) {
			if !commLabel(l) {
				continue
			}
			if ft.Called[l] > ft.Ignored[l] && makesComm(l) {
				need = true
			}
			switch {
			case !makesComm(l) || want[i] < 0:
			case ft.Ignored[l] > ft.Called[l]:
				want[i] = -1
			default:
				want[i] += int64(ft.Called[l] - ft.Ignored[l])
			}
			if ft.Ignored[l] > 0 {
				s.notes = append(s.notes, "rank "+itoa(i)+": the footer counts "+itoa(int(ft.Ignored[l]))+" "+l.String()+
					" calls that were not recorded; communicators built after them may be unknown or misassigned")
			}
		}
	}
	if !need {
		s.cset = &commSet{results: make([][]uint32, n)}
		s.cset.notes = s.notes
		return nil
	}
	// The simulation pulls each rank's calls as it replays them.
	next := make([]func() (commOp, bool), n)
	for i, f := range files {
		if want[i] == 0 {
			continue
		}
		var r *Reader
		made := int64(0)
		next[i] = func() (commOp, bool) {
			if r == nil {
				r = f.Calls()
			}
			for made != want[i] && r.Next() {
				c := r.Record()
				if !commLabel(c.Label) {
					continue
				}
				if makesComm(c.Label) {
					made++
				}
				if op, ok := opOf(c); ok {
					return op, true
				}
			}
			// A read error ends the rank's constructors here; the model
			// pass reports it after the events before it.
			return commOp{}, false
		}
	}
	cs := resolveCommsFrom(n, next)
	cs.notes = append(s.notes, cs.notes...)
	s.cset = cs
	locs := func(ranks []int32) []model.LocID {
		out := make([]model.LocID, len(ranks))
		for i, r := range ranks {
			out[i] = s.locOf(r)
		}
		return out
	}
	for i, g := range cs.all {
		native := int64(DUMPI_FIRST_USER_COMM) + int64(i)
		parent := "MPI_COMM_WORLD"
		if g.parent != nil && g.parent.index >= 0 {
			parent = "comm " + itoa(int(int64(DUMPI_FIRST_USER_COMM)+int64(g.parent.index)))
		} else if g.parent != nil && len(g.parent.members) == 1 && n > 1 {
			parent = "MPI_COMM_SELF"
		} else if g.parent == nil {
			parent = "two groups"
		}
		c := model.Comm{Native: native, Name: "comm " + itoa(int(native)) + " (" + g.label.String() + " of " + parent + ")", Members: locs(g.members)}
		if g.remote != nil {
			c.Remote = locs(g.remote)
		}
		if id := s.defs.AddComm(c); i == 0 {
			s.comm0 = id
		}
	}
	for i, rm := range s.ranks {
		rm.results = cs.results[i]
	}
	// The ranks hold their results now, and the model definitions the
	// communicators: each result names its communicator, and once no
	// result left does, release lets go of it.
	cs.results, cs.all = nil, nil
	return nil
}

// take returns the rank's next result. The model pass counts it
// consumed (a reveal pass replays them all again).
func (rm *rankModel) take() cresult {
	cs := rm.s.cset
	i := rm.results[rm.ci]
	rm.ci++
	res := cs.views[i]
	if !rm.replay {
		cs.unref(i)
		rm.release()
	}
	return res
}

// unref counts one result naming view i consumed.
func (cs *commSet) unref(i uint32) {
	cs.since++
	if cs.refs[i]--; cs.refs[i] == 0 {
		cs.dead++
	}
}

// releaseAfter is the number of results a rank consumes, and of
// distinct results no result left names, before release lets go of them.
const releaseAfter = 1024

// release lets go of the results the model pass has consumed, and of
// the distinct results (and so the communicators' records) no result
// left names, once no pass can read them again: the reveal pass replays
// every rank's calls from its first, so until it ran they are all kept;
// after it, the results of the ranks not read are let go of at once.
// A rank's results are copied when at least half of them (and
// releaseAfter) are consumed; the distinct results are renumbered when
// those named by none are at least releaseAfter and half of them, and
// the results consumed since the last renumbering at least a quarter of
// what it costs (renumberWork), so that it costs amortised O(1) a call
// too. What is held while reading is then what the calls not read yet
// need, not what the whole run made.
func (rm *rankModel) release() {
	s := rm.s
	if !s.revealed {
		return
	}
	if rm.ci >= releaseAfter && 2*rm.ci >= len(rm.results) {
		rm.results = slices.Clone(rm.results[rm.ci:])
		rm.ci = 0
	}
	cs := s.cset
	if cs.work == 0 {
		for _, o := range s.ranks {
			if o.r == nil {
				for _, i := range o.results[o.ci:] {
					cs.unref(i)
				}
				o.results, o.ci = nil, 0
			}
		}
		cs.work, cs.since = s.renumberWork(), 0
	}
	if cs.dead < max(releaseAfter, (len(cs.views)+1)/2) || cs.since < cs.work {
		return
	}
	at := make([]uint32, len(cs.views)) // new index by old
	views := make([]cresult, 0, len(cs.views)-cs.dead)
	refs := make([]int32, 0, len(cs.views)-cs.dead)
	for i, v := range cs.views {
		if cs.refs[i] > 0 {
			at[i] = uint32(len(views))
			views = append(views, v)
			refs = append(refs, cs.refs[i])
		}
	}
	for _, o := range s.ranks {
		for j := o.ci; j < len(o.results); j++ {
			o.results[j] = at[o.results[j]]
		}
	}
	cs.views, cs.refs, cs.dead = views, refs, 0
	cs.work, cs.since = s.renumberWork(), 0
}

// renumberWork returns a quarter of what renumbering the distinct
// results costs: their number and that of the results left to consume.
// Neither grows while the events are read, so renumbering once as many
// results were consumed costs at most four steps a result consumed.
func (s *ModelSource) renumberWork() int {
	left := 0
	for _, o := range s.ranks {
		left += len(o.results) - o.ci
	}
	return (len(s.cset.views) + left + 3) / 4
}

// commCall applies a call that creates or frees a communicator to the
// rank's handles, and checks Comm_rank and Comm_size results against the
// reconstruction.
func (rm *rankModel) commCall(c *Call) {
	switch a := c.Args().(type) {
	case *CommFree:
		delete(rm.comms, a.Comm)
		return
	case *CommRank:
		if a.Comm != MPI_COMM_WORLD && a.Comm != MPI_COMM_SELF {
			if r := rm.ref(a.Comm); r.v.g != nil && r.v.me != a.Rank {
				r.bad++
				rm.s.report.Mismatches++
			}
		}
		return
	case *CommSize:
		if a.Comm != MPI_COMM_WORLD && a.Comm != MPI_COMM_SELF {
			if r := rm.ref(a.Comm); r.v.g != nil {
				if local, _ := r.v.g.group(r.v.side); int(a.Size) != len(local) {
					r.bad++
					rm.s.report.Mismatches++
				}
			}
		}
		return
	}
	if !makesComm(c.Label) {
		return
	}
	op, ok := opOf(c)
	if !ok {
		return
	}
	if rm.s.cset == nil {
		if op.out != MPI_COMM_NULL {
			delete(rm.comms, op.out)
			rm.unknownRef(op.out, "not reconstructed: the run's rank files were not all read")
		}
		return
	}
	if rm.ci >= len(rm.results) {
		// The first pass stopped before this call: it read as many
		// communicator-making calls as the footer counts, and the file
		// records more (it meets a read error no later than this pass).
		if op.out != MPI_COMM_NULL {
			delete(rm.comms, op.out)
			rm.unknownRef(op.out, "not reconstructed: the file records more communicator-making calls than its footer counts")
		}
		return
	}
	res := rm.take()
	if op.out == MPI_COMM_NULL {
		return
	}
	delete(rm.comms, op.out)
	switch {
	case res.null:
	case res.v.g != nil:
		rm.comms[op.out] = &cref{handle: op.out, v: res.v, id: rm.s.comm0 + model.CommID(res.v.g.index)}
	default:
		rm.unknownRef(op.out, res.v.why)
	}
}
