package hugepage

import (
	"slices"
	"testing"
)

// TestAdviseKeepsContents: advice on slices of any size and element
// type, with or without a whole huge page in them, leaves them as they
// were and usable.
func TestAdviseKeepsContents(t *testing.T) {
	for _, n := range []int{0, 1, 4095, size / 8, 2 * size / 8, 3*size/8 + 5} {
		s := make([]uint64, n, n+3)
		for i := range s {
			s[i] = uint64(i) * 7
		}
		want := slices.Clone(s)
		Advise(s)
		if !slices.Equal(s, want) {
			t.Fatalf("%d elements: changed by Advise", n)
		}
		s = append(s, 1, 2, 3)
		if s[n+2] != 3 {
			t.Fatalf("%d elements: not writable after Advise", n)
		}
	}
	Advise([]struct{}(nil))
	Advise(make([]byte, 1, 5*size)[1:])
}
