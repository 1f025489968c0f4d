package dumpi

import (
	"errors"
	"io/fs"
	"iter"
	"os"
	"path/filepath"

	"github.com/hpctrace/hpctrace/internal/kmerge"
)

// A Run is a traced run: its .meta file and one File per rank.
//
// OpenRun and OpenRunFS open the rank files, and the Run's Close closes
// them; a Run made by NewRun, or as a literal, owns none of its Files and
// its Close closes nothing.
type Run struct {
	Meta  *Meta   // nil for a Run made by NewRun
	Files []*File // Files[i] is rank i (rank Rank for a Run made by NewRun)

	owned  bool // OpenRun or OpenRunFS opened Files
	single bool // NewRun made the Run
	rank   int  // the rank of Files[0] when single
}

// RunOptions configures OpenRun and OpenRunFS. A nil or zero value means
// defaults.
type RunOptions struct {
	// AllowOutside lets the .meta file's fileprefix name rank files
	// outside the metafile's directory: an absolute prefix, or one that
	// climbs out with "..". By default such a prefix is refused with an
	// error wrapping ErrRange, so that a .meta file from elsewhere cannot
	// make a program open files it was not pointed at.
	AllowOutside bool

	// MaxRecord is every rank file's OpenOptions.MaxRecord.
	MaxRecord int
}

// OpenRun reads the .meta file and opens every rank's file, named
// FilePrefix-NNNN.bin in the metafile's directory. An error opening a
// rank's file is a *ParseError naming the metafile, which wraps the open
// error (so errors.Is(err, fs.ErrNotExist) reports a missing rank file).
// The Run owns the files it opened: Close closes them.
func OpenRun(metafile string, opts *RunOptions) (*Run, error) {
	return openRun(metafile, opts, func(name string) (fs.File, error) { return os.Open(name) }, filepath.Dir, filepath.Join, Open)
}

// NewRun returns a Run of one rank's file f, whose calls are those of MPI
// rank rank: its model source ([NewModelSource]) has one location per
// thread of f, the first of Native rank, and, reading no other rank,
// reconstructs no communicator. The Run's Close does not close f.
func NewRun(f *File, rank int) *Run {
	return &Run{Files: []*File{f}, single: true, rank: rank}
}

// Close closes the rank files that OpenRun or OpenRunFS opened; for a Run
// made by NewRun, or as a literal, it closes nothing. A second Close
// returns nil.
func (r *Run) Close() error {
	if !r.owned {
		return nil
	}
	var errs []error
	for _, f := range r.Files {
		errs = append(errs, f.Close())
	}
	return errors.Join(errs...)
}

// Readers returns one independent Reader per rank (Readers()[i] reads rank
// i), for reading ranks in parallel goroutines: each Reader must stay in
// one goroutine, different Readers may run concurrently.
func (r *Run) Readers() []*Reader {
	rs := make([]*Reader, len(r.Files))
	for i, f := range r.Files {
		rs[i] = f.Calls()
	}
	return rs
}

// Calls returns a reader that merges every rank's calls in wall-clock
// start order (CPU start when a call has no wall time). Ties go to the
// lower rank, then to file order.
func (r *Run) Calls() *MergedReader {
	return NewMergedReader(r.Readers())
}

// A MergedReader yields the calls of several Readers in time order with a
// k-way merge (a loser tree). It allocates nothing per call.
type MergedReader struct {
	rs   []*Reader
	t    kmerge.Tree[int64] // keys: call time, then rank
	cur  int
	init bool
	err  error
	done bool
}

// NewMergedReader merges rs; the index of a Reader in rs is its rank.
func NewMergedReader(rs []*Reader) *MergedReader {
	return &MergedReader{rs: rs, cur: -1}
}

func callTime(c *Call) int64 {
	if c.Mask&MaskWallTime != 0 {
		return c.WallStart()
	}
	return c.CPUStart()
}

// Next advances to the next call of any rank.
func (m *MergedReader) Next() bool {
	if m.done {
		return false
	}
	var w kmerge.Key[int64]
	if !m.init {
		m.init = true
		w = m.t.Start(len(m.rs), m.key)
	} else {
		w = m.t.Push(m.cur, m.key(m.cur))
	}
	if w.Done() || m.err != nil {
		m.done = true
		m.cur = -1
		return false
	}
	m.cur = w.Source()
	return true
}

// key moves rank i to its next call and returns its merge key, Done at
// the end or on an error (which it keeps).
func (m *MergedReader) key(i int) kmerge.Key[int64] {
	if m.rs[i].Next() {
		return kmerge.MakeKey(callTime(&m.rs[i].call), 0, i)
	}
	if err := m.rs[i].Err(); err != nil && m.err == nil {
		m.err = err
	}
	return kmerge.Done[int64]()
}

// Record returns the current call, owned by the rank's Reader: valid until
// the next call to Next. Use [Call.Clone] to keep it.
func (m *MergedReader) Record() *Call {
	if m.cur < 0 {
		return &Call{}
	}
	return &m.rs[m.cur].call
}

// Rank returns the rank of the current call, or -1.
func (m *MergedReader) Rank() int { return m.cur }

// Err returns the first error of any rank's Reader. The merge stops at the
// first error.
func (m *MergedReader) Err() error { return m.err }

// All returns a single-use iterator over the remaining calls (Rank gives
// the current call's rank), then at most one (nil, err).
func (m *MergedReader) All() iter.Seq2[*Call, error] {
	return func(yield func(*Call, error) bool) {
		for m.Next() {
			if !yield(&m.rs[m.cur].call, nil) {
				return
			}
		}
		if m.err != nil {
			yield(nil, m.err)
		}
	}
}
