package main

import (
	"bufio"
	"os"
	"path/filepath"

	"github.com/hpctrace/hpctrace/dumpi"
	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/otf"
	"github.com/hpctrace/hpctrace/picl"
)

// A modelInput opens a fresh model source over the input and returns it
// with the function that closes what it opened. A conversion opens the
// input twice: once to learn the definitions and the time range, once to
// write the events.
type modelInput func() (model.Source, func() error, error)

// piclModel reads a PICL trace through picl.NewModelSource.
func piclModel(in string) modelInput {
	return func() (model.Source, func() error, error) {
		f, err := os.Open(in)
		if err != nil {
			return nil, nil, err
		}
		r, err := picl.NewReader(bufio.NewReaderSize(f, 1<<16), &picl.ReaderOptions{Path: in})
		if err != nil {
			f.Close()
			return nil, nil, err
		}
		src, err := picl.NewModelSource(r, nil)
		if err != nil {
			f.Close()
			return nil, nil, err
		}
		return src, f.Close, nil
	}
}

// dumpiModel reads one DUMPI rank file (rank from the -NNNN suffix) or,
// for a .meta file, every rank of the run merged by time. The first source
// closed tells stderr what it could not map (see dumpiNotes); later passes
// over the same input say nothing more.
func dumpiModel(in string) modelInput {
	told := false
	tell := func(src *dumpi.ModelSource) {
		if !told {
			told = true
			dumpiNotes(os.Stderr, in, src)
		}
	}
	return func() (model.Source, func() error, error) {
		if hasExt(in, ".meta") {
			run, err := dumpi.OpenRun(in)
			if err != nil {
				return nil, nil, err
			}
			src, err := run.Model(nil)
			if err != nil {
				run.Close()
				return nil, nil, err
			}
			return src, func() error { tell(src); return run.Close() }, nil
		}
		f, err := dumpi.Open(in)
		if err != nil {
			return nil, nil, err
		}
		rank, _ := dumpi.RankOf(in) // 0 when the name has none
		src, err := f.Model(rank, nil)
		if err != nil {
			f.Close()
			return nil, nil, err
		}
		return src, func() error { tell(src); return f.Close() }, nil
	}
}

// otfModel reads an OTF trace through otf.ModelSource.
func otfModel(in string) modelInput {
	return func() (model.Source, func() error, error) {
		t, err := otf.Open(os.DirFS(filepath.Dir(in)), filepath.Base(in))
		if err != nil {
			return nil, nil, err
		}
		src, err := otf.NewModelSource(t, nil)
		if err != nil {
			return nil, nil, err
		}
		return src, src.Close, nil
	}
}

// jsonModel reads a trace-events JSON document.
func jsonModel(in string) modelInput {
	return func() (model.Source, func() error, error) {
		f, err := os.Open(in)
		if err != nil {
			return nil, nil, err
		}
		src, err := model.NewJSONReader(bufio.NewReaderSize(f, 1<<16), &model.JSONReaderOptions{Path: in})
		if err != nil {
			f.Close()
			return nil, nil, err
		}
		return src, f.Close, nil
	}
}

// A scan is what a first pass over a model source learns: the complete
// definitions, the time range and, per location, the number of events and
// the time of the last one.
type scan struct {
	defs     *model.Defs
	events   int64
	min, max model.Time
	count    []int64      // events by LocID
	last     []model.Time // time of the last event by LocID
	colls    []collKey    // collective operations in order of first use
}

// A collKey names an OTF collective operation: a region and a class.
type collKey struct {
	region model.RegionID
	class  model.Class
}

// scanModel reads the input once.
func scanModel(in modelInput) (*scan, error) {
	src, closeSrc, err := in()
	if err != nil {
		return nil, err
	}
	defer closeSrc()
	sc := &scan{}
	seen := map[collKey]bool{}
	for src.Next() {
		ev := src.Event()
		if sc.events == 0 || ev.Time < sc.min {
			sc.min = ev.Time
		}
		if sc.events == 0 || ev.Time > sc.max {
			sc.max = ev.Time
		}
		sc.events++
		for int(ev.Loc) >= len(sc.count) {
			sc.count = append(sc.count, 0)
			sc.last = append(sc.last, 0)
		}
		sc.count[ev.Loc]++
		sc.last[ev.Loc] = ev.Time
		if ev.Kind == model.KindCollBegin {
			k := collKey{ev.Region, ev.Class}
			if !seen[k] {
				seen[k] = true
				sc.colls = append(sc.colls, k)
			}
		}
	}
	if err := src.Err(); err != nil {
		return nil, err
	}
	sc.defs = src.Defs()
	for int(sc.defs.NumLocations()) >= len(sc.count) {
		sc.count = append(sc.count, 0)
		sc.last = append(sc.last, 0)
	}
	return sc, nil
}

// closeAll runs the first non-nil error of err and close().
func closeAll(err error, close func() error) error {
	if cerr := close(); err == nil {
		err = cerr
	}
	return err
}

// stacks tracks the open regions of every location, to name the region of
// a Leave that gives none (region 0, as an OTF LEAVE without a function).
type stacks [][]model.RegionID

func (s *stacks) of(l model.LocID) *[]model.RegionID {
	for int(l) >= len(*s) {
		*s = append(*s, nil)
	}
	return &(*s)[l]
}

func (s *stacks) enter(l model.LocID, r model.RegionID) {
	st := s.of(l)
	*st = append(*st, r)
}

// leave closes the innermost open instance of r (of any region when r is
// 0) and returns its region; it reports false when none is open.
func (s *stacks) leave(l model.LocID, r model.RegionID) (model.RegionID, bool) {
	st := s.of(l)
	for i := len(*st) - 1; i >= 0; i-- {
		if (*st)[i] == r || r == 0 {
			r = (*st)[i]
			*st = (*st)[:i]
			return r, true
		}
	}
	return r, false
}
