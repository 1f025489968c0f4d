package dumpi

// printer renders arguments the way the reference dumpi2ascii does.
type printer struct {
	fnName func(addr uint64) (string, bool)
	escape func(dst, s []byte) []byte // for the strings from the file; nil for none
}

// text appends s, a string from the file, escaped if p escapes.
func (p *printer) text(b, s []byte) []byte {
	if p.escape != nil {
		return p.escape(b, s)
	}
	return append(b, s...)
}

func line(b []byte, word, name string) []byte {
	b = append(b, word...)
	b = append(b, ' ')
	b = append(b, name...)
	return append(b, '=')
}

func (p *printer) int(b []byte, name string, v int32) []byte {
	b = appendInt(line(b, "int", name), int64(v))
	return append(b, '\n')
}

func (p *printer) dest(b []byte, name string, v int32) []byte {
	b = appendInt(line(b, "int", name), int64(v))
	if v == MPI_ROOT {
		b = append(b, " (MPI_ROOT)"...)
	}
	return append(b, '\n')
}

func (p *printer) source(b []byte, name string, v int32) []byte {
	b = appendInt(line(b, "int", name), int64(v))
	switch v {
	case MPI_ANY_SOURCE:
		b = append(b, " (MPI_ANY_SOURCE)"...)
	case MPI_ROOT:
		b = append(b, " (MPI_ROOT)"...)
	}
	return append(b, '\n')
}

func (p *printer) tag(b []byte, name string, v int32) []byte {
	b = appendInt(line(b, "int", name), int64(v))
	if v == MPI_ANY_TAG {
		b = append(b, " (MPI_ANY_TAG)"...)
	}
	return append(b, '\n')
}

func (p *printer) int64(b []byte, name string, v int64) []byte {
	b = appendInt(line(b, "int64_t", name), v)
	return append(b, '\n')
}

func (p *printer) fn(b []byte, name string, v int64) []byte {
	b = appendInt(line(b, "int", name), v)
	label := "(null)" // what C's printf makes of a NULL %s
	if p.fnName != nil {
		if s, ok := p.fnName(uint64(v)); ok {
			label = s
		}
	}
	b = append(b, " (\""...)
	if p.escape != nil && label != "(null)" {
		b = p.escape(b, []byte(label))
	} else {
		b = append(b, label...)
	}
	return append(b, "\")\n"...)
}

func (p *printer) request(b []byte, word, name string, v int32) []byte {
	b = append(line(b, word, name), '[')
	b = appendInt(b, int64(v))
	return append(b, "]\n"...)
}

func (p *printer) handle(b []byte, word, name string, v int, s string) []byte {
	b = appendInt(line(b, word, name), int64(v))
	b = append(b, " ("...)
	b = append(b, s...)
	return append(b, ")\n"...)
}

func arrayHead(b []byte, word, name string, n int) []byte {
	b = append(b, word...)
	b = append(b, ' ')
	b = append(b, name...)
	b = append(b, '[')
	b = appendInt(b, int64(n))
	return append(b, "]="...)
}

func appendList[T ~int32 | ~uint16 | ~uint8](b []byte, s []T, n int) []byte {
	b = append(b, '[')
	for i := 0; i < n && i < len(s); i++ {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = appendInt(b, int64(s[i]))
	}
	return append(b, "]\n"...)
}

// count picks the printed length: the sizing field's value, or the list's
// own length when the table names none.
func count(n, l int) int {
	if n < 0 {
		return l
	}
	return n
}

func (p *printer) intArray(b []byte, name string, n int, s []int32) []byte {
	n = count(n, len(s))
	b = arrayHead(b, "int", name, n)
	if n < 1 || len(s) == 0 {
		return append(b, "<IGNORED>\n"...)
	}
	return appendList(b, s, n)
}

// The reference reader allocates an array argument only when its count is
// positive, and its printer writes a NULL array as <IGNORED>: every array
// with a count below 1, or with no elements in the record, prints that way.

func requestList[T ~int32](b []byte, word, name string, n int, s []T) []byte {
	n = count(n, len(s))
	b = arrayHead(b, word, name, n)
	if n < 1 || len(s) == 0 {
		return append(b, "<IGNORED>\n"...)
	}
	return appendList(b, s, n)
}

func plainList[T ~uint16 | ~uint8](b []byte, word, name string, n int, s []T) []byte {
	n = count(n, len(s))
	b = arrayHead(b, word, name, n)
	if n < 1 || len(s) == 0 {
		return append(b, "<IGNORED>\n"...)
	}
	return appendList(b, s, n)
}

func (p *printer) rows(b []byte, name string, n int, s [][]int32) []byte {
	n = count(n, len(s))
	b = append(b, "int "...)
	b = append(b, name...)
	b = append(b, '[')
	b = appendInt(b, int64(n))
	b = append(b, "][3]="...)
	if n < 1 || len(s) == 0 {
		return append(b, "<IGNORED>\n"...)
	}
	// The reference prints a newline after each row and none at the end.
	b = append(b, '[')
	for i := 0; i < n && i < len(s); i++ {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = appendList(b, s[i], len(s[i]))
	}
	return append(b, ']')
}

func appendStatus(b []byte, s *Status) []byte {
	b = append(b, "{bytes="...)
	b = appendInt(b, int64(s.Bytes))
	b = append(b, ", cancelled="...)
	b = appendInt(b, int64(s.Cancelled))
	b = append(b, ", source="...)
	b = appendInt(b, int64(s.Source))
	b = append(b, ", tag="...)
	b = appendInt(b, int64(s.Tag))
	b = append(b, ", error="...)
	b = appendInt(b, int64(s.Error))
	return append(b, '}')
}

func appendStatuses(b []byte, s []Status, n int) []byte {
	if n < 1 || len(s) == 0 {
		return append(b, "<IGNORED>\n"...)
	}
	b = append(b, '[')
	for i := 0; i < n && i < len(s); i++ {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = appendStatus(b, &s[i])
	}
	return append(b, "]\n"...)
}

func (p *printer) status(b []byte, name string, s []Status) []byte {
	return appendStatuses(line(b, "MPI_Status", name), s, 1)
}

func (p *printer) statusArray(b []byte, name string, n int, s []Status) []byte {
	n = count(n, len(s))
	return appendStatuses(arrayHead(b, "MPI_Status", name, n), s, n)
}

func (p *printer) str(b []byte, name string, s []byte) []byte {
	b = append(line(b, "string", name), '"')
	b = p.text(b, s)
	return append(b, "\"\n"...)
}

// appendQuoted appends ["a", "b"]; with sep false the reference's
// NULL-terminated form, whose separator test never passes: ["a""b"].
func (p *printer) appendQuoted(b []byte, s [][]byte, sep bool) []byte {
	b = append(b, '[')
	for i := range s {
		if i > 0 && sep {
			b = append(b, ", "...)
		}
		b = append(b, '"')
		b = p.text(b, s[i])
		b = append(b, '"')
	}
	return append(b, ']')
}

// nullTerm is the length the reference prints for NULL-terminated lists.
const nullTerm = -2

// strArray prints a string list; n < 0 means the table names no count
// (a NULL-terminated list in the reference tool).
func (p *printer) strArray(b []byte, name string, n int, s [][]byte) []byte {
	sep := true
	if n < 0 {
		n, sep = nullTerm, false
	}
	b = arrayHead(b, "string", name, n)
	if n == 0 || len(s) == 0 {
		return append(b, "<IGNORED>\n"...)
	}
	return append(p.appendQuoted(b, s, sep), '\n')
}

func (p *printer) strLists(b []byte, name string, n int, s [][][]byte) []byte {
	n = count(n, len(s))
	b = append(b, "string "...)
	b = append(b, name...)
	b = append(b, '[')
	b = appendInt(b, int64(n))
	b = append(b, "]["...)
	b = appendInt(b, nullTerm)
	b = append(b, "]="...)
	if n == 0 || len(s) == 0 {
		return append(b, "<IGNORED>\n"...)
	}
	b = append(b, '[')
	for i := range s {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = p.appendQuoted(b, s[i], false)
	}
	return append(b, "]\n"...)
}
