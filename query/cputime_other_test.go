//go:build !unix

package query

import "time"

// processCPU is not measured here; the benchmarks report zero.
func processCPU() time.Duration { return 0 }
