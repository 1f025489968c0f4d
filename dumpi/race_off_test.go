//go:build !race

package dumpi

// raceEnabled tells timing tests that the race detector slows the code
// they time (by 5 to 20 times).
const raceEnabled = false
