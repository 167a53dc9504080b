// Package spell finds the names nearest to a misspelt one, for the
// "did you mean" hints of error messages and warnings. Its functions are
// pure and safe for concurrent use.
package spell

import "slices"

// Distance returns the optimal-string-alignment distance between a and b
// (insertions, deletions, substitutions and transpositions of adjacent
// bytes each cost 1), or limit+1 as soon as it is known to exceed limit:
// the work is bounded by len(a)·(2·limit+1).
func Distance(a, b string, limit int) int {
	if d := len(a) - len(b); d > limit || -d > limit {
		return limit + 1
	}
	// Three rows: the one before the previous is needed for transpositions.
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		best := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				v = min(v, prev2[j-2]+1)
			}
			cur[j] = v
			best = min(best, v)
		}
		if best > limit {
			return limit + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return min(prev[len(b)], limit+1)
}

// Limit is how far a name may be from a word and still be suggested for
// it: one edit in a short word, up to three in a long one.
func Limit(word string) int {
	return min(3, max(1, len(word)/4))
}

// Nearest returns at most n of the names within Limit(word) of word,
// nearest first, ties in the order given. word itself is never suggested.
func Nearest(word string, names []string, n int) []string {
	type hit struct {
		name string
		d    int
	}
	limit := Limit(word)
	var hits []hit
	for _, name := range names {
		if name == word {
			continue
		}
		if d := Distance(word, name, limit); d <= limit {
			hits = append(hits, hit{name, d})
		}
	}
	slices.SortStableFunc(hits, func(x, y hit) int { return x.d - y.d })
	out := make([]string, 0, min(n, len(hits)))
	for _, h := range hits[:min(n, len(hits))] {
		out = append(out, h.name)
	}
	return out
}
