package otf

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/hpctrace/hpctrace/internal/zflush"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// dump writes a deterministic text form of every record of a file.
func dump(w io.Writer, r *Reader) error {
	for rec, err := range r.All() {
		if err != nil {
			fmt.Fprintf(w, "error: %v\n", err)
			return err
		}
		fmt.Fprintf(w, "%d @%d %s\n", rec.Line, rec.Offset, rec)
	}
	return nil
}

// TestGolden dumps every fixture record file and compares with
// testdata/<fixture>.golden. Regenerate with go test ./otf -run TestGolden -update.
func TestGolden(t *testing.T) {
	dirs, _ := filepath.Glob("testdata/*")
	n := 0
	for _, dir := range dirs {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() || filepath.Base(dir) == "bad" || filepath.Base(dir) == "fuzz" ||
			filepath.Base(dir) == "compat" { // checked by TestCompatCorpus
			continue
		}
		n++
		t.Run(filepath.Base(dir), func(t *testing.T) {
			var out bytes.Buffer
			files, _ := filepath.Glob(dir + "/*")
			for _, f := range files {
				base := filepath.Base(f)
				ok := false
				for ft := FileDef; ft <= FileMarker; ft++ {
					ok = ok || strings.HasSuffix(strings.TrimSuffix(base, ".z"), "."+ft.String())
				}
				if !ok {
					continue
				}
				data, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				fmt.Fprintf(&out, "== %s\n", base)
				r, err := NewReader(bytes.NewReader(data), &ReaderOptions{Path: base})
				if err != nil {
					t.Fatal(err)
				}
				if err := dump(&out, r); err != nil {
					t.Errorf("%s: %v", base, err)
				}
			}
			golden := dir + ".golden"
			if *update {
				if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), out.String()); diff != "" {
				t.Errorf("dump of %s (-golden +got):\n%s", dir, diff)
			}
		})
	}
	if n < 8 {
		t.Fatalf("found %d fixture folders, want 8", n)
	}
}

// TestAllKindsCovered checks that the fixtures hold every record kind
// except the state, key-value and master-file rows (read separately).
func TestAllKindsCovered(t *testing.T) {
	seen := map[Kind]bool{}
	for _, f := range recordFiles(t) {
		data, _ := os.ReadFile(f)
		r, _ := NewReader(bytes.NewReader(data), &ReaderOptions{Path: filepath.Base(f), StateRecords: true})
		for rec, err := range r.All() {
			if err != nil {
				t.Fatal(err)
			}
			seen[rec.Kind] = true
			if len(rec.KeyValues()) > 0 {
				seen[KindKeyValue] = true
			}
		}
	}
	var missing []string
	for k := KindUnknown + 1; k < numKinds; k++ {
		if !seen[k] && k != KindStreamMap {
			missing = append(missing, k.String())
		}
	}
	// Old-style and rarely written kinds that no reference fixture holds.
	want := []string{"DefAuxSamplePoint"}
	if _, err := os.Stat("testdata/otfaux_all"); err == nil {
		want = nil
	}
	for _, m := range missing {
		if m != "BeginFileOpOld" && m != "EndFileOpOld" && !strings.Contains(strings.Join(want, ","), m) {
			t.Errorf("no fixture record of kind %s", m)
		}
	}
	if len(seen) < 60 {
		t.Errorf("saw %d kinds, want ≥ 60", len(seen))
	}
}

func TestKindStrings(t *testing.T) {
	if got := KindEnter.String(); got != "Enter" {
		t.Errorf("KindEnter.String() = %q", got)
	}
	if KindEnter.Short() != "E" || KindEnter.Long() != "ENTER" || KindEnter.File() != FileEvents {
		t.Errorf("KindEnter: %q %q %v", KindEnter.Short(), KindEnter.Long(), KindEnter.File())
	}
	if got := Kind(200).String(); got != "Kind(200)" {
		t.Errorf("Kind(200).String() = %q", got)
	}
	if int(numKinds) != 66 {
		t.Errorf("got %d kinds, want 65 + KindUnknown", numKinds)
	}
	if got := FileName("t", 26, FileEvents, true); got != "t.1a.events.z" {
		t.Errorf("FileName = %q", got)
	}
	var r Record
	if _, ok := r.Enter(); ok {
		t.Error("zero Record is an Enter")
	}
	if _, ok := r.Unknown(); !ok {
		t.Error("zero Record is not KindUnknown")
	}
}

// TestBad reads testdata/bad/*.txtar: the "input" file is read as the
// file named in "want" and must fail with the ParseError described there.
func TestBad(t *testing.T) {
	files, _ := filepath.Glob("testdata/bad/*.txtar")
	if len(files) < 10 {
		t.Fatalf("found %d bad inputs", len(files))
	}
	sentinels := map[string]error{
		"ErrSyntax": ErrSyntax, "ErrRange": ErrRange, "ErrLimit": ErrLimit, "ErrUpperHex": ErrUpperHex,
		"ErrUnknownRecord": ErrUnknownRecord, "ErrUnexpectedEOF": io.ErrUnexpectedEOF, "ErrFormat": ErrFormat,
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			ar := parseTxtar(data)
			var input []byte
			want := ParseError{}
			var opts ReaderOptions
			wantRecords := -1
			cut, raw := 0, false
			for _, file := range ar.Files {
				switch file.Name {
				case "input":
					input = file.Data
				case "want":
					for _, line := range strings.Split(strings.TrimSpace(string(file.Data)), "\n") {
						k, v, _ := strings.Cut(line, ": ")
						n, _ := strconv.ParseInt(v, 0, 64)
						switch k {
						case "path":
							want.Path, opts.Path = v, v
						case "err":
							want.Err = sentinels[v]
							if want.Err == nil {
								t.Fatalf("unknown sentinel %q", v)
							}
						case "line":
							want.Line = int(n)
						case "offset":
							want.Offset = n
						case "record":
							want.Record = n
						case "records":
							wantRecords = int(n)
						case "strict":
							opts.Strict = true
						case "maxrecord":
							opts.MaxLine = int(n)
						case "cut":
							cut = int(n)
						case "raw":
							raw = true
						}
					}
				}
			}
			if strings.HasSuffix(opts.Path, ".z") && !raw {
				input = compressForTest(t, input)
				input = input[:len(input)-cut]
			}
			r, err := NewReader(bytes.NewReader(input), &opts)
			if err != nil {
				if !errors.Is(err, want.Err) {
					t.Fatalf("NewReader: got %v, want %v", err, want.Err)
				}
				return
			}
			n := 0
			for r.Next() {
				n++
			}
			err = r.Err()
			if !errors.Is(err, want.Err) {
				t.Fatalf("got %v, want %v", err, want.Err)
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("got %T, want *ParseError", err)
			}
			if diff := cmp.Diff(want, *pe, cmpopts.EquateErrors()); diff != "" {
				t.Errorf("ParseError (-want +got):\n%s", diff)
			}
			if wantRecords >= 0 && n != wantRecords {
				t.Errorf("got %d records before the error, want %d", n, wantRecords)
			}
			if r.Next() || r.Err() != err {
				t.Error("error is not sticky")
			}
		})
	}
}

// TestTruncated cuts reference files at every byte: the reader returns
// the complete records before the cut, then an io.ErrUnexpectedEOF
// ParseError unless the cut falls at a line end.
func TestTruncated(t *testing.T) {
	for _, f := range []string{"testdata/all_records_short/allrec.1.events", "testdata/all_records_long/allrec.0.def", "testdata/edge_values_short/edge.b.events"} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var full []string
		for _, rec := range readAll(t, data, &ReaderOptions{Path: filepath.Base(f)}) {
			full = append(full, rec.String())
		}
		r, _ := NewReader(nil, &ReaderOptions{Path: filepath.Base(f)})
		for cut := 0; cut < len(data); cut++ {
			r.Reset(bytes.NewReader(data[:cut]))
			n := 0
			for r.Next() {
				if n >= len(full) || r.Record().String() != full[n] {
					t.Fatalf("%s cut at %d: record %d is %v", f, cut, n, r.Record())
				}
				n++
			}
			atLineEnd := cut == 0 || data[cut-1] == '\n'
			err := r.Err()
			if atLineEnd && err != nil {
				t.Fatalf("%s cut at line end %d: %v", f, cut, err)
			}
			if !atLineEnd {
				var pe *ParseError
				if !errors.Is(err, io.ErrUnexpectedEOF) || !errors.As(err, &pe) || pe.Offset != int64(bytes.LastIndexByte(data[:cut], '\n')+1) {
					t.Fatalf("%s cut at %d: got %v", f, cut, err)
				}
			}
		}
	}
}

// TestTolerance checks what the reference reader accepts (doc/otf.md §11).
func TestTolerance(t *testing.T) {
	in := "\n  \t\n" +
		"5\n* 3\n" +
		" \tE2\n" +
		"ENTER 2 SCL 4\n" +
		"CNT1 VALUE 412\n" +
		"E2S7\n" +
		"FB7\n" +
		"FE1H7OP2B400\n" +
		"NOOP \n" +
		"PB   \n" +
		"L\n" +
		"XYZ 1 2 3\n" +
		"K1Y0V5\n" +
		"E1\n" +
		"TS1O2G3T4\n" +
		"T1P3C3e8T5L1000\n"
	recs := readAll(t, []byte(in), &ReaderOptions{File: FileEvents})
	var got []string
	for _, r := range recs {
		got = append(got, r.String())
	}
	want := []string{
		"Enter t=5 p=3 E2",
		"Enter t=5 p=3 E2X4",
		"Counter t=5 p=3 CNT1V412",
		"Enter t=5 p=3 E2X7",
		"BeginFileOpOld t=5 p=3 FB7",
		"EndFileOpOld t=5 p=3 FE1H7OP2B400",
		"NoOp t=5 p=3 N",
		"BeginProcess t=5 p=3 PB",
		"Leave t=5 p=3 L",
		"Unknown t=5 p=3 XYZ 1 2 3",
		"Enter t=5 p=3 K1Y0V5 E1",
		"SendSnapshot t=5 p=3 TS1O2G3T4",
		"RMAPut t=5 p=3 T1P3C3e8T5L1000",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	defs := readAll(t, []byte("DP3N\"rank 2\"\nDP4P1\nDS1F2L3\nDPG1MNM\"x\"\n  DF2G1NM\"f\"S9\nDCO1N\"a\"T4\n"), &ReaderOptions{File: FileDef})
	got = got[:0]
	for _, r := range defs {
		got = append(got, r.String())
	}
	want = []string{
		`DefProcess DP3NM"rank 2"`,
		`DefProcess DP4PT1`,
		`DefSCL DS1F2LN3`,
		`DefProcessGroup DPG1MNM"x"`,
		`DefFunction DF2G1NM"f"X9`,
		`DefCollOp DCO1NM"a"Y4`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("definitions (-want +got):\n%s", diff)
	}
}

func TestStateRecordsAndReset(t *testing.T) {
	in := []byte("a\n*2\nE1\n*3\nL\nb\n*3\n")
	r, err := NewReader(bytes.NewReader(in), &ReaderOptions{File: FileEvents, StateRecords: true})
	if err != nil {
		t.Fatal(err)
	}
	var kinds []Kind
	var offs []int64
	for rec, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		kinds = append(kinds, rec.Kind)
		offs = append(offs, rec.Offset)
	}
	wantKinds := []Kind{KindTime, KindProcess, KindEnter, KindProcess, KindLeave, KindTime, KindProcess}
	if diff := cmp.Diff(wantKinds, kinds); diff != "" {
		t.Errorf("kinds (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int64{0, 2, 5, 8, 11, 13, 15}, offs); diff != "" {
		t.Errorf("offsets (-want +got):\n%s", diff)
	}
	// Restart in the middle of a line at byte 6 ("1\n*3..."): the partial line is skipped.
	if err := r.ResetAt(bytes.NewReader(in[6:]), 6, true); err != nil {
		t.Fatal(err)
	}
	if tm, p := r.State(); tm != ^uint64(0) || p != ^uint32(0) {
		t.Errorf("state after ResetAt: %x %x", tm, p)
	}
	if !r.Next() || r.Record().Kind != KindProcess || r.Record().Offset != 8 {
		t.Fatalf("after ResetAt: %v %v", r.Record(), r.Err())
	}
	if r.InputOffset() != 11 {
		t.Errorf("InputOffset = %d, want 11", r.InputOffset())
	}
}

type txtarFile struct {
	Name string
	Data []byte
}

// parseTxtar splits a txtar archive ("-- name --" lines) into files.
func parseTxtar(data []byte) (ar struct{ Files []txtarFile }) {
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		l := bytes.TrimRight(line, "\n")
		if bytes.HasPrefix(l, []byte("-- ")) && bytes.HasSuffix(l, []byte(" --")) && len(l) > 6 {
			ar.Files = append(ar.Files, txtarFile{Name: string(l[3 : len(l)-3])})
			continue
		}
		if n := len(ar.Files); n > 0 {
			ar.Files[n-1].Data = append(ar.Files[n-1].Data, line...)
		}
	}
	return ar
}

func compressForTest(t testing.TB, text []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	z, err := zflush.NewWriter(&buf, 6, 4)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range bytes.SplitAfter(text, []byte("\n")) {
		z.Write(line)
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestNilSource(t *testing.T) {
	for _, z := range []bool{false, true} {
		r, err := NewReader(nil, &ReaderOptions{File: FileEvents, Zlib: z})
		if err != nil {
			t.Fatal(err)
		}
		if r.Next() || r.Err() != nil {
			t.Errorf("zlib=%v: Next on a nil source: %v", z, r.Err())
		}
		if got := r.Record().String(); got != "Unknown " {
			t.Errorf("zero record String = %q", got)
		}
	}
	r, _ := NewReader(strings.NewReader("1a\n*2\n"), &ReaderOptions{File: FileStats, StateRecords: true})
	var got []string
	for rec, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, rec.String())
	}
	if diff := cmp.Diff([]string{"Time 1a", "Process *2"}, got); diff != "" {
		t.Errorf("state records (-want +got):\n%s", diff)
	}
}
