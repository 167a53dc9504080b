package store

import (
	"context"
	"encoding/binary"
	"fmt"
	"testing"
)

// countingIndexer indexes each document under one posting of its own and
// one every document shares: the merge operands a reindex batch writes.
type countingIndexer struct{ nums []uint32 }

func (x *countingIndexer) Load(*IndexReader) error { return nil }
func (x *countingIndexer) Add(num uint32, _ IndexInput) error {
	x.nums = append(x.nums, num)
	return nil
}
func (x *countingIndexer) Remove(uint32, IndexInput) error { return nil }
func (x *countingIndexer) Flush(w *IndexWriter) error {
	for _, n := range x.nums {
		if err := w.AddSorted(binary.BigEndian.AppendUint32([]byte{IndexPrefix, 'd'}, n), []uint32{n}); err != nil {
			return err
		}
	}
	return w.AddSorted([]byte{IndexPrefix, 'a'}, x.nums)
}
func (x *countingIndexer) Done(bool)       { x.nums = x.nums[:0] }
func (x *countingIndexer) Version() string { return "counting.v1" }

// TestReindexCompactsTheIndex: a reindex leaves its postings compacted,
// none in level 0 or the memtable, and every one readable.
func TestReindexCompactsTheIndex(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var batch []Document
	for i := range 300 {
		batch = append(batch, Document{Body: []byte(fmt.Sprintf(`{"i":%d}`, i))})
	}
	if _, err := s.PutBatch(ctx, batch); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := Reindex(ctx, dir, nil, &countingIndexer{}, 7, nil); err != nil {
		t.Fatal(err)
	}
	// Read-only: an open that writes would flush and compact on its own.
	s, err = Open(dir, &Options{Indexer: &countingIndexer{}, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// Uncompacted, the reindex's batches would stand in the write-ahead
	// log (replayed into the memtable) or in level 0.
	m := s.kv.db.Metrics()
	below := int64(0)
	for _, lv := range m.Levels[1:] {
		below += lv.TablesCount
	}
	if n := m.Levels[0].TablesCount; n != 0 || below == 0 {
		t.Errorf("%d tables in level 0 and %d below after the reindex, want its index compacted below level 0", n, below)
	}
	all, err := s.IndexReader().Bitmap([]byte{IndexPrefix, 'a'})
	if err != nil {
		t.Fatal(err)
	}
	if got := all.GetCardinality(); got != 300 {
		t.Errorf("the shared posting holds %d documents, want 300", got)
	}
}
