//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package cputime

import "time"

func process() (time.Duration, bool) { return 0, false }
