//go:build unix

package main

import (
	"syscall"
	"time"
)

// ownCPU is the CPU time this process has used, user and system, in
// seconds.
func ownCPU() (float64, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds(), true
}
