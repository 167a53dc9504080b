// Package spell finds the names nearest to a misspelt one, for the
// "did you mean" hints of error messages and warnings. Its functions are
// pure and safe for concurrent use.
package spell

import "slices"

// Distance returns the optimal-string-alignment distance between a and b
// (insertions, deletions, substitutions and transpositions of adjacent
// bytes each cost 1), or limit+1 as soon as it is known to exceed limit.
// Only the band of cells within limit of the diagonal is computed: the
// work is bounded by len(a)·(2·limit+1), with no allocation for b under
// 48 bytes.
func Distance(a, b string, limit int) int {
	big := limit + 1
	if d := len(a) - len(b); d > limit || -d > limit {
		return big
	}
	n := len(b)
	var stack [3 * 48]int // names are short: no allocation for them
	buf := stack[:]
	if 3*(n+1) > len(stack) {
		buf = make([]int, 3*(n+1))
	}
	// Three rows: the one before the previous is needed for transpositions.
	prev2, prev, cur := buf[:n+1], buf[n+1:2*(n+1)], buf[2*(n+1):]
	for j := range prev {
		prev[j], prev2[j] = big, big
		if j <= limit {
			prev[j] = j
		}
	}
	for i := 1; i <= len(a); i++ {
		lo, hi := max(1, i-limit), min(n, i+limit)
		// The cells beside the band are read by this row and the next.
		cur[lo-1] = big
		if lo == 1 && i <= limit {
			cur[0] = i
		}
		if hi < n {
			cur[hi+1] = big
		}
		best := big
		for j := lo; j <= hi; j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				v = min(v, prev2[j-2]+1)
			}
			cur[j] = min(v, big)
			best = min(best, cur[j])
		}
		if best > limit && (lo > 1 || cur[0] > limit) {
			return big
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return min(prev[n], big)
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
