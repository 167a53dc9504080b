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
