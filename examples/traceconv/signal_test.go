//go:build unix

package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hpctrace/hpctrace/examples/internal/progtest"
)

// TestInterrupt interrupts traceconv while it writes its output (its
// input is a pipe that stops after a few records): its temporary file is
// removed, the user's old output stays, and it exits with status 130.
func TestInterrupt(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.trf")
	if err := syscall.Mkfifo(in, 0o600); err != nil {
		t.Skip("no named pipes:", err)
	}
	out := filepath.Join(dir, "out.trf")
	if err := os.WriteFile(out, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, to := range []string{"picl", "otf"} {
		cmd := exec.Command(progtest.Build(t), "-to", to, "-force", "-in", in, "-out", out)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		w, err := os.OpenFile(in, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		// Feed whole records in writes of less than PIPE_BUF bytes (each
		// goes in whole or not at all) until the interrupt.
		stop := make(chan bool)
		fed := make(chan bool)
		go func() {
			defer close(fed)
			// 32-byte lines: the 64 bytes the format detection reads
			// end at a line end.
			chunk := strings.Repeat("-3 -901 0.000010000000000 0 0 0\n", 100)
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := w.WriteString(chunk); err != nil {
					time.Sleep(time.Millisecond) // no reader between the program's passes
				}
			}
		}()
		tmp := ""
		for deadline := time.Now().Add(20 * time.Second); tmp == "" && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
			ents, _ := os.ReadDir(dir)
			for _, e := range ents {
				if strings.Contains(e.Name(), ".tmp-") {
					tmp = e.Name()
				}
			}
		}
		if tmp == "" {
			cmd.Process.Kill()
			close(stop)
			t.Fatalf("-to %s: no temporary output appeared", to)
		}
		cmd.Process.Signal(syscall.SIGINT)
		err = cmd.Wait()
		close(stop)
		<-fed
		w.Close()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 130 {
			t.Errorf("-to %s: got %v, want exit status 130", to, err)
		}
		ents, _ := os.ReadDir(dir)
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		if strings.Join(names, " ") != "in.trf out.trf" {
			t.Errorf("-to %s: after the interrupt the directory holds %v", to, names)
		}
		if data, _ := os.ReadFile(out); string(data) != "old" {
			t.Errorf("-to %s: the old output was changed", to)
		}
	}
}
