package store

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// TestCursorSeek checks seek against a map of the stored keys, for dense
// and sparse keys sought forward (near and far), backward, twice
// in a row, past the last key, and after the cursor ran off the end.
func TestCursorSeek(t *testing.T) {
	k, err := openKV(t.TempDir(), (&Options{NoSync: true}).EnsureDefaults())
	if err != nil {
		t.Fatal(err)
	}
	defer k.close()
	rng := rand.New(rand.NewPCG(7, 11))
	key := func(n uint32) []byte { return binary.BigEndian.AppendUint32([]byte{prefixDoc}, n) }
	stored := map[uint32]bool{}
	b := k.newBatch()
	for n := uint32(0); n < 3000; n++ {
		if rng.IntN(3) > 0 { // two keys in three: runs of present and absent keys
			stored[n] = true
			if err := b.set(key(n), key(n)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := k.apply(b, false); err != nil {
		t.Fatal(err)
	}
	v := k.newView()
	defer v.close()
	for round := range 200 {
		c, err := v.cursor([]byte{prefixDoc}, prefixEnd([]byte{prefixDoc}))
		if err != nil {
			t.Fatal(err)
		}
		n := uint32(rng.IntN(100))
		for range 300 {
			switch r := rng.IntN(20); {
			case r < 12: // a few keys ahead
				n += uint32(rng.IntN(16))
			case r < 16: // far ahead
				n += uint32(rng.IntN(400))
			case r < 18: // behind
				n -= min(n, uint32(rng.IntN(50)))
			default: // the same key again, or beyond every key
				if r == 19 {
					n = 3000 + uint32(rng.IntN(10))
				}
			}
			got, found, err := c.seek(key(n), nil)
			if err != nil {
				t.Fatal(err)
			}
			if found != stored[n] || found && string(got) != string(key(n)) {
				t.Fatalf("round %d: seek %d = %v %x, want %v", round, n, found, got, stored[n])
			}
			if n >= 3000 {
				n = uint32(rng.IntN(3000))
			}
		}
		c.close()
	}
}

// TestCursorSeekReadsNoExtraBlock seeks every 20th of 2,000 stored
// records of 3 KiB (about five to a 16 KiB block) through one cursor,
// and checks that it loads no more block bytes than seeking each of them
// with a cursor of its own, which loads the candidate's block and the
// index. Pebble's TrySeekUsingNext steps from one candidate towards the
// next loaded the block after each candidate's as well (kv.go, seek).
func TestCursorSeekReadsNoExtraBlock(t *testing.T) {
	k, err := openKV(t.TempDir(), (&Options{NoSync: true, BlockCompression: "none"}).EnsureDefaults())
	if err != nil {
		t.Fatal(err)
	}
	defer k.close()
	rng := rand.New(rand.NewPCG(3, 5))
	key := func(n uint32) []byte { return binary.BigEndian.AppendUint32([]byte{prefixDoc}, n) }
	b := k.newBatch()
	for n := uint32(0); n < 2000; n++ {
		value := make([]byte, 3<<10)
		for i := range value {
			value[i] = byte(rng.Uint32())
		}
		if err := b.set(key(n), value); err != nil {
			t.Fatal(err)
		}
	}
	if err := k.apply(b, false); err != nil {
		t.Fatal(err)
	}
	if err := k.compact(); err != nil { // into tables of blocks
		t.Fatal(err)
	}
	v := k.newView()
	defer v.close()
	start, end := []byte{prefixDoc}, prefixEnd([]byte{prefixDoc})
	seek := func(c *cursor, n uint32) {
		if _, found, err := c.seek(key(n), nil); err != nil || !found {
			t.Fatalf("seek %d: found %v, %v", n, found, err)
		}
	}
	one, err := v.cursor(start, end)
	if err != nil {
		t.Fatal(err)
	}
	defer one.close()
	var each uint64
	for n := uint32(7); n < 2000; n += 20 {
		seek(one, n)
		c, err := v.cursor(start, end)
		if err != nil {
			t.Fatal(err)
		}
		seek(c, n)
		each += c.it.Stats().InternalStats.BlockBytes
		c.close()
	}
	if got := one.it.Stats().InternalStats.BlockBytes; got > each {
		t.Errorf("one cursor seeking 100 sparse records loaded %d block bytes, more than the %d of a cursor per record", got, each)
	} else {
		t.Logf("one cursor %d block bytes, a cursor per record %d", got, each)
	}
}
