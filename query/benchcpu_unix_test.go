//go:build unix

package query

import (
	"syscall"
	"time"
)

// processCPU is the CPU time the process used so far, user and system,
// every goroutine and Pebble's background work included: on a machine
// shared with other work it varies less than the latency does.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
