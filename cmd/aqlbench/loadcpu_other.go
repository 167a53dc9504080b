//go:build !unix

package main

// ownCPU is not measured on this system.
func ownCPU() (float64, bool) { return 0, false }
