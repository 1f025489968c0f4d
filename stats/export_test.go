package stats

// SpillAt sets the number of waiting message ends a holds in memory above
// which the oldest spill to its temporary file (-1: never), for tests.
func SpillAt(a *Accumulator, n int) { a.comm.sp.at = n }

// Spilled returns how many ends a has spilled and read back so far.
func Spilled(a *Accumulator) (spills, reloads int64) { return a.comm.sp.spills, a.comm.sp.reloads }

// FailSpillReads makes every later read of a's spill file fail with err
// (a must have spilled already).
func FailSpillReads(a *Accumulator, err error) {
	a.comm.sp.f = failingReads{a.comm.sp.f, err}
}

type failingReads struct {
	spillFile
	err error
}

func (f failingReads) ReadAt([]byte, int64) (int, error) { return 0, f.err }

// CountSpillWrites counts the later writes to a's spill file (a must
// have spilled already); the returned function tells how many so far.
// With fail, each of them fails instead.
func CountSpillWrites(a *Accumulator, fail error) func() int {
	w := &countingWrites{spillFile: a.comm.sp.f, fail: fail}
	a.comm.sp.f = w
	return func() int { return w.n }
}

type countingWrites struct {
	spillFile
	n    int
	fail error
}

func (f *countingWrites) WriteAt(b []byte, off int64) (int, error) {
	f.n++
	if f.fail != nil {
		return 0, f.fail
	}
	return f.spillFile.WriteAt(b, off)
}
