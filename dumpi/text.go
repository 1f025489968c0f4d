package dumpi

import (
	"bufio"
	"io"
)

// AppendASCII appends the call as the reference dumpi2ascii prints it: an
// "entering" line, one line per argument, a "returning" line. fnName
// resolves the address of Function_enter and Function_exit records (see
// File.FunctionNames); it may be nil. cpuBase and wallBase are the stream's
// bases (Reader.Bases).
func (c *Call) AppendASCII(b []byte, cpuBase, wallBase int32, fnName func(addr uint64) (string, bool)) []byte {
	return c.appendASCII(b, cpuBase, wallBase, printer{fnName: fnName})
}

func (c *Call) appendASCII(b []byte, cpuBase, wallBase int32, p printer) []byte {
	b = c.appendWhen(b, " entering at walltime ", cpuBase, wallBase, true)
	if c.args != nil {
		b = c.args.appendASCII(b, p)
	}
	return c.appendWhen(b, " returning at walltime ", cpuBase, wallBase, false)
}

func appendSecNsec(b []byte, base int32, on bool, sec uint16, nsec uint32) []byte {
	if !on {
		return append(b, "0.000000000"...)
	}
	b = appendInt(b, int64(base+int32(sec))) // 32-bit, as the reference reader
	b = append(b, '.')
	if nsec >= 1e9 { // more than 9 digits: print them all, as %09d does
		return appendUint(b, uint64(nsec))
	}
	// Nine digits, zero-padded, two at a time.
	var t [9]byte
	t[0] = byte('0' + nsec/1e8)
	nsec %= 1e8
	for i := 7; i > 0; i -= 2 {
		q := nsec / 100
		r := nsec - 100*q
		t[i], t[i+1] = digits2[2*r], digits2[2*r+1]
		nsec = q
	}
	return append(b, t[:]...)
}

const digits2 = "00010203040506070809" +
	"10111213141516171819" +
	"20212223242526272829" +
	"30313233343536373839" +
	"40414243444546474849" +
	"50515253545556575859" +
	"60616263646566676869" +
	"70717273747576777879" +
	"80818283848586878889" +
	"90919293949596979899"

func (c *Call) appendWhen(b []byte, what string, cpuBase, wallBase int32, start bool) []byte {
	b = append(b, c.Label.String()...)
	b = append(b, what...)
	w, cp := c.Wall, c.CPU
	if start {
		b = appendSecNsec(b, wallBase, c.Mask.WallTime(), w.StartSec, w.StartNsec)
		b = append(b, ", cputime "...)
		b = appendSecNsec(b, cpuBase, c.Mask.CPUTime(), cp.StartSec, cp.StartNsec)
	} else {
		b = appendSecNsec(b, wallBase, c.Mask.WallTime(), w.StopSec, w.StopNsec)
		b = append(b, ", cputime "...)
		b = appendSecNsec(b, cpuBase, c.Mask.CPUTime(), cp.StopSec, cp.StopNsec)
	}
	b = append(b, " seconds in thread "...)
	b = appendInt(b, int64(c.Thread))
	return append(b, ".\n"...)
}

// WriteASCII writes the whole file the way the reference `dumpi2ascii -a`
// prints it: header, calls, keyvals, footer, perf-counter labels, function
// address labels and datatype sizes. The start time is rendered in UTC.
// If the file cannot be read to its end, WriteASCII still writes the text
// of everything before the fault (the header and every complete call)
// before it returns the error.
func (f *File) WriteASCII(w io.Writer) error { return f.writeASCII(w, nil) }

// WriteASCIIEscaped writes what WriteASCII writes, with every string
// taken from the file (the host and user names, keyvals, perf-counter and
// function labels, string arguments) passed through escape, which
// appends its escaped form to dst. A program that prints to a terminal
// escapes the file's strings this way instead of scanning all of the text.
func (f *File) WriteASCIIEscaped(w io.Writer, escape func(dst, s []byte) []byte) error {
	return f.writeASCII(w, escape)
}

func (f *File) writeASCII(w io.Writer, escape func(dst, s []byte) []byte) (err error) {
	p := printer{escape: escape}
	text := func(b []byte, s string) []byte {
		if escape == nil {
			return append(b, s...)
		}
		return escape(b, []byte(s))
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	var b []byte
	defer func() {
		if err != nil {
			bw.Write(b) // b holds whole records only
			bw.Flush()
		}
	}()
	h, err := f.Header()
	if err != nil {
		return err
	}
	b = make([]byte, 0, 4096)
	b = append(b, "version="...)
	b = append(b, h.Version.String()...)
	b = append(b, "\nstarttime="...)
	b = h.Start().AppendFormat(b, "Mon Jan _2 15:04:05 2006\n")
	b = append(b, "hostname="...)
	b = text(b, h.Host)
	b = append(b, "\nusername="...)
	b = text(b, h.User)
	b = append(b, "\nmeshdim="...)
	dim := h.MeshDim()
	b = appendInt(b, int64(dim))
	b = append(b, "\nmeshsize=["...)
	for i := 0; i < dim; i++ {
		if i > 0 {
			b = append(b, ", "...)
		}
		if i < len(h.MeshSize) {
			b = appendInt(b, int64(h.MeshSize[i]))
		} else {
			b = append(b, '0')
		}
	}
	b = append(b, "]\nmeshcrd=["...)
	for i, v := range h.MeshCoords {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = appendInt(b, int64(v))
	}
	b = append(b, "]\n"...)

	names, err := f.FunctionNames()
	if err != nil {
		return err
	}
	lookup := func(a uint64) (string, bool) {
		for _, n := range names {
			if n.Addr == a {
				return n.Name, true
			}
		}
		return "", false
	}
	p.fnName = lookup
	r := f.Calls()
	for r.Next() {
		b = r.Record().appendASCII(b, r.cpuBase, r.wallBase, p)
		if len(b) > 32<<10 {
			if _, err := bw.Write(b); err != nil {
				return err
			}
			b = b[:0]
		}
	}
	if err := r.Err(); err != nil {
		return err
	}
	kv, err := f.KeyVals()
	if err != nil {
		return err
	}
	b = append(b, "Total keyvals: "...)
	b = appendInt(b, int64(len(kv)))
	b = append(b, '\n')
	for _, e := range kv {
		b = text(b, e.Key)
		b = append(b, '=')
		b = text(b, e.Value)
		b = append(b, '\n')
	}
	ft, err := f.Footer()
	if err != nil {
		return err
	}
	for i := range FooterSlots {
		b = append(b, Label(i).String()...)
		b = append(b, " called "...)
		b = appendInt(b, int64(int32(ft.Called[i])))
		b = append(b, " times and ignored "...)
		b = appendInt(b, int64(int32(ft.Ignored[i])))
		b = append(b, " times\n"...)
	}
	perf, err := f.PerfLabels()
	if err != nil {
		return err
	}
	b = append(b, "Performance counters: "...)
	b = appendInt(b, int64(len(perf)))
	b = append(b, '\n')
	for _, pl := range perf {
		b = append(b, "    "...)
		b = text(b, pl)
		b = append(b, '\n')
	}
	for _, n := range names {
		b = append(b, "Function address "...)
		b = appendUint(b, n.Addr)
		b = append(b, " has label "...)
		b = text(b, n.Name)
		b = append(b, '\n')
	}
	sizes, err := f.DatatypeSizes()
	if err != nil {
		return err
	}
	for i, s := range sizes {
		b = append(b, "Datatype "...)
		b = appendInt(b, int64(i))
		b = append(b, " ("...)
		b = append(b, Datatype(i).String()...)
		b = append(b, ") has size "...)
		b = appendInt(b, int64(s))
		b = append(b, '\n')
	}
	if _, err := bw.Write(b); err != nil {
		return err
	}
	return bw.Flush()
}
