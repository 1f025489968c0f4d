//go:build race

package main

// raceEnabled: the program runs under the race detector, whose shadow
// memory is mapped in the same address space as the program's.
const raceEnabled = true
