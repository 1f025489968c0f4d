package waitstate_test

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hpctrace/hpctrace"
	"github.com/hpctrace/hpctrace/model"
	"github.com/hpctrace/hpctrace/picl"
	"github.com/hpctrace/hpctrace/waitstate"
)

// corpusTraces returns every file under a testdata directory of the
// repository that hpctrace.Detect takes for a trace: PICL .trf, DUMPI
// rank files and runs, OTF master files, OTF2 anchors, hpctrace event JSON and
// Chrome JSON. Go's fuzz corpora and npm packages are left out, and an
// OTF or OTF2 trace is taken once, by its master or anchor file.
func corpusTraces(t *testing.T) []string {
	t.Helper()
	var names []string
	err := filepath.WalkDir("..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "node_modules", ".git", "fuzz", "rapid":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.Contains(filepath.ToSlash(p), "/testdata/") {
			return nil
		}
		switch filepath.Ext(p) {
		case ".trf", ".bin", ".meta", ".otf", ".otf2", ".json":
		default:
			return nil
		}
		if f, err := hpctrace.Detect(p); err == nil && f != hpctrace.FormatUnknown {
			names = append(names, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// notTrace reports whether the error of opening or reading a file that
// corpusTraces took for a trace says that it is not one: a JSON file of
// the testdata (an expected output, a package manifest) that only its
// name made a document of hpctrace's event JSON, refused by that reader because it
// has no "format" key.
func notTrace(name string, err error) bool {
	return err != nil && filepath.Ext(name) == ".json" && strings.Contains(err.Error(), `not a trace-events-json/1 document: no "format" key`)
}

// counted is a source that counts what it yields.
type counted struct {
	model.Source
	events, unknownLoc, p2p, noPeer int64
	collUnknown                     int64 // CollBegin events on a communicator of unknown membership
}

func (c *counted) Next() bool {
	if !c.Source.Next() {
		return false
	}
	ev := c.Source.Event()
	c.events++
	if ev.Loc == 0 || int(ev.Loc) > c.Defs().NumLocations() {
		c.unknownLoc++
		return true
	}
	switch ev.Kind {
	case model.KindSend, model.KindRecv:
		c.p2p++
		if ev.Peer == 0 {
			c.noPeer++
		}
	case model.KindCollBegin:
		if cm, ok := c.Defs().Comm(ev.Comm); !ok || !cm.Self && len(cm.Members) == 0 {
			c.collUnknown++
		}
	}
	return true
}

// TestCorpus runs every trace of the repository's testdata through the
// analysis (doc/waitstates.md, issue 26 §3): no error, no panic, and
// diagnostics that agree with the events read and name, with their count,
// everything that could not be analysed. TestCorpusBroken does the same
// for the broken fixtures.
func TestCorpus(t *testing.T) {
	names := corpusTraces(t)
	var analysed, skipped int
	for _, name := range names {
		rel := filepath.ToSlash(strings.TrimPrefix(name, "../"))
		t.Run(rel, func(t *testing.T) {
			err := checkTrace(t, name)
			if notTrace(name, err) {
				skipped++
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			analysed++
		})
	}
	t.Logf("%d traces analysed, %d JSON files that are not traces", analysed, skipped)
	if analysed < 50 {
		t.Errorf("only %d traces analysed", analysed)
	}
}

// TestCorpusBroken runs the broken PICL fixtures (picl/testdata/bad: an
// input trace and the error its reader gives in strict mode or with a
// short line limit) through hpctrace.Open and the analysis: each either
// fails with the error its fixture documents, or, read leniently as
// hpctrace.Open reads, is analysed as any trace. The broken fixtures of
// the binary formats and of OTF are encodings that only their readers'
// tests assemble (hex records, single record files), not traces that
// hpctrace.Open reads.
func TestCorpusBroken(t *testing.T) {
	files, err := filepath.Glob("../picl/testdata/bad/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no broken PICL fixtures: %v", err)
	}
	errs := map[string]error{"ErrSyntax": picl.ErrSyntax, "ErrRange": picl.ErrRange, "ErrLimit": picl.ErrLimit, "ErrUnexpectedEOF": io.ErrUnexpectedEOF}
	var failed, analysed int
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			ar, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			input, want := txtarFile(ar, "input"), ""
			for _, l := range strings.Split(txtarFile(ar, "want"), "\n") {
				if v, ok := strings.CutPrefix(l, "err: "); ok {
					want = v
				}
			}
			wantErr, ok := errs[want]
			if input == "" || !ok {
				t.Fatalf("fixture without input or with an unknown error %q", want)
			}
			if strings.Contains(file, "unterminated") || strings.Contains(file, "truncated") {
				input = strings.TrimSuffix(input, "\n") // a txtar file ends in one; these end before it
			}
			name := filepath.Join(t.TempDir(), "trace.trf")
			if err := os.WriteFile(name, []byte(input), 0o644); err != nil {
				t.Fatal(err)
			}
			switch err := checkTrace(t, name); {
			case err == nil:
				analysed++
			case errors.Is(err, wantErr):
				failed++
			default:
				t.Errorf("got error %v, want nil or %v", err, wantErr)
			}
		})
	}
	t.Logf("%d broken PICL fixtures refused with their documented error, %d read leniently and analysed", failed, analysed)
	if failed == 0 {
		t.Error("no broken fixture was refused: the test checks no error")
	}
}

// txtarFile returns the file name of a txtar archive ("-- name --" lines),
// or "".
func txtarFile(ar []byte, name string) string {
	var b strings.Builder
	in := false
	for _, l := range strings.SplitAfter(string(ar), "\n") {
		if s := strings.TrimSpace(l); strings.HasPrefix(s, "-- ") && strings.HasSuffix(s, " --") && len(s) > 6 {
			in = strings.TrimSpace(s[3:len(s)-3]) == name
			continue
		}
		if in {
			b.WriteString(l)
		}
	}
	return b.String()
}

// checkTrace opens and analyses the trace name and checks the report's
// diagnostics against the events read and its text report. It returns
// the error of opening or reading the trace.
func checkTrace(t *testing.T, name string) error {
	t.Helper()
	src, err := hpctrace.Open(name, nil)
	if err != nil {
		return err
	}
	defer src.Close()
	c := &counted{Source: src}
	rep, err := waitstate.Analyze(c, nil)
	if err != nil {
		return err
	}
	d := rep.Diagnostics
	if d.Events != c.events {
		t.Errorf("Diagnostics.Events %d, want the %d events read", d.Events, c.events)
	}
	if d.UnknownLocation != c.unknownLoc {
		t.Errorf("Diagnostics.UnknownLocation %d, want %d", d.UnknownLocation, c.unknownLoc)
	}
	if d.UnknownPeer != c.noPeer {
		t.Errorf("Diagnostics.UnknownPeer %d, want the %d sends and receives without a peer", d.UnknownPeer, c.noPeer)
	}
	if ends := 2*d.MatchedMessages + d.UnmatchedSends + d.UnmatchedRecvs; ends != c.p2p-c.noPeer {
		t.Errorf("%d message ends matched or not, want the %d sends and receives with a peer", ends, c.p2p-c.noPeer)
	}
	if c.collUnknown > 0 && d.UnknownComm == 0 && d.OutsideCall == 0 {
		t.Errorf("%d collective events on communicators of unknown membership, none in the diagnostics", c.collUnknown)
	}
	var text bytes.Buffer
	if err := rep.WriteText(&text, nil); err != nil {
		t.Fatal(err)
	}
	diag := text.String()[strings.LastIndex(text.String(), "\nDiagnostics:"):]
	for _, x := range []struct {
		n    int64
		what string
	}{
		{d.Events, "events"}, {d.UnknownLocation, "events of unknown locations"}, {d.UnmatchedSends, "unmatched sends"},
		{d.UnmatchedRecvs, "unmatched receives"}, {d.UnknownPeer, "messages without a partner"},
		{d.OutsideCall, "communication events outside MPI calls"},
		{d.UnknownComm, "collective calls on communicators of unknown membership"},
		{d.IncompleteColls, "incomplete collectives"}, {d.ClockViolations, "clock-condition violations"},
		{d.LeaveMismatch, "mismatched leaves"}, {d.UnbalancedLeaves, "unbalanced leaves"}, {d.OpenAtEnd, "regions open at the end"},
	} {
		if x.n != 0 && !strings.Contains(diag, " "+strconv.FormatInt(x.n, 10)+" "+x.what) {
			t.Errorf("%d %s not in the report's diagnostics: %q", x.n, x.what, diag)
		}
	}
	return nil
}
