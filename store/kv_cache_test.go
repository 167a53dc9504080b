package store

import (
	"fmt"
	"testing"
)

// TestBlockCacheBesideMemtables checks that the block cache keeps blocks
// while full-size memtables are in use. Pebble reserves every memtable's
// bytes from the block cache: a cache no larger than the memtables it
// holds (the defaults were 64 MiB for both, and two memtables live once
// one was flushed) keeps no block at all, so every point read of a
// table went to the file.
func TestBlockCacheBesideMemtables(t *testing.T) {
	o := &Options{NoSync: true, CacheSize: 4 << 20, MemTableSize: 2 << 20}
	k, err := openKV(t.TempDir(), o.EnsureDefaults())
	if err != nil {
		t.Fatal(err)
	}
	defer k.close()
	// Memtables start small and double at each rotation up to
	// MemTableSize: enough rotations bring them to full size.
	value := make([]byte, 1000)
	for round := range 8 {
		b := k.newBatch()
		for i := range 1000 {
			if err := b.set([]byte(fmt.Sprintf("D%d-%06d", round, i)), value); err != nil {
				t.Fatal(err)
			}
		}
		if err := k.apply(b, false); err != nil {
			t.Fatal(err)
		}
		b.close()
		if err := k.db.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	for range 3 {
		if _, found, err := k.get([]byte("D7-000500"), nil); err != nil || !found {
			t.Fatalf("get: found %v, %v", found, err)
		}
	}
	if m := k.db.Metrics().BlockCache; m.Hits == 0 || m.Count == 0 {
		t.Fatalf("block cache after three reads of one key: %+v; want blocks kept and hits", m)
	}
}
