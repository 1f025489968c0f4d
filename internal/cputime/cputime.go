// Package cputime reads the CPU time of the running process, for tests
// that budget what code costs: unlike wall-clock time, it does not grow
// when other programs share the machine's cores.
package cputime

import "time"

// Process returns the user and system CPU time the process has used so
// far, summed over its threads (so it includes the garbage collector's
// work), and false where the system gives no such clock.
func Process() (time.Duration, bool) { return process() }

// Of returns the CPU time the process spends in f, and false where the
// system gives no CPU clock. Other goroutines of the process that run
// meanwhile are counted too: measure with none running.
func Of(f func()) (time.Duration, bool) {
	start, ok := process()
	f()
	end, _ := process()
	return end - start, ok
}
