package main

import (
	"fmt"
	"io"
	"runtime"
	"strings"
	"syscall"
	"time"
)

// phases measures the phases of a run for -phases: per phase, its wall
// time and the CPU time (user and system) of the whole process, which
// for a phase run by one goroutine (opening the trace, joining the
// shards, finalizing, writing the report) is that phase's, garbage
// collection included. The shards' reading and accumulating, in
// parallel, are told apart by the CPU time of each shard's thread
// (shardCPU). A nil *phases measures nothing.
type phases struct {
	w     io.Writer
	name  string
	wall  time.Time
	cpu   float64
	parts []string
	start time.Time
	cpu0  float64
	// With thread (a parallel run, once the shards are done), each
	// phase also tells the CPU time of the goroutine that ran it, locked
	// to its thread: the serial part of a phase whose work other
	// goroutines share (the joins of a level, Finalize's workers).
	thread bool
	tcpu   float64
}

// lockThread locks the calling goroutine to its thread, whose CPU time
// each later phase tells, until done.
func (p *phases) lockThread() {
	if p == nil || p.thread {
		return
	}
	runtime.LockOSThread()
	p.thread, p.tcpu = true, threadCPU()
}

// newPhases returns the measure of the run of trace name, or nil without
// -phases.
func newPhases(on bool, w io.Writer, name string) *phases {
	if !on {
		return nil
	}
	p := &phases{w: w, name: name, wall: time.Now(), cpu: processCPU()}
	p.start, p.cpu0 = p.wall, p.cpu
	return p
}

// mark ends the phase what (and begins the next); extra is added to its
// line.
func (p *phases) mark(what, extra string) {
	if p == nil {
		return
	}
	now, cpu := time.Now(), processCPU()
	s := fmt.Sprintf("%s %.3f s wall, %.3f s CPU", what, now.Sub(p.wall).Seconds(), cpu-p.cpu)
	if p.thread {
		t := threadCPU()
		extra = strings.TrimPrefix(extra+fmt.Sprintf("; %.3f s CPU on this goroutine's thread", t-p.tcpu), "; ")
		p.tcpu = t
	}
	if extra != "" {
		s += " (" + extra + ")"
	}
	p.parts = append(p.parts, s)
	p.wall, p.cpu = now, cpu
}

// done writes the phases on one line of stderr.
func (p *phases) done() {
	if p == nil {
		return
	}
	if p.thread {
		runtime.UnlockOSThread()
		p.thread = false
	}
	fmt.Fprintf(p.w, "tracestat: %s: phases: %s; total %.3f s wall, %.3f s CPU\n", p.name, strings.Join(p.parts, "; "),
		time.Since(p.start).Seconds(), processCPU()-p.cpu0)
}

// processCPU returns the user and system CPU seconds of the process.
func processCPU() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return seconds(ru.Utime) + seconds(ru.Stime)
}

func seconds(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
