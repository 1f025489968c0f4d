package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/otf"
	"github.com/hpctrace/hpctrace/stats"
)

// profileRow is one FUNCTION line of otfprofile's CSV: visits, exclusive
// and inclusive time (seconds) of a function on a process.
type profileRow struct {
	visits     int64
	excl, incl float64
}

// readProfileCSV reads the FUNCTION lines of otfprofile's CSV, keyed by
// process name and function name.
func readProfileCSV(t *testing.T, data []byte) map[[2]string]profileRow {
	t.Helper()
	rows := map[[2]string]profileRow{}
	for l := range strings.Lines(string(data)) {
		f := strings.Split(strings.TrimRight(l, "\n"), ";")
		if len(f) != 6 || f[0] != "FUNCTION" || f[1] == "Process" {
			continue
		}
		v, err1 := strconv.ParseInt(f[3], 10, 64)
		e, err2 := strconv.ParseFloat(f[4], 64)
		i, err3 := strconv.ParseFloat(f[5], 64)
		if err1 != nil || err2 != nil || err3 != nil {
			t.Fatalf("bad otfprofile line %q", l)
		}
		rows[[2]string{f[1], f[2]}] = profileRow{v, e, i}
	}
	if len(rows) == 0 {
		t.Fatal("no FUNCTION lines in the otfprofile CSV")
	}
	return rows
}

// tracestatProfile runs tracestat -json on an OTF trace and returns its
// flat profile in otfprofile's terms (inclusive time = the sum over
// activations), keyed by process name and function name (the bytes of
// the trace: names that are not UTF-8 are unescaped with stats.RawName),
// and its diagnostics.
func tracestatProfile(t *testing.T, master string) (map[[2]string]profileRow, map[string]int64) {
	t.Helper()
	var out, errb bytes.Buffer
	if err := run([]string{"-json", master}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Final struct {
			Diagnostics map[string]int64 `json:"diagnostics"`
			Functions   []struct {
				Loc    int    `json:"loc"`
				Region string `json:"region"`
				Visits int64  `json:"visits"`
				Excl   int64  `json:"excl"`
				Incl   int64  `json:"incl_activation_sum"`
			} `json:"functions"`
		} `json:"final"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	tr, err := otf.OpenFS(os.DirFS(filepath.Dir(master)), filepath.Base(master), nil)
	if err != nil {
		t.Fatal(err)
	}
	src, err := otf.NewModelSource(tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	d := src.Defs()
	tps := float64(d.TimeBase.TicksPerSecond)
	rows := map[[2]string]profileRow{}
	for _, f := range rep.Final.Functions {
		l, ok := d.Location(model.LocID(f.Loc))
		if !ok {
			t.Fatalf("no location %d", f.Loc)
		}
		rows[[2]string{l.Name, stats.RawName(f.Region)}] = profileRow{f.Visits, float64(f.Excl) / tps, float64(f.Incl) / tps}
	}
	return rows, rep.Final.Diagnostics
}

// compareProfiles checks tracestat's flat profile against otfprofile's:
// the same (process, function) pairs, visits equal, times equal to the 6
// significant digits otfprofile prints.
func compareProfiles(t *testing.T, want, got map[[2]string]profileRow) {
	t.Helper()
	close := func(a, b float64) bool { return math.Abs(a-b) <= 1e-5*math.Abs(b)+1e-15 }
	for k, w := range want {
		g, ok := got[k]
		switch {
		case !ok:
			t.Errorf("%q on %q: missing in tracestat's profile", k[1], k[0])
		case g.visits != w.visits || !close(g.excl, w.excl) || !close(g.incl, w.incl):
			t.Errorf("%q on %q: visits %d, excl %g s, incl %g s; otfprofile: %d, %g s, %g s",
				k[1], k[0], g.visits, g.excl, g.incl, w.visits, w.excl, w.incl)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%q on %q: not in otfprofile's profile", k[1], k[0])
		}
	}
}

// TestCompatOTFProfile profiles the OTF compatibility fixtures and
// compares the flat profile (visits, exclusive and inclusive time per
// process and function) with the reference otfprofile's: the golden CSV
// of each fixture, and, when otfprofile is installed, its output now.
// The fixtures write every Leave with function 0, as VampirTrace does;
// compat/leading_leave starts a process with a Leave and no Enter, which
// must be counted as unmatched and leave the profile as without it.
func TestCompatOTFProfile(t *testing.T) {
	goldens, _ := filepath.Glob("../../otf/testdata/compat/*/golden_otfprofile.csv")
	if len(goldens) < 3 {
		t.Fatalf("%d otfprofile goldens, want at least 3", len(goldens))
	}
	ref, _ := exec.LookPath("otfprofile")
	for _, g := range goldens {
		dir := filepath.Dir(g)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			masters, _ := filepath.Glob(filepath.Join(dir, "*.otf"))
			if len(masters) != 1 {
				t.Fatalf("masters %v", masters)
			}
			got, diag := tracestatProfile(t, masters[0])
			data, err := os.ReadFile(g)
			if err != nil {
				t.Fatal(err)
			}
			compareProfiles(t, readProfileCSV(t, data), got)
			lead := filepath.Base(dir) == "leading_leave"
			if n := diag["unmatched_leave"]; lead && n != 1 || !lead && n != 0 {
				t.Errorf("unmatched_leave = %d", n)
			}
			renamed := filepath.Base(dir) == "renamed_leave"
			if n := diag["leave_region_mismatch"]; renamed && n != 1 || !renamed && n != 0 {
				t.Errorf("leave_region_mismatch = %d", n)
			}
			if ref == "" || lead {
				return // otfprofile aborts on a leading Leave
			}
			tmp := t.TempDir()
			cmd := exec.Command(ref, "-i", masters[0], "--csv", "--notex", "-o", filepath.Join(tmp, "p"))
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("otfprofile: %v\n%s", err, out)
			}
			live, err := os.ReadFile(filepath.Join(tmp, "p.csv"))
			if err != nil {
				t.Fatal(err)
			}
			compareProfiles(t, readProfileCSV(t, live), got)
		})
	}
}

// TestJSONNamesAndLocations: tracestat -json on the KOI8-R fixture writes
// valid UTF-8 in which the function names are recoverable byte for byte
// with stats.RawName, and lists every location with its name and kind.
func TestJSONNamesAndLocations(t *testing.T) {
	var out, errb bytes.Buffer
	if err := run([]string{"-json", "../../otf/testdata/compat/koi8_names/koi8.otf"}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	if !utf8.Valid(out.Bytes()) {
		t.Fatal("the JSON report is not UTF-8")
	}
	var rep struct {
		Locations []struct {
			Loc     int64  `json:"loc"`
			Name    string `json:"name"`
			Kind    string `json:"kind"`
			Process int32  `json:"process"`
		} `json:"locations"`
		Final struct {
			Functions []struct {
				Region string `json:"region"`
			} `json:"functions"`
		} `json:"final"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, f := range rep.Final.Functions {
		if strings.ContainsRune(f.Region, utf8.RuneError) {
			t.Errorf("region %q has a replacement character", f.Region)
		}
		names[stats.RawName(f.Region)] = true
	}
	for _, want := range []string{"\xc7\xcc\xc1\xd7\xce\xc1\xd1", "\xd2\xc5\xdb\xc9\xd4\xd8", "\xd3\xde\xa3\xd4", "MPI_Send"} {
		if !names[want] {
			t.Errorf("no function %q among %v", want, names)
		}
	}
	type loc struct {
		Loc     int64
		Name    string
		Kind    string
		Process int32
	}
	var got []loc
	for _, l := range rep.Locations {
		got = append(got, loc{l.Loc, l.Name, l.Kind, l.Process})
	}
	want := []loc{{1, "Process 0", "process", 0}, {2, "Process 1", "process", 1}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("locations (-want +got):\n%s", diff)
	}
}

// TestJSONRanks: the locations of a DUMPI run are MPI ranks, each named.
func TestJSONRanks(t *testing.T) {
	metas, _ := filepath.Glob("../../dumpi/testdata/minimal/*.meta")
	if len(metas) != 1 {
		t.Fatalf("fixtures %v", metas)
	}
	var out, errb bytes.Buffer
	if err := run([]string{"-json", metas[0]}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Locations []struct {
			Name, Kind string
		} `json:"locations"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Locations) < 2 {
		t.Fatalf("locations %+v", rep.Locations)
	}
	names := map[string]bool{}
	for i, l := range rep.Locations {
		if l.Kind != "rank" || l.Name == "" || names[l.Name] {
			t.Errorf("location %d: %+v, want kind rank and a name of its own", i, l)
		}
		names[l.Name] = true
	}
}
