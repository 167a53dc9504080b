package aql

import (
	"testing"

	"github.com/aqlstore/aqlstore/canon"
)

// TestChildMatchesEscape holds child's one-allocation join of plain names
// to the escaping path every name used to take: the same pointer for
// names with and without ~ and /, empty and not ASCII.
func TestChildMatchesEscape(t *testing.T) {
	names := []string{"", "a", "constraints", "all_of", "0", "~", "/", "a~b", "a/b", "~0~1", "ü-ñ", "x y", "~~//", "a\u2028b"}
	for _, ptr := range []string{"", "/constraints", "/constraints/all_of/0", "/a~1b"} {
		for _, name := range names {
			want := string(canon.EscapeSegment(append([]byte(ptr), '/'), name))
			if got := child(ptr, name); got != want {
				t.Errorf("child(%q, %q) = %q, want %q", ptr, name, got, want)
			}
		}
	}
}
