//go:build unix

package outfile

import (
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"
)

// TestCleanUpOnSignal interrupts the test process while a file and a set
// are being written: their temporary paths go, a committed output stays,
// and the exit status is 128+SIGINT.
func TestCleanUpOnSignal(t *testing.T) {
	dir := t.TempDir()
	done := filepath.Join(dir, "done")
	if err := Write(done, nil, writeString("kept")); err != nil {
		t.Fatal(err)
	}
	f, err := Create(filepath.Join(dir, "out"), nil)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("partial"))
	s, err := NewSet(dir, "t.otf", owned, nil)
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.Create("t.1.events")
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("partial"))
	if got := names(t, dir); len(got) != 3 {
		t.Fatalf("directory holds %v, want done and two temporary paths", got)
	}

	status := make(chan int, 1)
	cleanUpOnSignal(func(code int) { status <- code })
	defer signal.Reset(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-status:
		if code != 128+int(syscall.SIGINT) {
			t.Errorf("exit status %d, want %d", code, 128+int(syscall.SIGINT))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no exit after SIGINT")
	}
	if got := names(t, dir); !slices.Equal(got, []string{"done"}) {
		t.Errorf("after the signal the directory holds %v, want [done]", got)
	}
	w.Close()
	f.Abort()
	s.Abort()
}
