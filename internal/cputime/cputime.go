// Package cputime reads the CPU time this process has used. Benchmarks
// and the load test report it per operation: on a machine other work
// shares it moves much less than the wall clock.
package cputime
