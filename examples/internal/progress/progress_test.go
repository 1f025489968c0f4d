package progress

import (
	"bytes"
	"os"
	"testing"
	"time"

	"github.com/hpctrace/hpctrace/internal/termsafe"
)

func TestLine(t *testing.T) {
	m := New(new(bytes.Buffer), "run.otf", "events")
	if got, want := m.Line(2_500_000, 2*time.Second), "run.otf: 2.5 M events, 1.2 M/s"; got != want {
		t.Errorf("Line = %q, want %q", got, want)
	}
	m.SetTotal(10_000_000)
	if got, want := m.Line(2_500_000, 2*time.Second), "run.otf: 2.5 M of 10.0 M events (25%), 1.2 M/s, 6s left"; got != want {
		t.Errorf("Line = %q, want %q", got, want)
	}
}

// TestNotTerminal checks that nothing is written when the writer is not a
// terminal, however long the run.
func TestNotTerminal(t *testing.T) {
	var buf bytes.Buffer
	m := New(&buf, "x", "events")
	clock := time.Unix(0, 0)
	m.now = func() time.Time { clock = clock.Add(5 * time.Second); return clock }
	m.Update(10)
	m.Done(20)
	if buf.Len() != 0 {
		t.Errorf("wrote %q to a non-terminal", buf.String())
	}
}

// TestTerminal checks the output of an active meter (as on a terminal).
func TestTerminal(t *testing.T) {
	var buf bytes.Buffer
	m := New(&buf, "x", "events")
	m.tty = true
	clock := m.start
	m.now = func() time.Time { return clock }
	clock = clock.Add(500 * time.Millisecond)
	m.Update(5) // within the first second: nothing
	if buf.Len() != 0 {
		t.Fatalf("wrote %q within the first second", buf.String())
	}
	clock = clock.Add(time.Second)
	m.SetTotal(30)
	m.Update(15)
	clock = clock.Add(time.Second)
	m.Done(30)
	want := "\rx: 15 of 30 events (50%), 10/s, 2s left\x1b[K\rx: 30 events in 2.5 s, 12/s\x1b[K\n"
	if buf.String() != want {
		t.Errorf("output %q, want %q", buf.String(), want)
	}
}

// TestForOutput checks that a meter for results written to a file is
// inactive when its own writer is not a terminal.
func TestForOutput(t *testing.T) {
	var buf bytes.Buffer
	if m := ForOutput(&buf, new(bytes.Buffer), "x", "records"); m.tty {
		t.Error("active on a buffer")
	}
}

func TestDevNull(t *testing.T) {
	f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if IsTerminal(f) {
		t.Errorf("%s is taken for a terminal", os.DevNull)
	}
}

// TestIsTerminalUnwraps: a writer wrapping a character device (here
// /dev/zero, which is not the null device) is asked about the device.
func TestIsTerminalUnwraps(t *testing.T) {
	f, err := os.OpenFile("/dev/zero", os.O_WRONLY, 0)
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	if !IsTerminal(f) {
		t.Skip("/dev/zero is not a character device here")
	}
	if !IsTerminal(termsafe.NewWriter(f)) {
		t.Error("IsTerminal of a termsafe.Writer over a character device is false, want true")
	}
}
