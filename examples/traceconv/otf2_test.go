package main

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hpctrace/hpctrace"
	"github.com/hpctrace/hpctrace/examples/internal/outfile"
	"github.com/hpctrace/hpctrace/model"
)

// toOTF2Model is what a conversion to OTF2 keeps of a model trace: markers
// without their text (those without a region dropped), collectives of
// unknown class without an MPI name dropped with their end, collective
// instance numbers gone, a receive post's envelope gone (the request
// stays), and the communicator 0 (world) where the peer or root is
// not a member of the event's communicator or it is an intercommunicator.
func toOTF2Model(d *model.Defs, evs []model.Event) []model.Event {
	var out []model.Event
	drop := map[model.LocID]bool{}
	for _, ev := range evs {
		switch ev.Kind {
		case model.KindMarker:
			if ev.Region == 0 {
				continue
			}
			ev.Text = 0
		case model.KindCollBegin:
			r, _ := d.Region(ev.Region)
			if ev.Class == model.ClassUnknown && !strings.HasPrefix(strings.ToLower(r.Name), "mpi_") {
				drop[ev.Loc] = true
				continue
			}
			ev.Comm = written(d, ev.Comm, ev.Peer)
		case model.KindCollEnd:
			if drop[ev.Loc] {
				drop[ev.Loc] = false
				continue
			}
		case model.KindSend, model.KindRecv:
			ev.Comm = written(d, ev.Comm, ev.Peer)
		case model.KindRecvPost:
			ev.Peer, ev.Tag, ev.Comm = 0, 0, 0 // MpiIrecvRequest has only the request
		}
		switch ev.Kind {
		case model.KindSend, model.KindRecv, model.KindRecvPost, model.KindSendDone:
		default:
			ev.Match = 0
		}
		out = append(out, ev)
	}
	return out
}

// written returns the communicator an event of comm c with peer l is
// written on: c, or world (0) for an intercommunicator or a peer that is
// not one of c's members.
func written(d *model.Defs, c model.CommID, l model.LocID) model.CommID {
	cm, ok := d.Comm(c)
	if !ok || len(cm.Remote) > 0 || l != 0 && !slices.Contains(cm.Members, l) {
		return 0
	}
	return c
}

// otf2Comm names the communicator of an input event as the conversion
// writes it: world (0) for none and for intercommunicators, else its id.
func otf2Comm(d *model.Defs, c model.CommID) uint32 {
	if cm, ok := d.Comm(c); !ok || len(cm.Remote) > 0 {
		return 0
	}
	return uint32(c)
}

// runOTF2Print runs the reference otf2-print on the anchor file out.
func runOTF2Print(t *testing.T, out string) []byte {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command("otf2-print", out)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("reference otf2-print: %v\n%s", err, stderr.String())
	}
	if stderr.Len() > 0 {
		t.Errorf("reference otf2-print reports:\n%s", stderr.String())
	}
	return stdout.Bytes()
}

// runOTF2PrintStderr runs the reference otf2-print on the archive out and
// returns what it prints on stdout and on stderr.
func runOTF2PrintStderr(t *testing.T, out string) ([]byte, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command("otf2-print", out)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("reference otf2-print: %v\n%s", err, stderr.String())
	}
	return stdout.Bytes(), stderr.String()
}

// TestConvertToOTF2 converts every fixture of every format to OTF2 and
// checks that the events read back as they were, less what OTF2 cannot
// hold, and that the reference otf2-print reads the archive.
func TestConvertToOTF2(t *testing.T) {
	_, noPrint := exec.LookPath("otf2-print")
	n := 0
	for from, ins := range convInputs(t) {
		if from == "otf2" {
			continue // a copy: TestCopyOTF2
		}
		for _, in := range ins {
			name := strings.ReplaceAll(strings.TrimPrefix(filepath.ToSlash(in), "../../"), "/", "_")
			t.Run(name, func(t *testing.T) {
				n++
				wantDefs, wantEvs := readModel(t, openModel(in, nil))
				wantEvs = toOTF2Model(wantDefs, resolveLeaves(wantEvs))
				out := filepath.Join(t.TempDir(), "out.otf2")
				if err := convert(in, out, &options{to: "otf2"}); err != nil {
					t.Fatal(err)
				}
				if f, err := hpctrace.Detect(out); err != nil || f != hpctrace.FormatOTF2 {
					t.Fatalf("output detected as %v, %v", f, err)
				}
				gotDefs, gotEvs := readModel(t, openModel(out, nil))
				want := mapEvents(wantDefs, wantEvs, true, otf2Comm)
				got := mapEvents(gotDefs, gotEvs, true, commNative)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s → OTF2 → model differs from %s → model (-want +got):\n%s", from, from, diff)
				}
				if noPrint == nil {
					runOTF2Print(t, out)
				}
			})
		}
	}
	if n < 20 {
		t.Errorf("%d conversions; want at least 20", n)
	}
}

// TestCopyOTF2 copies every OTF2 fixture: the copy of an archive libotf2
// wrote (snapshots, markers and thumbnails included) is byte-identical
// file by file and nothing is said; the archive with records of unknown
// kinds loses them, and the notes say which files differ. The reference
// otf2-print prints the copy as the input.
func TestCopyOTF2(t *testing.T) {
	ins, _ := filepath.Glob("../../otf2/testdata/*/trace/traces.otf2")
	if len(ins) < 5 {
		t.Fatalf("%d OTF2 fixtures", len(ins))
	}
	_, noPrint := exec.LookPath("otf2-print")
	for _, in := range ins {
		out, notes := copyFixture(t, in, &options{})
		unknown := strings.Contains(in, "unknown_records")
		inFiles, outFiles := otf2Files(in), otf2Files(out)
		if len(inFiles) != len(outFiles) {
			t.Errorf("%s: %d files, the copy %d", in, len(inFiles), len(outFiles))
		}
		for k, p := range inFiles {
			want, _ := os.ReadFile(p)
			got, err := os.ReadFile(outFiles[k])
			if err != nil {
				t.Errorf("%s: %v", in, err)
				continue
			}
			if !bytes.Equal(want, got) && !unknown {
				t.Errorf("%s: %s differs in the copy", in, k)
			}
		}
		switch {
		case unknown:
			for _, s := range []string{"traces.def: first difference at byte", "0.evt: first difference at byte"} {
				if !strings.Contains(notes, s) {
					t.Errorf("%s: notes lack %q:\n%s", in, s, notes)
				}
			}
		case notes != "":
			t.Errorf("%s: notes for an identical copy: %s", in, notes)
		}
		if noPrint == nil && !unknown {
			// What otf2-print says of the input on stderr (the thumbnail
			// fixture has no local definition file, and libotf2 cannot read
			// back the thumbnails it writes) it must say of the copy too,
			// and nothing more.
			want, wantErr := runOTF2PrintStderr(t, in)
			got, gotErr := runOTF2PrintStderr(t, out)
			if !bytes.Equal(want, got) {
				t.Errorf("%s: otf2-print prints the copy differently:\n%s", in, got)
			}
			inDir, outDir := filepath.Dir(in), filepath.Dir(out)
			if w, g := strings.ReplaceAll(wantErr, inDir, "DIR"), strings.ReplaceAll(gotErr, outDir, "DIR"); w != g {
				t.Errorf("%s: otf2-print reports on the copy:\n%s\nand on the input:\n%s", in, gotErr, wantErr)
			}
		}
	}
}

// TestOTF2OutputSafety: an OTF2 output that is the input is refused, an
// existing archive is replaced only with -force (its stale event files
// removed), and a failed conversion leaves the old archive as it was.
func TestOTF2OutputSafety(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../../otf2/testdata/c_localdefs/trace")); err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(dir, "traces.otf2")
	want := snapshotTree(t, dir)
	for _, force := range []bool{false, true} {
		for _, to := range []string{"", "otf2"} {
			if err := convert(in, in, &options{to: to, force: force}); !errors.Is(err, outfile.ErrInput) {
				t.Errorf("output = input, -to %q -force=%v: got %v, want ErrInput", to, force, err)
			}
		}
	}
	sameSnapshot(t, "after refused conversions", snapshotTree(t, dir), want)

	out := filepath.Join(t.TempDir(), "run.otf2")
	if err := convert("../../dumpi/testdata/collectives/dumpi-2026.11.22.01.33.17.meta", out, &options{to: "otf2"}); err != nil {
		t.Fatal(err)
	}
	if err := convert(in, out, &options{}); !errors.Is(err, outfile.ErrExists) {
		t.Fatalf("existing archive without -force: got %v, want ErrExists", err)
	}
	if err := convert(in, out, &options{force: true}); err != nil {
		t.Fatal(err)
	}
	evs, _ := filepath.Glob(filepath.Join(filepath.Dir(out), "run", "*"))
	if len(evs) != 4 { // two locations: 0.evt, 0.def, 1.evt, 1.def; the four ranks' files are gone
		t.Errorf("archive directory holds %v", evs)
	}
	before := snapshotTree(t, filepath.Dir(out))
	bad := filepath.Join(t.TempDir(), "bad.trf")
	if err := os.WriteFile(bad, []byte("-3 -901 0.000000 0 0 0\n-3 -901 x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := convert(bad, out, &options{to: "otf2", force: true}); err == nil {
		t.Fatal("a bad input converted")
	}
	sameSnapshot(t, "after a failed conversion", snapshotTree(t, filepath.Dir(out)), before)
}

// snapshotTree returns the paths and contents of the files under dir.
func snapshotTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		out[strings.TrimPrefix(p, dir)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
