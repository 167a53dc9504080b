//go:build !unix

package query

import "time"

// processCPU is not measured here: cpu-ms/op reads 0.
func processCPU() time.Duration { return 0 }
