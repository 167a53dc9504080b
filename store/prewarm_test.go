package store

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
)

// prewarmStore is a store of n documents of about size bytes each
// (incompressible), flushed to sstables: memtable reads never touch the
// block cache.
func prewarmStore(t *testing.T, cache int64, n, size int) *Store {
	t.Helper()
	s := openTest(t, &Options{NoSync: true, CacheSize: cache})
	rnd := rand.New(rand.NewPCG(3, 4))
	text := make([]byte, size)
	docs := make([]Document, 0, n)
	for i := range n {
		for j := range text {
			text[j] = "0123456789abcdef"[rnd.IntN(16)]
		}
		docs = append(docs, Document{Body: fmt.Appendf(nil, `{"node_id":"p-%d","text":"%s"}`, i, text)})
	}
	if _, err := s.PutBatch(context.Background(), docs); err != nil {
		t.Fatal(err)
	}
	if err := s.kv.db.Flush(); err != nil {
		t.Fatal(err)
	}
	return s
}

// keyCount is how many keys s's database holds.
func keyCount(t *testing.T, s *Store) int64 {
	t.Helper()
	var keys int64
	if err := s.kv.scan(nil, []byte{0xff, 0xff}, func(_, _ []byte) error { keys++; return nil }); err != nil {
		t.Fatal(err)
	}
	return keys
}

func TestPrewarmReadsTheWholeStoreIntoTheCache(t *testing.T) {
	s := prewarmStore(t, 64<<20, 400, 4<<10)
	before := s.kv.cacheBytes()
	var calls int
	st, err := s.Prewarm(context.Background(), func(PrewarmStats) { calls++ })
	if err != nil {
		t.Fatal(err)
	}
	keys := keyCount(t, s)
	if st.Keys != keys || st.Full || st.Bytes < 400*4<<10 {
		t.Fatalf("prewarm read %d keys (%d bytes), full %v; the store holds %d keys of 400 documents of 4 KiB",
			st.Keys, st.Bytes, st.Full, keys)
	}
	if st.CacheBytes < before+400*4<<10 || st.CacheLimit != 64<<20 {
		t.Fatalf("the block cache holds %d bytes (%d before) of %d: the documents did not reach it", st.CacheBytes, before, st.CacheLimit)
	}
	if calls == 0 {
		t.Fatal("progress was never called over 1.6 MB")
	}
	t.Logf("%d keys, %d bytes, cache %d → %d bytes, %d progress calls", st.Keys, st.Bytes, before, st.CacheBytes, calls)
}

func TestPrewarmStopsWhenTheCacheIsFull(t *testing.T) {
	// Pebble caches nothing at all in a cache of a few MiB, so the cache
	// is 64 MiB and Prewarm is told it holds 1 MiB: it must stop once
	// 0.9 MiB of the 6.4 MB of documents are in it.
	s := prewarmStore(t, 64<<20, 400, 16<<10)
	s.opts.CacheSize = 1 << 20
	st, err := s.Prewarm(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	keys := keyCount(t, s)
	if !st.Full || st.Keys >= keys || float64(st.CacheBytes) < prewarmFull*float64(st.CacheLimit) {
		t.Fatalf("prewarm with a full cache: %+v of %d keys, want it stopped early and full", st, keys)
	}
	t.Logf("stopped after %d of %d keys, cache %d of %d bytes", st.Keys, keys, st.CacheBytes, st.CacheLimit)
}

func TestPrewarmStopsWithItsContext(t *testing.T) {
	s := prewarmStore(t, 64<<20, 400, 16<<10)
	ctx, cancel := context.WithCancel(context.Background())
	st, err := s.Prewarm(ctx, func(PrewarmStats) { cancel() })
	if !errors.Is(err, context.Canceled) || st.Keys == 0 {
		t.Fatalf("prewarm canceled after its first progress: %+v, %v", st, err)
	}
	if _, err := s.Prewarm(ctx, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("prewarm with a canceled context: %v", err)
	}
}
