package outfile

import (
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// pending holds the temporary files and directories of the outputs not
// yet committed or aborted, for CleanUpOnSignal. It is the one piece of
// process-wide state of the package: signals are delivered to the
// process, not to an output.
var pending = struct {
	sync.Mutex
	paths map[string]bool
}{paths: map[string]bool{}}

// The temporary paths are added to pending where they are made, under
// its lock (createTemp, NewSet), so that a signal cannot come between
// making one and recording it; untrack forgets one. Commit and Abort run
// their renames and removals between lock and unlock, so that a signal
// handler never removes half of a commit.
func untrack(path string) {
	delete(pending.paths, path)
}

// CleanUpOnSignal makes an interrupt (SIGINT, Ctrl-C) or a termination
// request (SIGTERM, SIGHUP) remove the temporary files and directories of
// the outputs not yet committed, and then end the program with status
// 128 plus the signal number, as a shell reports a program killed by it.
// The targets are untouched: a commit that is under way is finished
// first. Programs call it once, at the start of main. (SIGKILL cannot be
// caught: after it a hidden ".NAME.tmp-XXXX" file or directory may be
// left beside the target.)
func CleanUpOnSignal() {
	cleanUpOnSignal(os.Exit)
}

func cleanUpOnSignal(exit func(int)) {
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		sig := <-c
		pending.Lock()
		for p := range pending.paths {
			os.RemoveAll(p) // only temporary paths the package created
			delete(pending.paths, p)
		}
		signal.Stop(c)
		code := 1
		if s, ok := sig.(syscall.Signal); ok {
			code = 128 + int(s)
		}
		pending.Unlock()
		exit(code)
	}()
}
