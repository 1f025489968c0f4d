// Package progress shows the progress of a long run on a terminal: the
// records (or bytes) done, of the total when it is known, the rate and the
// time left. It shows nothing when its writer is not a terminal, and
// nothing for a run that ends within the first second. It is plumbing for
// the programs under examples/.
package progress

import (
	"fmt"
	"io"
	"os"
	"time"
)

// Meter reports progress on w, at most once a second. The zero value is
// not usable; use New. A Meter is not safe for concurrent use.
type Meter struct {
	w     io.Writer
	name  string
	unit  string
	total int64
	start time.Time
	last  time.Time
	tty   bool
	shown bool
	count int64 // bytes read through Reader and FS
	now   func() time.Time
}

// New returns a Meter for a run named name counting unit ("events",
// "records", "bytes"). It is active only when w is a terminal.
func New(w io.Writer, name, unit string) *Meter {
	m := &Meter{w: w, name: name, unit: unit, now: time.Now, tty: IsTerminal(w)}
	m.start = m.now()
	m.last = m.start
	return m
}

// ForOutput is New for a program that prints its results to out: the
// Meter is active only when w is a terminal and out is not, so that
// progress lines never mix with the results on one screen.
func ForOutput(w, out io.Writer, name, unit string) *Meter {
	m := New(w, name, unit)
	m.tty = m.tty && !IsTerminal(out)
	return m
}

// IsTerminal reports whether w is a character device such as a terminal,
// other than the null device. A writer with an Unwrap method (such as a
// termsafe.Writer) is asked about the writer it wraps.
func IsTerminal(w io.Writer) bool {
	for {
		u, ok := w.(interface{ Unwrap() io.Writer })
		if !ok {
			break
		}
		w = u.Unwrap()
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	if err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	null, err := os.Stat(os.DevNull)
	return err != nil || !os.SameFile(st, null)
}

// SetTotal gives the number of units the run will do (0: unknown), so
// that the Meter shows the share done and the time left.
func (m *Meter) SetTotal(n int64) { m.total = n }

// Update reports that n units are done. It reads the clock, so callers
// that count records call it every few thousand records.
func (m *Meter) Update(n int64) {
	if !m.tty {
		return
	}
	now := m.now()
	if now.Sub(m.last) < time.Second {
		return
	}
	m.last = now
	m.shown = true
	fmt.Fprint(m.w, "\r"+m.Line(n, now.Sub(m.start))+"\x1b[K")
}

// Done ends the report with a summary line, if anything was shown. A
// second call does nothing.
func (m *Meter) Done(n int64) {
	if !m.shown {
		return
	}
	m.shown = false
	el := m.now().Sub(m.start)
	fmt.Fprintf(m.w, "\r%s: %s %s in %.1f s, %s/s\x1b[K\n", m.name, count(n), m.unit, el.Seconds(), count(int64(rate(n, el))))
}

// Line formats the progress after n units in el: "NAME: 1.2 M of 10 M
// events (12%), 3.4 M/s, 3 s left", or without the total when it is
// unknown.
func (m *Meter) Line(n int64, el time.Duration) string {
	r := rate(n, el)
	s := fmt.Sprintf("%s: %s", m.name, count(n))
	if m.total > 0 {
		s += fmt.Sprintf(" of %s %s (%d%%)", count(m.total), m.unit, n*100/m.total)
	} else {
		s += " " + m.unit
	}
	s += fmt.Sprintf(", %s/s", count(int64(r)))
	if m.total > 0 && r > 0 && n <= m.total {
		left := time.Duration(float64(m.total-n) / r * float64(time.Second)).Round(time.Second)
		s += fmt.Sprintf(", %v left", left)
	}
	return s
}

func rate(n int64, el time.Duration) float64 {
	if el <= 0 {
		return 0
	}
	return float64(n) / el.Seconds()
}

// count formats n with a k, M or G suffix.
func count(n int64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.1f G", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.1f M", float64(n)/1e6)
	case n >= 1e4:
		return fmt.Sprintf("%.1f k", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}
