package store

// IndexRanges reads ranges of committed index keys one after another
// through one iterator, which each range reuses: for a lookup that reads
// many small ranges (a range query's buckets, level by level), where a
// Scan per range opens an iterator per range. Every range reads the index
// as of IndexReader.Ranges. An IndexRanges is not safe for concurrent
// use; Close it when done.
type IndexRanges struct{ r *ranges }

// Ranges returns an IndexRanges over the committed index.
func (r *IndexReader) Ranges() (*IndexRanges, error) {
	rs, err := r.k.ranges()
	if err != nil {
		return nil, err
	}
	return &IndexRanges{r: rs}, nil
}

// Visit calls fn for every index key in [start, end), in order, until fn
// returns false or an error. key and value are valid during the call
// only: fn copies what it keeps (a PostingUnion keeps nothing of the
// values it is given).
func (x *IndexRanges) Visit(start, end []byte, fn func(key, value []byte) (bool, error)) error {
	return x.r.visit(start, end, fn)
}

// Close releases the iterator.
func (x *IndexRanges) Close() error { return x.r.close() }
