// Package benchtrace generates the large synthetic traces that the PICL
// reader's benchmarks and the side-by-side harness (bench/) both read, so
// that the figures of one and the other are about the same bytes.
package benchtrace

import (
	"io"
	"strconv"
)

// PICLProcs is the number of processors of the PICL benchmark trace.
const PICLProcs = 64

// PICL writes a PICL trace of about size bytes to w: 64 processors in
// time order, with -901 brackets, user events with two integers, sends
// (3 integers), receive entries (1) and exits (3), clock syncs, user
// records with a float value, and per-processor statistics with quoted
// descriptors every few hundred records. The trace is the same for the
// same size; it is written in pieces of about 64 KiB.
func PICL(w io.Writer, size int64) error {
	const procs = PICLProcs
	var b []byte
	var n int64 // bytes written to w
	seed := uint64(1)
	rnd := func(n int) int {
		seed = seed*6364136223846793005 + 1442695040888963407
		return int(seed>>33) % n
	}
	t := 0.0
	line := func(rt, ev int, p int, data ...int) {
		b = strconv.AppendInt(b, int64(rt), 10)
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(ev), 10)
		b = append(b, ' ')
		b = strconv.AppendFloat(b, t, 'f', 6, 64)
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(p), 10)
		b = append(b, " 0 "...)
		b = strconv.AppendInt(b, int64(len(data)), 10)
		if len(data) > 0 {
			b = append(b, " 2"...)
			for _, d := range data {
				b = append(b, ' ')
				b = strconv.AppendInt(b, int64(d), 10)
			}
		}
		b = append(b, '\n')
	}
	flush := func() error {
		n += int64(len(b))
		_, err := w.Write(b)
		b = b[:0]
		return err
	}
	b = append(b, "-5 1 -1.000000 -1 -1 14 0 ring broadcast\n"...)
	for p := range procs {
		line(-3, -901, p)
	}
	for i := 0; n+int64(len(b)) < size-4096; i++ {
		t += 0.000001 * float64(1+rnd(5))
		p := rnd(procs)
		switch rnd(8) {
		case 0:
			line(-3, 1, p, 0, 0)
		case 1:
			line(-4, 1, p, 0, 0)
		case 2:
			line(-3, -21, p, 8+rnd(1024), rnd(4), (p+1)%procs)
		case 3:
			line(-4, -21, p)
		case 4:
			line(-3, -52, p, rnd(4))
		case 5:
			line(-4, -52, p, 8+rnd(1024), rnd(4), (p+procs-1)%procs)
		case 6:
			line(-2, -904, p, 1, 1, 1)
		default:
			if i%64 == 0 {
				b = append(b, "-101 -1 "...)
				b = strconv.AppendFloat(b, t, 'f', 6, 64)
				b = append(b, ' ')
				b = strconv.AppendInt(b, int64(p), 10)
				b = append(b, ` 0 3 "%d%lf" -21 0.000046 -52 0.001212 -901 0.717018`+"\n"...)
			} else if i%2 == 1 {
				// A user record with one %lf value (alias 5), as in
				// picl's user_records fixture.
				b = append(b, "0 3 "...)
				b = strconv.AppendFloat(b, t, 'f', 6, 64)
				b = append(b, ' ')
				b = strconv.AppendInt(b, int64(p), 10)
				b = append(b, " 0 1 5 "...)
				b = strconv.AppendFloat(b, float64(rnd(1<<20))/1e6, 'f', 6, 64)
				b = append(b, '\n')
			} else {
				line(-3, -11, p)
			}
		}
		if len(b) > 1<<16 {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	for p := range procs {
		line(-4, -901, p)
	}
	return flush()
}
