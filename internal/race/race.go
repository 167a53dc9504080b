// Package race says whether the race detector is built in. Its
// instrumentation allocates for its own bookkeeping, so tests that count
// allocations skip the count under it.
package race
