package otf_test

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/hpctrace/hpctrace/otf"
	"pgregory.net/rapid"
)

// seekFile is one record file with time stamps: its bytes and options.
type seekFile struct {
	name string
	data []byte
	opts otf.ReaderOptions
}

// stateFiles returns every events, snaps and stats file of the fixtures.
func stateFiles(t *testing.T) []seekFile {
	t.Helper()
	var files []seekFile
	paths, err := filepath.Glob("testdata/*/*")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		base := strings.TrimSuffix(p, ".z")
		if !strings.HasSuffix(base, ".events") && !strings.HasSuffix(base, ".snaps") && !strings.HasSuffix(base, ".stats") {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, seekFile{name: p, data: data, opts: otf.ReaderOptions{Path: p}})
	}
	if len(files) < 20 {
		t.Fatalf("found %d fixture files with time stamps; want at least 20", len(files))
	}
	return files
}

// recordStrings reads r to the end, returning one line per record.
func recordStrings(tb rapid.TB, r *otf.Reader) []string {
	var out []string
	for r.Next() {
		out = append(out, r.Record().String())
	}
	if err := r.Err(); err != nil {
		tb.Fatalf("read: %v", err)
	}
	return out
}

type timed struct {
	time uint64
	s    string
}

func linear(tb rapid.TB, f seekFile) []timed {
	r, err := otf.NewReader(bytes.NewReader(f.data), &f.opts)
	if err != nil {
		tb.Fatal(err)
	}
	var out []timed
	for r.Next() {
		out = append(out, timed{r.Record().Time, r.Record().String()})
	}
	if err := r.Err(); err != nil {
		tb.Fatalf("%s: linear read: %v", f.name, err)
	}
	return out
}

// suffixFrom returns at most max records of a linear scan from the first
// one with time ≥ t.
func suffixFrom(all []timed, t uint64, max int) []string {
	i, _ := slices.BinarySearchFunc(all, t, func(e timed, t uint64) int {
		if e.time < t {
			return -1
		}
		return 1
	})
	var out []string
	for _, e := range all[i:min(len(all), i+max)] {
		out = append(out, e.s)
	}
	return out
}

// seekTimes returns every time stamp of all, its neighbours, 0 and the maximum.
func seekTimes(all []timed) []uint64 {
	ts := []uint64{0, ^uint64(0)}
	for _, e := range all {
		ts = append(ts, e.time, e.time-1, e.time+1)
	}
	slices.Sort(ts)
	return slices.Compact(ts)
}

// TestSeekTimeFixtures checks, for every time stamp of every fixture file
// with state lines (plain and zlib) and its neighbours, that SeekTime then
// reading gives the records of a linear scan from the first record with
// time ≥ t: the next 20 records after every seek, all of them to the end
// after every 64th.
func TestSeekTimeFixtures(t *testing.T) {
	seeks := 0
	for _, f := range stateFiles(t) {
		all := linear(t, f)
		r, err := otf.NewReader(bytes.NewReader(f.data), &f.opts)
		if err != nil {
			t.Fatal(err)
		}
		for k, ts := range seekTimes(all) {
			if err := r.SeekTime(ts); err != nil {
				t.Fatalf("%s: SeekTime(%d): %v", f.name, ts, err)
			}
			var got, want []string
			if k%64 == 0 {
				want = suffixFrom(all, ts, len(all))
				got = recordStrings(t, r)
			} else {
				want = suffixFrom(all, ts, 20)
				for len(got) < len(want) && r.Next() {
					got = append(got, r.Record().String())
				}
				if err := r.Err(); err != nil {
					t.Fatalf("%s: after SeekTime(%d): %v", f.name, ts, err)
				}
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%s: SeekTime(%d): got %d records, want %d\ngot  %q\nwant %q", f.name, ts, len(got), len(want), head(got), head(want))
			}
			seeks++
		}
	}
	t.Logf("%d seeks compared", seeks)
}

func head(s []string) []string { return s[:min(len(s), 3)] }

func TestSeekTimeNotSeekable(t *testing.T) {
	data, err := os.ReadFile("testdata/all_records_short/allrec.1.events")
	if err != nil {
		t.Fatal(err)
	}
	r, err := otf.NewReader(io.MultiReader(bytes.NewReader(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.SeekTime(100); !errors.Is(err, otf.ErrNotSeekable) {
		t.Fatalf("SeekTime over a plain io.Reader: got %v, want ErrNotSeekable", err)
	}
	d, err := otf.NewReader(strings.NewReader("DTR1\n"), &otf.ReaderOptions{File: otf.FileDef})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.SeekTime(1); !errors.Is(err, otf.ErrNotSeekable) {
		t.Fatalf("SeekTime on definitions: got %v, want ErrNotSeekable", err)
	}
	// Reading still works and counts bytes.
	if got := len(recordStrings(t, r)); got == 0 || r.BytesRead() != int64(len(data)) {
		t.Fatalf("read %d records, BytesRead %d; want >0 records and %d bytes", got, r.BytesRead(), len(data))
	}
}

// genTrace draws the records of one events file: non-decreasing times with
// runs of equal times, a few processes, several kinds, some key-values.
func genTrace(t *rapid.T) []*otf.Record {
	n := rapid.IntRange(1, 400).Draw(t, "n")
	tm := rapid.Uint64Range(0, 3).Draw(t, "t0")
	var recs []*otf.Record
	for range n {
		if rapid.IntRange(0, 3).Draw(t, "advance") > 0 {
			tm += rapid.Uint64Range(1, 1<<rapid.IntRange(0, 40).Draw(t, "scale")).Draw(t, "dt")
		}
		rec := new(otf.Record)
		switch rapid.IntRange(0, 5).Draw(t, "kind") {
		case 0:
			rec.SetEnter(otf.Enter{Function: rapid.Uint32Range(1, 9).Draw(t, "f"), Source: rapid.Uint32Range(0, 3).Draw(t, "src")})
		case 1:
			rec.SetLeave(otf.Leave{Function: rapid.Uint32Range(0, 9).Draw(t, "f")})
		case 2:
			rec.SetSend(otf.Send{Receiver: rapid.Uint32Range(1, 4).Draw(t, "to"), Length: rapid.Uint32().Draw(t, "len"), Tag: 7, Communicator: 1})
		case 3:
			rec.SetCounter(otf.Counter{Counter: 1, Value: rapid.Uint64().Draw(t, "v")})
		case 4:
			rec.SetEventComment(otf.EventComment{Comment: []byte(rapid.StringMatching(`[a-z 0-9]{0,40}`).Draw(t, "c"))})
		default:
			rec.SetNoOp(otf.NoOp{})
		}
		if rapid.IntRange(0, 9).Draw(t, "kv") == 0 {
			rec.SetKeyValues([]otf.KeyValue{{Key: 1, Type: otf.TypeUint32, Value: uint64(rapid.Uint32().Draw(t, "kvv"))}})
		}
		rec.Time = tm
		rec.Process = rapid.Uint32Range(1, 4).Draw(t, "p")
		recs = append(recs, rec)
	}
	return recs
}

// writeTrace writes recs as an events file; with zlib, a full-flush block
// ends every `every` records.
func writeTrace(t rapid.TB, recs []*otf.Record, zlib bool, every int) []byte {
	var buf bytes.Buffer
	w, err := otf.NewWriter(&buf, &otf.WriterOptions{Zlib: zlib})
	if err != nil {
		t.Fatal(err)
	}
	for i, rec := range recs {
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		if zlib && (i+1)%every == 0 {
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestSeekTimeStateMachine runs Next, SeekTime and Reset against a slice
// model over generated traces, plain and zlib with many block sizes.
func TestSeekTimeStateMachine(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		recs := genTrace(t)
		zlib := rapid.Bool().Draw(t, "zlib")
		every := rapid.IntRange(1, 64).Draw(t, "flushEvery")
		data := writeTrace(t, recs, zlib, every)
		opts := &otf.ReaderOptions{Path: "gen.1.events", Zlib: zlib, MaxLine: rapid.SampledFrom([]int{0, 128}).Draw(t, "maxRecord")}
		r, err := otf.NewReader(bytes.NewReader(data), opts)
		if err != nil {
			t.Fatal(err)
		}
		model := make([]timed, len(recs))
		for i, rec := range recs {
			model[i] = timed{rec.Time, rec.String()}
		}
		pos := 0
		t.Repeat(map[string]func(*rapid.T){
			"Next": func(t *rapid.T) {
				ok := r.Next()
				if ok != (pos < len(model)) {
					t.Fatalf("Next = %v at model position %d of %d (err %v)", ok, pos, len(model), r.Err())
				}
				if ok {
					if got := r.Record().String(); got != model[pos].s {
						t.Fatalf("record %d: got %s, want %s", pos, got, model[pos].s)
					}
					pos++
				}
			},
			"SeekTime": func(t *rapid.T) {
				var ts uint64
				if len(model) > 0 && rapid.Bool().Draw(t, "existing") {
					ts = model[rapid.IntRange(0, len(model)-1).Draw(t, "i")].time + rapid.Uint64Range(0, 2).Draw(t, "d") - 1
				} else {
					ts = rapid.Uint64().Draw(t, "t")
				}
				if err := r.SeekTime(ts); err != nil {
					t.Fatalf("SeekTime(%d): %v", ts, err)
				}
				pos, _ = slices.BinarySearchFunc(model, ts, func(e timed, t uint64) int {
					if e.time < t {
						return -1
					}
					return 1
				})
			},
			"Reset": func(t *rapid.T) {
				if err := r.Reset(bytes.NewReader(data)); err != nil {
					t.Fatal(err)
				}
				pos = 0
			},
			"": func(t *rapid.T) {
				if err := r.Err(); err != nil {
					t.Fatalf("Err = %v", err)
				}
				if r.BytesRead() > int64(len(data))*64+1<<20 {
					t.Fatalf("BytesRead %d for a file of %d bytes", r.BytesRead(), len(data))
				}
			},
		})
	})
}

// TestSeekTimeCost checks that a seek in a large file reads a small part
// of it: O(log size) pieces of a few hundred bytes, plus one flush block
// for zlib.
func TestSeekTimeCost(t *testing.T) {
	var recs []*otf.Record
	for i := range 200_000 {
		rec := new(otf.Record)
		rec.SetEnter(otf.Enter{Function: uint32(i%7 + 1)})
		rec.Time = uint64(1000 + 3*i)
		rec.Process = uint32(i%4 + 1)
		recs = append(recs, rec)
	}
	for _, tc := range []struct {
		name   string
		zlib   bool
		every  int
		budget int64
	}{
		{"plain", false, 0, 16 << 10},
		{"zlib", true, 1000, 64 << 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := writeTrace(t, recs, tc.zlib, tc.every)
			r, err := otf.NewReader(bytes.NewReader(data), &otf.ReaderOptions{Zlib: tc.zlib})
			if err != nil {
				t.Fatal(err)
			}
			for _, i := range []int{0, 1, 77_777, 150_000, 199_999} {
				before := r.BytesRead()
				if err := r.SeekTime(recs[i].Time); err != nil {
					t.Fatal(err)
				}
				cost := r.BytesRead() - before
				if !r.Next() || r.Record().Time != recs[i].Time || r.Record().String() != recs[i].String() {
					t.Fatalf("after SeekTime(%d): got %v (err %v), want %v", recs[i].Time, r.Record(), r.Err(), recs[i])
				}
				if cost > tc.budget {
					t.Errorf("SeekTime(%d) read %d bytes of %d; want at most %d", recs[i].Time, cost, len(data), tc.budget)
				}
				t.Logf("seek to record %d: %d bytes read of %d", i, cost, len(data))
			}
		})
	}
}

// FuzzSeekTime seeks in damaged files: no panic and no endless loop; and
// when the file reads cleanly with non-decreasing times, seeking gives the
// records of a linear scan from the first one with time ≥ t.
func FuzzSeekTime(f *testing.F) {
	for _, p := range []string{
		"testdata/all_records_short/allrec.1.events",
		"testdata/all_records_zlib_smallbuf/allrec.1.events.z",
		"testdata/ring_zlib_blocks/ring.2.events.z",
		"testdata/otfaux_all/aux.1.stats",
	} {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, strings.HasSuffix(p, ".z"), uint64(0x4bf))
		f.Add(data[:len(data)*2/3], strings.HasSuffix(p, ".z"), uint64(3000))
	}
	f.Fuzz(func(t *testing.T, data []byte, zlib bool, ts uint64) {
		opts := &otf.ReaderOptions{Zlib: zlib, MaxLine: 4096}
		r, err := otf.NewReader(bytes.NewReader(data), opts)
		if err != nil {
			return
		}
		// A linear read, to know whether the file is valid and sorted.
		var all []timed
		sorted := true
		for r.Next() && len(all) < 100_000 {
			rec := r.Record()
			if n := len(all); n > 0 && rec.Time < all[n-1].time || rec.Time == ^uint64(0) {
				sorted = false // unsorted, or before the first time line
			}
			all = append(all, timed{rec.Time, rec.String()})
		}
		valid := sorted && r.Err() == nil && len(all) < 100_000
		if valid { // the time lines must not decrease either
			sr, _ := otf.NewReader(bytes.NewReader(data), &otf.ReaderOptions{Zlib: zlib, MaxLine: 4096, StateRecords: true})
			var last uint64
			for n := 0; sr.Next() && n < 300_000; n++ {
				if rec := sr.Record(); rec.Kind == otf.KindTime {
					if rec.Time < last {
						valid = false
					}
					last = rec.Time
				}
			}
		}
		for range 2 {
			if err := r.SeekTime(ts); err != nil {
				if errors.Is(err, otf.ErrNotSeekable) {
					t.Fatal(err)
				}
				return
			}
			var got []string
			for r.Next() && len(got) < 100_000 {
				got = append(got, r.Record().String())
			}
			if valid {
				if err := r.Err(); err != nil {
					t.Fatalf("after SeekTime(%d) in a valid file: %v", ts, err)
				}
				if want := suffixFrom(all, ts, len(all)); !slices.Equal(got, want) {
					t.Fatalf("SeekTime(%d): got %q, want %q", ts, head(got), head(want))
				}
			}
			ts /= 2
		}
	})
}

// TestTraceReaderSeekTime compares a merged TraceReader after SeekTime with
// a fresh one reading the interval [t, ∞) linearly, over the fixtures'
// events, snapshots and summaries, for about 40 time stamps per file type.
func TestTraceReaderSeekTime(t *testing.T) {
	for _, dir := range []string{"all_records_short", "all_records_zlib_smallbuf", "ring_zlib_blocks", "otfaux_all"} {
		fsys := os.DirFS(filepath.Join("testdata", dir))
		masters, err := fs.Glob(fsys, "*.otf")
		if err != nil || len(masters) != 1 {
			t.Fatalf("%s: master file: %v %v", dir, masters, err)
		}
		tc, err := otf.OpenFS(fsys, masters[0], nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, ft := range []otf.FileType{otf.FileEvents, otf.FileSnaps, otf.FileStats} {
			read := func(tr *otf.TraceReader) []timed {
				var out []timed
				for rec, err := range tr.All() {
					if err != nil {
						t.Fatalf("%s %v: %v", dir, ft, err)
					}
					out = append(out, timed{rec.Time, rec.String()})
				}
				return out
			}
			all, err := tc.NewReader(&otf.TraceReaderOptions{File: ft})
			if err != nil {
				t.Fatal(err)
			}
			every := read(all)
			seeker, err := tc.NewReader(&otf.TraceReaderOptions{File: ft})
			if err != nil {
				t.Fatal(err)
			}
			ts := seekTimes(every)
			for k := 0; k < len(ts); k += len(ts)/40 + 1 {
				if err := seeker.SeekTime(ts[k]); err != nil {
					t.Fatalf("%s %v: SeekTime(%d): %v", dir, ft, ts[k], err)
				}
				got := read(seeker)
				ref, err := tc.NewReader(&otf.TraceReaderOptions{File: ft, From: ts[k]})
				if err != nil {
					t.Fatal(err)
				}
				if want := read(ref); !slices.Equal(got, want) {
					t.Fatalf("%s %v: SeekTime(%d): got %d records, want %d", dir, ft, ts[k], len(got), len(want))
				}
				ref.Close()
			}
			all.Close()
			seeker.Close()
		}
	}
}

// TestTraceReaderSeekStateMachine runs Next and SeekTime on the merged
// reader of generated traces of 1 to 4 streams (plain and zlib, several
// block sizes) against a slice model: the records of all streams sorted by
// time and process.
func TestTraceReaderSeekStateMachine(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		nstreams := rapid.IntRange(1, 4).Draw(t, "streams")
		zlib := rapid.Bool().Draw(t, "zlib")
		fsys := fstest.MapFS{}
		var master []otf.Stream
		var model []timed
		type keyed struct {
			t timed
			p uint32
		}
		var heads [][]keyed
		for s := range nstreams {
			id := uint32(s + 1)
			recs := genTrace(t)
			for _, rec := range recs {
				rec.Process = id*10 + rec.Process%2 // two processes per stream
			}
			data := writeTrace(t, recs, zlib, rapid.IntRange(1, 64).Draw(t, "flushEvery"))
			fsys[otf.FileName("g", id, otf.FileEvents, zlib)] = &fstest.MapFile{Data: data}
			master = append(master, otf.Stream{ID: id, Processes: []uint32{id * 10, id*10 + 1}})
			var st []keyed
			for _, rec := range recs {
				st = append(st, keyed{timed{rec.Time, rec.String()}, rec.Process})
			}
			heads = append(heads, st)
		}
		// The model merges the streams as documented: by the time and
		// process of each stream's next record, ties to the lower stream.
		for {
			best := -1
			for i, h := range heads {
				if len(h) == 0 {
					continue
				}
				if b := heads[max(best, 0)]; best < 0 || h[0].t.time < b[0].t.time ||
					h[0].t.time == b[0].t.time && h[0].p < b[0].p {
					best = i
				}
			}
			if best < 0 {
				break
			}
			model = append(model, heads[best][0].t)
			heads[best] = heads[best][1:]
		}
		fsys["g.otf"] = &fstest.MapFile{Data: otf.AppendMaster(nil, master)}
		tc, err := otf.OpenFS(fsys, "g.otf", nil)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := tc.NewReader(nil)
		if err != nil {
			t.Fatal(err)
		}
		defer tr.Close()
		pos := 0
		t.Repeat(map[string]func(*rapid.T){
			"Next": func(t *rapid.T) {
				ok := tr.Next()
				if ok != (pos < len(model)) {
					t.Fatalf("Next = %v at model position %d of %d (err %v)", ok, pos, len(model), tr.Err())
				}
				if ok {
					if got := tr.Record().String(); got != model[pos].s {
						t.Fatalf("record %d: got %s, want %s", pos, got, model[pos].s)
					}
					pos++
				}
			},
			"SeekTime": func(t *rapid.T) {
				ts := model[rapid.IntRange(0, len(model)-1).Draw(t, "i")].time + rapid.Uint64Range(0, 2).Draw(t, "d") - 1
				if err := tr.SeekTime(ts); err != nil {
					t.Fatalf("SeekTime(%d): %v", ts, err)
				}
				pos, _ = slices.BinarySearchFunc(model, ts, func(e timed, t uint64) int {
					if e.time < t {
						return -1
					}
					return 1
				})
			},
			"": func(t *rapid.T) {
				if err := tr.Err(); err != nil {
					t.Fatalf("Err = %v", err)
				}
			},
		})
	})
}

// TestSeekTimeLongLine seeks in an events file that is one line far longer
// than MaxLine: each bisection jump gives up after MaxLine bytes
// without a line feed instead of scanning the line, and the reader then
// reports the long line.
func TestSeekTimeLongLine(t *testing.T) {
	const limit = 4096
	data := append([]byte("\t1\n*1\n"), bytes.Repeat([]byte("x"), 8<<20)...)
	data = append(data, "\n\t2\n"...)
	r, err := otf.NewReader(bytes.NewReader(data), &otf.ReaderOptions{Path: "t.1.events", MaxLine: limit})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.SeekTime(2); err != nil {
		t.Fatal(err)
	}
	if n := r.BytesRead(); n > 64*limit {
		t.Errorf("SeekTime read %d bytes of a %d-byte line; want at most %d", n, len(data), 64*limit)
	}
	if r.Next() {
		t.Fatalf("Next returned %v", r.Record())
	}
	var pe *otf.ParseError
	if err := r.Err(); !errors.Is(err, otf.ErrLimit) || !errors.As(err, &pe) || pe.Offset != 6 || pe.Path != "t.1.events" {
		t.Errorf("Err() = %v, want ErrLimit at offset 6 of t.1.events", err)
	} else if !strings.Contains(err.Error(), "a line longer than ReaderOptions.MaxLine") {
		t.Errorf("Err() = %q does not say the line is too long", err)
	}
}
