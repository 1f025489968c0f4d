package main

import (
	"runtime"
	"syscall"
)

// shardCPU locks the calling goroutine to its thread and returns a
// function that returns the user and system CPU seconds the thread has
// taken since, and unlocks it.
func shardCPU() func() float64 {
	runtime.LockOSThread()
	start := threadCPU()
	return func() float64 {
		defer runtime.UnlockOSThread()
		return threadCPU() - start
	}
}

func threadCPU() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_THREAD, &ru) != nil {
		return 0
	}
	return seconds(ru.Utime) + seconds(ru.Stime)
}
