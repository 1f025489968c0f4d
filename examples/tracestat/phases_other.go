//go:build !linux

package main

// shardCPU returns a function that returns 0: the CPU time of a thread is
// known on Linux only.
func shardCPU() func() float64 { return func() float64 { return 0 } }

// threadCPU returns 0: the CPU time of a thread is known on Linux only.
func threadCPU() float64 { return 0 }
