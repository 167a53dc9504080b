//go:build race

package query

// raceEnabled says the race detector is on: it allocates for its own
// bookkeeping, so allocation counts are not the code's.
const raceEnabled = true
