package main

import (
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/stats"
)

// Sharded runs: "tracestat -shard i/n -save part.hps TRACE" profiles the
// locations l of TRACE with l mod n == i (location ids, 1-based; events
// of no location go to shard 0) and saves the statistics (stats
// Accumulator and CallTree states, with the definitions) instead of
// printing a report; "tracestat -merge part*.hps" joins the n shards'
// states and prints the report of the whole trace, as one run over it
// would, in text or -json. Messages between locations of different
// shards match, and collectives complete, when the states are joined.

// shardSpec is the share i/n of the locations; n == 0 means all.
type shardSpec struct{ i, n int }

func (s *shardSpec) String() string {
	if s.n == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.i, s.n)
}

func (s *shardSpec) Set(v string) error {
	a, b, ok := strings.Cut(v, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return fmt.Errorf("%q: want i/n with 0 <= i < n", v)
	}
	s.i, s.n = i, n
	return nil
}

// has reports whether location l belongs to the shard.
func (s shardSpec) has(l model.LocID) bool { return s.n == 0 || int(uint64(l)%uint64(s.n)) == s.i }

func shardFlags(fs *flag.FlagSet, cfg *config) {
	fs.Var(&cfg.shard, "shard", "profile only the locations l with l mod n == i (with -save)")
	fs.StringVar(&cfg.save, "save", "", "save the shard's state to this file instead of printing a report")
	fs.BoolVar(&cfg.merge, "merge", false, "the files are states saved by -save: print the report of their union")
}

func checkShardFlags(cfg *config, files []string) error {
	switch {
	case cfg.merge && (cfg.save != "" || cfg.shard.n > 0):
		return errors.New("-merge takes neither -save nor -shard")
	case cfg.merge && len(files) == 0:
		return errors.New("-merge needs the saved states")
	case cfg.save != "" && len(files) != 1 && cfg.synthetic == 0:
		return errors.New("-save takes one trace")
	case cfg.shard.n > 0 && cfg.save == "":
		return errors.New("-shard needs -save")
	case (cfg.save != "" || cfg.merge) && (len(cfg.at) > 0 || cfg.every != timeArg{}):
		return errors.New("-at and -every need every location at once: they cannot be sharded")
	}
	return nil
}

// shardSource passes on the events of the shard's locations only.
type shardSource struct {
	model.Source
	shard shardSpec
}

func (s *shardSource) Next() bool {
	for s.Source.Next() {
		if s.shard.has(s.Source.Event().Loc) {
			return true
		}
	}
	return false
}

// stateHeader describes the trace a saved state belongs to.
type stateHeader struct {
	name    string // the trace's name as given on the command line
	events  int64  // events profiled
	mpi     bool   // locations are MPI ranks
	clamped int64  // virtual-clock clamps
	shard   shardSpec
}

const (
	stateMagic   = "tracestat-state\x00"
	stateVersion = 1 // the layout of the file around the stats states; see stats.StateVersion
)

// encodeState returns the saved state of a shard.
func encodeState(h *stateHeader, acc *stats.Accumulator, ct *stats.CallTree) ([]byte, error) {
	as, err := acc.MarshalBinary()
	if err != nil {
		return nil, err
	}
	ts, err := ct.MarshalBinary()
	if err != nil {
		return nil, err
	}
	b := append([]byte(stateMagic), stateVersion)
	b = binary.AppendUvarint(b, uint64(len(h.name)))
	b = append(b, h.name...)
	b = binary.AppendVarint(b, h.events)
	mpi := uint64(0)
	if h.mpi {
		mpi = 1
	}
	b = binary.AppendUvarint(b, mpi)
	b = binary.AppendVarint(b, h.clamped)
	b = binary.AppendUvarint(b, uint64(h.shard.i))
	b = binary.AppendUvarint(b, uint64(h.shard.n))
	b = binary.AppendUvarint(b, uint64(len(as)))
	b = append(b, as...)
	b = binary.AppendUvarint(b, uint64(len(ts)))
	b = append(b, ts...)
	return b, nil
}

// decodeState reads a saved state; path names it in errors.
func decodeState(path string, data []byte) (*stateHeader, *stats.Accumulator, *stats.CallTree, error) {
	bad := func(what string) error { return fmt.Errorf("%s: not a tracestat state: %s", path, what) }
	if len(data) < len(stateMagic)+1 || string(data[:len(stateMagic)]) != stateMagic {
		return nil, nil, nil, bad("bad magic")
	}
	if v := data[len(stateMagic)]; v != stateVersion {
		return nil, nil, nil, bad(fmt.Sprintf("version %d, this tracestat reads version %d", v, stateVersion))
	}
	b := data[len(stateMagic)+1:]
	var err error
	u := func() uint64 {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			err = bad("truncated")
			b = nil
			return 0
		}
		b = b[n:]
		return v
	}
	i := func() int64 {
		v, n := binary.Varint(b)
		if n <= 0 {
			err = bad("truncated")
			b = nil
			return 0
		}
		b = b[n:]
		return v
	}
	bytes := func() []byte {
		n := u()
		if n > uint64(len(b)) {
			err = bad("truncated")
			b = nil
			return nil
		}
		s := b[:n]
		b = b[n:]
		return s
	}
	var h stateHeader
	h.name = string(bytes())
	h.events = i()
	h.mpi = u() == 1
	h.clamped = i()
	si, sn := u(), u()
	as, ts := bytes(), bytes()
	if err != nil {
		return nil, nil, nil, err
	}
	if sn < 1 || sn > 1<<20 || si >= sn || len(b) > 0 {
		return nil, nil, nil, bad("bad shard")
	}
	h.shard = shardSpec{int(si), int(sn)}
	acc := new(stats.Accumulator)
	if err := acc.UnmarshalBinary(as); err != nil {
		return nil, nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	ct := stats.NewCallTree(acc.Defs(), nil)
	if err := ct.UnmarshalBinary(ts); err != nil {
		return nil, nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return &h, acc, ct, nil
}

// saveState writes the state of a shard to path, through a temporary file
// renamed into place, so that a failed write leaves no file that looks
// whole.
func saveState(path string, h *stateHeader, acc *stats.Accumulator, ct *stats.CallTree) error {
	data, err := encodeState(h, acc, ct)
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("saving the state: %w", err)
	}
	return nil
}

// shardSet joins the states of the shards of one run, checking that each
// shard comes once and that they are of one trace.
type shardSet struct {
	h    stateHeader
	acc  *stats.Accumulator
	ct   *stats.CallTree
	seen []bool
}

func (s *shardSet) add(path string, h *stateHeader, acc *stats.Accumulator, ct *stats.CallTree) error {
	if s.acc == nil {
		s.h, s.acc, s.ct = *h, acc, ct
		s.seen = make([]bool, h.shard.n)
		s.seen[h.shard.i] = true
		return nil
	}
	if h.shard.n != s.h.shard.n || h.name != s.h.name || h.mpi != s.h.mpi {
		return fmt.Errorf("%s: shard %s of %s is not of the run of shard %s of %s", path, &h.shard, h.name, &s.h.shard, s.h.name)
	}
	if s.seen[h.shard.i] {
		return fmt.Errorf("%s: shard %s given twice", path, &h.shard)
	}
	s.seen[h.shard.i] = true
	if err := s.acc.Join(acc); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := s.ct.Join(ct); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	s.h.events += h.events
	s.h.clamped += h.clamped
	return nil
}

// complete returns an error naming the missing shards, if any.
func (s *shardSet) complete() error {
	var missing []string
	for i, ok := range s.seen {
		if !ok {
			missing = append(missing, fmt.Sprintf("%d/%d", i, len(s.seen)))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("shards missing: %s", strings.Join(missing, " "))
	}
	return nil
}

// mergeStates prints the report of the saved states in files.
func mergeStates(out io.Writer, files []string, cfg *config) error {
	var set shardSet
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		h, acc, ct, err := decodeState(path, data)
		if err != nil {
			return err
		}
		if err := set.add(path, h, acc, ct); err != nil {
			return err
		}
	}
	if err := set.complete(); err != nil {
		return err
	}
	return writeReport(out, &set.h, set.acc, set.ct, cfg)
}
