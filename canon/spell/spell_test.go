package spell

import (
	"slices"
	"strings"
	"testing"
)

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b  string
		limit int
		want  int
	}{
		{"category", "category", 3, 0},
		{"categroy", "category", 3, 1}, // a transposition is one edit
		{"/price/amont", "/price/amount", 3, 1},
		{"kitten", "sitting", 3, 3},
		{"kitten", "sitting", 2, 3}, // over the limit: limit+1
		{"", "abc", 5, 3},
		{"abc", "", 1, 2},
		{"eq", "equals", 2, 3},
	} {
		if got := Distance(c.a, c.b, c.limit); got != c.want {
			t.Errorf("Distance(%q, %q, %d) = %d, want %d", c.a, c.b, c.limit, got, c.want)
		}
		if got := Distance(c.b, c.a, c.limit); got != c.want {
			t.Errorf("Distance(%q, %q, %d) = %d, want %d (not symmetric)", c.b, c.a, c.limit, got, c.want)
		}
	}
}

func TestNearest(t *testing.T) {
	names := []string{"/category", "/price/amount", "/price/currency", "/categories", "/brand"}
	for _, c := range []struct {
		word string
		want []string
	}{
		{"/categroy", []string{"/category"}},
		{"/catgory", []string{"/category"}},
		{"/price/amont", []string{"/price/amount"}},
		{"/colour", nil},
		{"/brand", nil}, // never the word itself
	} {
		if got := Nearest(c.word, names, 3); !slices.Equal(got, c.want) {
			t.Errorf("Nearest(%q) = %q, want %q", c.word, got, c.want)
		}
	}
	if got := Nearest("/a", []string{"/b", "/c", "/d", "/e"}, 2); len(got) != 2 {
		t.Errorf("Nearest returned %d names, want at most 2", len(got))
	}
}

// TestDistanceBounded: a long word against a far longer name stops at
// once rather than filling a table.
func TestDistanceBounded(t *testing.T) {
	long := strings.Repeat("x", 1<<20)
	if d := Distance("/a", long, 3); d != 4 {
		t.Errorf("Distance = %d, want 4", d)
	}
}

// TestDistanceAgreesWithFullTable: the banded computation gives what the
// whole table gives, within the limit and at its edge.
func TestDistanceAgreesWithFullTable(t *testing.T) {
	words := []string{"", "a", "ab", "ba", "abc", "acb", "category", "categroy", "catgory", "/price/amount",
		"/price/amont", "/prcie", "/price", "kitten", "sitting", "xyz", "aaaa", "aaab", "baaa"}
	for _, a := range words {
		for _, b := range words {
			full := fullOSA(a, b)
			for limit := 0; limit <= 4; limit++ {
				want := min(full, limit+1)
				if got := Distance(a, b, limit); got != want {
					t.Errorf("Distance(%q, %q, %d) = %d, want %d", a, b, limit, got, want)
				}
			}
		}
	}
}

// fullOSA is the textbook optimal-string-alignment distance.
func fullOSA(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

// FuzzDistance: the banded distance agrees with the whole table, and a
// word is at distance 0 from itself only.
func FuzzDistance(f *testing.F) {
	f.Add("categroy", "category", 2)
	f.Add("", "abc", 0)
	f.Add("ab", "ba", 1)
	f.Fuzz(func(t *testing.T, a, b string, limit int) {
		if len(a) > 64 || len(b) > 64 || limit < 0 || limit > 8 {
			return
		}
		want := min(fullOSA(a, b), limit+1)
		if got := Distance(a, b, limit); got != want {
			t.Fatalf("Distance(%q, %q, %d) = %d, want %d", a, b, limit, got, want)
		}
	})
}
