package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// findDUMPIRef returns the directory that holds the reference DUMPI
// programs (undumpi_bench over libundumpi, and dumpi2ascii): dir if set,
// else the directory of an undumpi_bench on PATH, else ../shared/bench/dumpi
// beside the repository; "" if none has both.
func findDUMPIRef(dir, root string) string {
	ok := func(d string) bool {
		for _, p := range []string{"undumpi_bench", "dumpi2ascii"} {
			if fi, err := os.Stat(filepath.Join(d, p)); err != nil || fi.IsDir() {
				return false
			}
		}
		return true
	}
	if dir != "" {
		if ok(dir) {
			return dir
		}
		return ""
	}
	if p, err := exec.LookPath("undumpi_bench"); err == nil && ok(filepath.Dir(p)) {
		return filepath.Dir(p)
	}
	if d := filepath.Join(root, "..", "shared", "bench", "dumpi"); ok(d) {
		return d
	}
	return ""
}

// dumpiPairs are the DUMPI rows, on the 4-rank run of genDUMPIMPI (meta
// is its .meta file): every call of every rank file
// decoded with every argument touched beside libundumpi's reader with a
// callback that touches every argument (undumpi_bench touch), and
// examples/dumpi2ascii beside the reference dumpi2ascii -a on rank 0,
// whose outputs must be the same bytes.
func dumpiPairs(c *config, meta string) []pair {
	one := []string{"GOMAXPROCS=1"}
	files, _ := filepath.Glob(strings.TrimSuffix(meta, ".meta") + "-[0-9][0-9][0-9][0-9].bin")
	ref := func(p string) string { return filepath.Join(c.dumpiRef, p) }
	ps := []pair{
		{name: "dumpi-read", title: "DUMPI full decode, the 4 rank files one after the other, every argument of every call touched ÷ libundumpi (undumpi_bench touch: a callback reading every argument)",
			a: side{"hpctrace dumpiread", append([]string{c.self, "helper", "dumpiread"}, files...), one, c.cpu, true},
			b: side{"undumpi_bench touch", append([]string{ref("undumpi_bench"), "touch"}, files...), nil, c.cpu, true}, target: 0.04, atMost: true},
		{name: "dumpi2ascii", title: "examples/dumpi2ascii ÷ dumpi2ascii -a, rank 0 to /dev/null (outputs identical)",
			a: side{"examples/dumpi2ascii", []string{filepath.Join(c.bin, "dumpi2ascii"), files[0]}, one, c.cpu, false},
			b: side{"dumpi2ascii -a", []string{ref("dumpi2ascii"), "-a", files[0]}, []string{"TZ=UTC"}, c.cpu, false}, target: 0.2, atMost: true, same: true},
	}
	if c.dumpiRef == "" {
		for i := range ps {
			ps[i].skip = "no reference DUMPI programs (undumpi_bench and dumpi2ascii; -dumpi-ref names their directory)"
		}
	}
	return ps
}

// firstDifference compares two outputs and returns the 1-based number of
// the line where they first differ (one ending early counts), or 0 if
// they are the same bytes.
func firstDifference(a, b io.Reader) (int, error) {
	bufA, bufB := make([]byte, 1<<16), make([]byte, 1<<16)
	line := 1
	for {
		na, erra := io.ReadFull(a, bufA)
		nb, errb := io.ReadFull(b, bufB)
		for _, err := range []error{erra, errb} {
			if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
				return 0, err
			}
		}
		n := min(na, nb)
		i := 0
		for i < n && bufA[i] == bufB[i] {
			i++
		}
		line += bytes.Count(bufA[:i], []byte{'\n'})
		if i < n || na != nb {
			return line, nil
		}
		if erra != nil { // both ended here
			return 0, nil
		}
	}
}

// sameOutput runs both sides of p once with their standard output to
// files under c.work and fails unless the outputs are the same bytes.
func sameOutput(c *config, p pair) error {
	var names [2]string
	for i, s := range []side{p.a, p.b} {
		names[i] = filepath.Join(c.work, fmt.Sprintf("out-%s-%d", p.name, i))
		f, err := os.Create(names[i])
		if err != nil {
			return err
		}
		defer os.Remove(names[i])
		cmd := exec.Command("taskset", append([]string{"-c", s.cpus}, s.argv...)...)
		cmd.Env = append(os.Environ(), s.env...)
		cmd.Stdout = f
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err = cmd.Run()
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("%s: %w\n%s", strings.Join(s.argv, " "), err, stderr.String())
		}
	}
	fa, err := os.Open(names[0])
	if err != nil {
		return err
	}
	defer fa.Close()
	fb, err := os.Open(names[1])
	if err != nil {
		return err
	}
	defer fb.Close()
	line, err := firstDifference(fa, fb)
	if err != nil {
		return err
	}
	if line != 0 {
		return fmt.Errorf("the outputs of %s and %s differ from line %d on", p.a.label, p.b.label, line)
	}
	return nil
}
