package canon

import (
	"bytes"
	"testing"
)

// TestPlainRun: the eight-bytes-at-a-time scan stops at exactly the first
// byte the byte-at-a-time table calls not plain, for every byte value at
// every position of a word and of the tail.
func TestPlainRun(t *testing.T) {
	for v := range 256 {
		for pos := range 19 {
			b := bytes.Repeat([]byte{'a'}, 19)
			b[pos] = byte(v)
			want := len(b)
			if !plain[v] {
				want = pos
			}
			if got := plainRun(b, 0); got != want {
				t.Fatalf("byte %#x at %d: plainRun %d, want %d", v, pos, got, want)
			}
		}
	}
}
