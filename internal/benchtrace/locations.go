package benchtrace

import (
	"bufio"
	"io"
	"strconv"
)

// Locations writes to w a trace in hpctrace's event JSON (package
// eventjson, "format" trace-events-json/1,
// ticks in nanoseconds) of n locations, each with a region of its own
// that it enters and leaves once, and, after it, a call of a region that
// all locations share: the shape of a large MPI run's trace, where
// what the statistics keep per location decides the memory of a
// profile. The trace is the same for the same n.
func Locations(w io.Writer, n int) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	b := make([]byte, 0, 256)
	flush := func() error {
		_, err := bw.Write(b)
		b = b[:0]
		return err
	}
	b = append(b, `{"format":"trace-events-json/1","ticks_per_second":1000000000,"locations":[`...)
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"id":`...)
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, `,"name":"rank `...)
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, `"}`...)
		if err := flush(); err != nil {
			return err
		}
	}
	b = append(b, `],"regions":[{"id":0,"name":"main","kind":"function"}`...)
	for i := range n {
		b = append(b, `,{"id":`...)
		b = strconv.AppendInt(b, int64(i+1), 10)
		b = append(b, `,"name":"f`...)
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, `","kind":"function"}`...)
		if err := flush(); err != nil {
			return err
		}
	}
	b = append(b, `],"events":[`...)
	first := true
	ev := func(t, loc int, kind string, region int) {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, `{"t":`...)
		b = strconv.AppendInt(b, int64(t), 10)
		b = append(b, `,"loc":`...)
		b = strconv.AppendInt(b, int64(loc), 10)
		b = append(b, `,"kind":"`...)
		b = append(b, kind...)
		b = append(b, `","region":`...)
		b = strconv.AppendInt(b, int64(region), 10)
		b = append(b, '}')
	}
	// Times rise with the location so that the stream is in time order.
	for i := range n {
		ev(4*i+1, i, "enter", i+1)
		ev(4*i+2, i, "leave", i+1)
		if err := flush(); err != nil {
			return err
		}
	}
	for i := range n {
		ev(4*n+2*i+1, i, "enter", 0)
		ev(4*n+2*i+2, i, "leave", 0)
		if err := flush(); err != nil {
			return err
		}
	}
	b = append(b, "]}\n"...)
	if err := flush(); err != nil {
		return err
	}
	return bw.Flush()
}
