package jsonscan

import (
	"strings"
	"testing"
)

// The byte-at-a-time definitions the word-at-a-time scans must equal.
func plainEndSlow(b []byte, i int) int {
	for ; i < len(b); i++ {
		if c := b[i]; c == '"' || c == '\\' || c < 0x20 || c >= 0x80 {
			return i
		}
	}
	return len(b)
}

func quoteEndSlow(b []byte, i int) int {
	for ; i < len(b); i++ {
		if c := b[i]; c == '"' || c == '\\' {
			return i
		}
	}
	return len(b)
}

func check(t *testing.T, b []byte) {
	t.Helper()
	for i := 0; i <= len(b); i++ {
		if got, want := PlainEnd(b, i), plainEndSlow(b, i); got != want {
			t.Fatalf("PlainEnd(%q, %d) = %d, want %d", b, i, got, want)
		}
		if got, want := QuoteEnd(b, i), quoteEndSlow(b, i); got != want {
			t.Fatalf("QuoteEnd(%q, %d) = %d, want %d", b, i, got, want)
		}
	}
}

// TestEveryByteAtEveryPosition puts each of the 256 byte values at each
// position of a word and its neighbours, behind plain bytes and behind
// bytes that borrow (0x00, 0x01, 0x20, 0x21, 0x22): a borrow marking a
// later byte must not hide or move the first stop.
func TestEveryByteAtEveryPosition(t *testing.T) {
	for _, fill := range []byte{'a', 0x00, 0x01, 0x1f, 0x20, 0x21, 0x22, 0x5b, 0x5c, 0x5d, 0x7f, 0x80, 0xff} {
		for pos := 0; pos < 20; pos++ {
			for c := 0; c < 256; c++ {
				b := []byte(strings.Repeat("x", 20))
				b[pos] = byte(c)
				if pos+1 < len(b) {
					b[pos+1] = fill
				}
				check(t, b)
			}
		}
	}
}

func FuzzScan(f *testing.F) {
	f.Add([]byte(`plain ascii text with "a quote" and \ a backslash`))
	f.Add([]byte("caf\xc3\xa9 \x01\x1f\x20\x21\x22\x5c\x7f\x80"))
	f.Fuzz(func(t *testing.T, b []byte) { check(t, b) })
}
