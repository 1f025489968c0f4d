package dumpi

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// txtar splits a txtar archive into its files. (The format is tiny; the
// module keeps its dependencies to the stdlib in tests too.)
func txtar(data string) map[string]string {
	files := map[string]string{}
	name := ""
	var b strings.Builder
	for _, line := range strings.SplitAfter(data, "\n") {
		t := strings.TrimRight(line, "\n")
		if strings.HasPrefix(t, "-- ") && strings.HasSuffix(t, " --") && len(t) > 6 {
			if name != "" {
				files[name] = b.String()
			}
			name = strings.TrimSpace(t[3 : len(t)-3])
			b.Reset()
			continue
		}
		if name != "" {
			b.WriteString(line)
		}
	}
	if name != "" {
		files[name] = b.String()
	}
	return files
}

// assemble builds a binary file from a text description, one directive a
// line:
//
//	# comment
//	name:              define label name at the current offset
//	hex ff aa 00       raw bytes
//	u8 N | u16 N | u32 N | i32 N | u64 N   big-endian integers
//	u64 @name          the offset of a label
//	str TEXT           the bytes of TEXT (rest of the line)
//	zeros N            N zero bytes
//	footer             a footer section with all counts 0
//	index64 / index40  an index of the given size from the labels
//	                   sizes, addrs, perf, header, body, footer, keyval
//	                   (a missing label gives offset 0)
func assemble(t testing.TB, src string) []byte {
	t.Helper()
	type fix struct {
		at    int
		label string
	}
	var out []byte
	labels := map[string]int{}
	var fixes []fix
	for n, line := range strings.Split(src, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasSuffix(line, ":") && !strings.Contains(line, " ") {
			labels[strings.TrimSuffix(line, ":")] = len(out)
			continue
		}
		op, arg, _ := strings.Cut(line, " ")
		num := func(bits int) uint64 {
			v, err := strconv.ParseInt(arg, 0, 64)
			if err != nil {
				u, uerr := strconv.ParseUint(arg, 0, 64)
				if uerr != nil {
					t.Fatalf("line %d: %q: %v", n+1, line, err)
				}
				return u
			}
			return uint64(v)
		}
		switch op {
		case "hex":
			b, err := hex.DecodeString(strings.ReplaceAll(arg, " ", ""))
			if err != nil {
				t.Fatalf("line %d: %v", n+1, err)
			}
			out = append(out, b...)
		case "u8":
			out = append(out, byte(num(8)))
		case "u16":
			out = binary.BigEndian.AppendUint16(out, uint16(num(16)))
		case "u32", "i32":
			out = binary.BigEndian.AppendUint32(out, uint32(num(32)))
		case "u64":
			if strings.HasPrefix(arg, "@") {
				fixes = append(fixes, fix{len(out), arg[1:]})
				out = append(out, make([]byte, 8)...)
			} else {
				out = binary.BigEndian.AppendUint64(out, num(64))
			}
		case "str":
			out = append(out, arg...)
		case "zeros":
			out = append(out, make([]byte, num(32))...)
		case "footer":
			out = binary.BigEndian.AppendUint64(out, FooterMagic)
			out = append(out, make([]byte, 2*FooterSlots*4)...)
		case "index64", "index56", "index48", "index40":
			size, _ := strconv.Atoi(op[5:])
			names := []string{"sizes", "addrs", "perf", "header", "body", "footer", "keyval"}
			names = names[len(names)-(size/8-1):]
			out = binary.BigEndian.AppendUint64(out, Magic)
			for _, nm := range names {
				fixes = append(fixes, fix{len(out), nm})
				out = append(out, make([]byte, 8)...)
			}
		default:
			t.Fatalf("line %d: unknown directive %q", n+1, op)
		}
	}
	for _, f := range fixes {
		v, ok := labels[f.label]
		if !ok {
			continue // absent section: offset 0
		}
		binary.BigEndian.PutUint64(out[f.at:], uint64(v))
	}
	return out
}

// parseWant reads "key value" lines.
func parseWant(t testing.TB, s string) map[string]string {
	t.Helper()
	m := map[string]string{}
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, " ")
		if !ok {
			t.Fatalf("want line %q: no value", line)
		}
		m[k] = strings.TrimSpace(v)
	}
	return m
}

func atoi64(t testing.TB, s string) int64 {
	t.Helper()
	v, err := strconv.ParseInt(s, 0, 64)
	if err != nil {
		t.Fatal(fmt.Errorf("bad number %q: %w", s, err))
	}
	return v
}
