package otf2

// TimesAscend reports whether the clock-corrected times of every location
// of s can be relied on not to decrease, on which SeekTime's bisection
// and a read that stops at the first event at a time rely: each
// location's clock offsets correct time forwards (no segment between two
// offsets, nor the extrapolation before the first or after the last, has
// a slope below -1), and the time stamps its event file's chunks start
// with do not decrease. It reads the local definitions and one small
// piece of each chunk (27 bytes); it does not decode events, so times
// that decrease inside a chunk (a damaged file: libotf2's writer refuses
// them) are not seen. Call it before the first Next.
func (s *ModelSource) TimesAscend() (bool, error) {
	for _, l := range s.locs {
		if !l.r.clk.ascends() {
			return false, nil
		}
		if l.r.empty {
			continue // no event file
		}
		ra, size, err := l.r.seekable()
		if err != nil {
			return false, err
		}
		ok, err := l.r.chunkTimesAscend(ra, (size+l.r.opts.ChunkSize-1)/l.r.opts.ChunkSize)
		if err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

// ascends reports whether the correction keeps the order of times: the
// slope of every segment between two offsets is -1 or more.
func (c *clock) ascends() bool {
	for i := 1; i < len(c.offs); i++ {
		a, b := c.offs[i-1], c.offs[i]
		if b.Time <= a.Time {
			continue // not used by correct: a zero-length segment
		}
		if float64(b.Offset)-float64(a.Offset) < -float64(b.Time-a.Time) {
			return false
		}
	}
	return true
}
