package otf

import (
	"errors"
	"github.com/hpctrace/hpctrace/model"
	"io"
	"strings"
	"testing"
)

// failFile fails its writes (or its Close) and records that it was closed.
type failFile struct {
	name                 string
	failWrite, failClose bool
	closed               map[string]bool
}

var errDisk = errors.New("disk full")

func (f *failFile) Write(p []byte) (int, error) {
	if f.failWrite {
		return 0, errDisk
	}
	return len(p), nil
}

func (f *failFile) Close() error {
	f.closed[f.name] = true
	if f.failClose {
		return errDisk
	}
	return nil
}

// TestTraceWriterFailedClose: when a record file cannot be written or
// closed, Close reports it, still closes every file it created, and
// creates no master file.
func TestTraceWriterFailedClose(t *testing.T) {
	for _, tc := range []struct{ failWrite, failClose bool }{{true, false}, {false, true}} {
		closed := map[string]bool{}
		var created []string
		c := model.CreateFunc(func(name string) (io.WriteCloser, error) {
			created = append(created, name)
			bad := strings.HasSuffix(name, ".2.events")
			return &failFile{name: name, failWrite: bad && tc.failWrite, failClose: bad && tc.failClose, closed: closed}, nil
		})
		w, err := NewTraceWriter(c, &TraceWriterOptions{Stub: "x", MaxStreams: 2})
		if err != nil {
			t.Fatal(err)
		}
		var rec Record
		for i, p := range []uint32{1, 2} {
			rec.Time, rec.Process = uint64(10*i+10), p
			rec.SetEnter(Enter{Function: 1})
			if err := w.Write(&rec); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); !errors.Is(err, errDisk) {
			t.Errorf("%+v: Close: got %v, want the disk error", tc, err)
		}
		for _, n := range created {
			if n == "x.otf" {
				t.Errorf("%+v: the master file was created after a failure", tc)
			}
			if !closed[n] {
				t.Errorf("%+v: %s was not closed", tc, n)
			}
		}
		if len(created) != 2 {
			t.Errorf("%+v: created %v", tc, created)
		}
	}
}

// TestModelWriterFailedNoMaster: after a Write that failed in the trace
// writer (a time before the previous one of its file), Close reports the
// error and writes no master file.
func TestModelWriterFailedNoMaster(t *testing.T) {
	d, evs := modelTrace()
	m, c := memFS()
	w, err := NewModelWriter(c, d, &ModelWriterOptions{Stub: "x", Origin: -5})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(&evs[2]); err != nil {
		t.Fatal(err)
	}
	back := evs[0] // time -5 on the same location, after time 0
	if err := w.Write(&back); !errors.Is(err, ErrTimeOrder) {
		t.Fatalf("time going back: got %v, want ErrTimeOrder", err)
	}
	if err := w.Close(); !errors.Is(err, ErrTimeOrder) {
		t.Errorf("Close: got %v, want the write's error", err)
	}
	if _, ok := m["x.otf"]; ok {
		t.Error("a master file was written for a failed trace")
	}
	if len(m) == 0 {
		t.Error("no record file was written: the test does not reach the case")
	}
}
