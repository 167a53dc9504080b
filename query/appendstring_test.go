package query

import (
	"testing"

	"github.com/aqlstore/aqlstore/canon"
)

// TestAppendString checks the response writer's shortcut for plain ASCII
// strings against the canonical writer, on both sides of every byte that
// sends a string down the escaping path.
func TestAppendString(t *testing.T) {
	for _, s := range []string{
		"", "urn:oap:decision:x-1", "2026-05-01T00:00:00Z", "all constraints satisfied",
		"a\"b", `a\b`, "a\nb", "\x1f", "\x7f", " ~", "é", "🙂", "\u2028", "bad \xff utf-8",
	} {
		want, wantErr := canon.AppendString([]byte("x"), s)
		got, err := appendString([]byte("x"), s)
		if string(got) != string(want) || (err == nil) != (wantErr == nil) {
			t.Errorf("%q: got %s (%v), want %s (%v)", s, got, err, want, wantErr)
		}
	}
}
