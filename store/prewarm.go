package store

import (
	"context"
	"time"
)

// PrewarmStats is what Prewarm read.
type PrewarmStats struct {
	Keys       int64         // keys read
	Bytes      int64         // their keys' and values' bytes
	CacheBytes int64         // the block cache's size afterwards
	CacheLimit int64         // its capacity (Options.CacheSize)
	Full       bool          // it stopped because the cache was full
	Elapsed    time.Duration // how long it took
}

// prewarmFull is the share of the block cache at which Prewarm stops:
// reading on would only evict blocks it has just read.
const prewarmFull = 0.9

// Prewarm looks at the cache and the context every prewarmKeys keys or
// prewarmBytes bytes, whichever comes first (Pebble's metrics are not
// free to compute).
const (
	prewarmKeys  = 1 << 14
	prewarmBytes = 1 << 20
)

// Prewarm reads the store once in key order, so that the blocks later
// reads need are in Pebble's block cache, as PostgreSQL's pg_prewarm does
// for its buffers. A store whose working set fits the cache then answers
// point reads from memory from the start, not after minutes of traffic
// have read each block once. It stops at the end of the store, when the
// cache is 90% full, or when ctx is done (returning ctx's error with what
// it read); progress, when not nil, is called every 16,384 keys or MiB.
// It changes nothing and runs beside reads and writes.
func (s *Store) Prewarm(ctx context.Context, progress func(PrewarmStats)) (PrewarmStats, error) {
	start := time.Now()
	st := PrewarmStats{CacheLimit: s.opts.CacheSize}
	if err := ctx.Err(); err != nil {
		return st, err
	}
	look := func() bool {
		st.CacheBytes, st.Elapsed = s.kv.cacheBytes(), time.Since(start)
		st.Full = float64(st.CacheBytes) >= prewarmFull*float64(st.CacheLimit)
		return st.Full
	}
	nextKeys, nextBytes := int64(prewarmKeys), int64(prewarmBytes) // where the next look falls
	err := s.kv.readAll(func(keyLen, valueLen int) (bool, error) {
		st.Keys++
		st.Bytes += int64(keyLen + valueLen)
		if st.Keys < nextKeys && st.Bytes < nextBytes {
			return true, nil
		}
		nextKeys, nextBytes = st.Keys+prewarmKeys, st.Bytes+prewarmBytes
		if err := ctx.Err(); err != nil {
			return false, err
		}
		full := look()
		if progress != nil {
			progress(st)
		}
		return !full, nil
	})
	look()
	return st, err
}
