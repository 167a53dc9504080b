package main

// serveHeapFloor is how much memory `aqlstore serve` asks the garbage
// collector to count as live on top of the real heap. The server's live
// Go heap is a few MiB (Pebble's block cache and memtables live outside
// it), so at Go's default GOGC=100 a busy server collects every few MiB
// allocated: 72 collections in 8,000 point queries on 1,000,000
// manifests, and a tenth of its CPU in the collector. With the floor the
// heap goal is at least twice the floor, and BenchmarkPointQuery spends
// about 15% less CPU per query: AQLSTORE_BENCH_HEAP_FLOOR_MIB=16 against
// 0, 1,000 cached manifests of the 1M corpus, 195 against 228 µs (three
// interleaved pairs). Unlike a larger GOGC, the floor adds a
// constant to the goal, not a multiple of the live heap, so a server
// whose heap is large (a path dictionary of many distinct member names)
// does not grow several times over. GOGC and GOMEMLIMIT apply as usual.
const serveHeapFloor = 16 << 20

// heapFloor holds the floor for the life of the process. It is one
// pointer-free allocation that nothing reads or writes: the collector
// does not scan it, and its pages are never touched, so they take no
// resident memory.
var heapFloor []byte

// setServeHeapFloor allocates the floor, once.
func setServeHeapFloor() {
	if heapFloor == nil {
		heapFloor = make([]byte, serveHeapFloor)
	}
}
