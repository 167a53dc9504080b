package index

import (
	"slices"
	"strings"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/canon/spell"
)

// Bounds on Suggest's work: the dictionary entries it compares, and the
// near paths it passes to keep (enough that paths keep refuses, another
// tenant's, do not crowd out the reader's own).
const (
	suggestScanMax = 20000
	suggestNearMax = 64
)

// Suggest returns at most n dictionary paths near ptr (by edit distance
// over their pointer text, array levels as *), nearest first, for a
// "did you mean" when ptr resolves to no document. keep, called without
// the index's lock held, decides which near paths may be named: the
// dictionary holds every tenant's paths, so a caller keeps only those a
// reader's own documents have. The scan is bounded (suggestScanMax
// entries, suggestNearMax calls of keep); a dictionary larger than that is searched in its first
// entries only. Safe for concurrent use.
func (ix *Index) Suggest(ptr *canon.Pointer, n int, keep func(id uint32) bool) []string {
	word := ptr.String()
	limit := spell.Limit(word)
	type near struct {
		id   uint32
		path string
		d    int
	}
	var hits []near
	ix.mu.RLock()
	for _, e := range ix.dict[:min(len(ix.dict), suggestScanMax)] {
		if e.text == word {
			continue
		}
		if d := spell.Distance(word, e.text, limit); d <= limit {
			hits = append(hits, near{e.id, e.text, d})
		}
	}
	ix.mu.RUnlock()
	slices.SortStableFunc(hits, func(a, b near) int { return a.d - b.d })
	var out []string
	for _, h := range hits[:min(len(hits), suggestNearMax)] {
		if len(out) == n {
			break
		}
		if keep == nil || keep(h.id) {
			out = append(out, h.path)
		}
	}
	return out
}

// segString is the pointer text of decoded segments (Path.String).
func segString(segs []pathSeg) string {
	if len(segs) == 0 {
		return "/"
	}
	var b strings.Builder
	for _, s := range segs {
		b.WriteByte('/')
		if s.array {
			b.WriteByte('*')
		} else {
			b.Write(canon.EscapeSegment(nil, s.name))
		}
	}
	return b.String()
}
