package query

import (
	"time"

	"github.com/aqlstore/aqlstore/internal/cputime"
)

// processCPU is the user and system CPU time the process has used (0
// where the system does not say); a benchmark reports it per operation,
// since it is steadier than latency on a machine other work shares.
func processCPU() time.Duration {
	d, _ := cputime.Process()
	return d
}
