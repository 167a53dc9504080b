package store

// fewCandidates is the largest candidate set Fetch reads by point reads
// (Pebble Gets, which skip a table by its bloom filter) rather than
// through its two cursors. A cursor positions an iterator in every level
// of the LSM, which a long walk amortizes and a point query pays in full.
// BenchmarkFetchFew, CPU per document on 1,000,000 manifests (nearly
// every read a block-cache miss): 1 document 65 µs by points against
// 76–93 through the cursors, 2 documents 60 against 74–77, 4 documents
// 56–57 against 64–65, 8 documents 52–56 against 61–62, 16 the same. On
// the smaller, compacted store of BenchmarkFetch (20,000 manifests), 4
// cost the same either way and 8 favored the cursors (75–77 against
// 83–87 µs), hence 4.
// A variable so that tests can send every fetch through either path and
// compare.
var fewCandidates uint64 = 4

// readFew runs fn on a new view of the store and a body reader that reads
// every blob by a point read, and closes both: no cursor is opened.
func (s *Store) readFew(fn func(v *view, bs *bodies) error) error {
	return s.readView(func(v *view) error {
		return fn(v, &bodies{v: v, points: true})
	})
}
