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
