//go:build unix

package query

import (
	"syscall"
	"time"
)

// processCPU is the user and system CPU time the process has used; a
// benchmark reports it per operation, since it is steadier than latency
// on a machine other work shares.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
