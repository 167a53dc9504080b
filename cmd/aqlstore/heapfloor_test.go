package main

import (
	"runtime"
	"runtime/metrics"
	"testing"
)

// TestServeHeapFloor: with the floor set, a collection leaves a heap goal
// of at least twice the floor (GOGC=100), where this test process alone
// needs a few MiB.
func TestServeHeapFloor(t *testing.T) {
	setServeHeapFloor()
	runtime.GC()
	s := []metrics.Sample{{Name: "/gc/heap/goal:bytes"}}
	metrics.Read(s)
	if goal := s[0].Value.Uint64(); goal < 2*serveHeapFloor*9/10 {
		t.Fatalf("heap goal %d bytes after a collection, want about %d or more", goal, 2*serveHeapFloor)
	}
}
