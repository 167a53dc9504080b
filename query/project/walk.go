package project

import (
	"math/bits"

	"github.com/aqlstore/aqlstore/canon"
)

// walkMatches calls fn with the path of every node p selects in doc. The
// path slice is reused between calls. Like canon.Pointer.Resolve, the
// pointer runs as a nondeterministic automaton: each node carries the set
// of segment positions that reach it, so every node is visited at most once
// and reported at most once however many routes select it ("/**/**" does
// not multiply the work). Only subtrees some state still needs are entered.
func walkMatches(doc any, p *canon.Pointer, fn func(path []step)) {
	w := &walker{segs: p.Segments(), fn: fn}
	w.words = len(w.segs)/64 + 1
	start := w.newSet()
	start.add(0)
	w.visit(doc, w.close(start))
}

// walker is one pointer's walk over one document.
type walker struct {
	segs  []canon.Segment
	words int // uint64 words in a stateSet
	path  []step
	fn    func([]step)
}

// stateSet holds segment positions: i means "segment i is next", and
// len(segs) means "selected".
type stateSet []uint64

func (s stateSet) add(i int)      { s[i/64] |= 1 << (i % 64) }
func (s stateSet) has(i int) bool { return s[i/64]&(1<<(i%64)) != 0 }

func (w *walker) newSet() stateSet { return make(stateSet, w.words) }

// visit reports v if selected and goes on into the children some state
// can still match.
func (w *walker) visit(v any, set stateSet) {
	if set.has(len(w.segs)) {
		w.fn(w.path)
	}
	if i, ok := w.single(set); ok && w.segs[i].Kind == canon.SegName {
		w.visitNamed(v, i)
		return
	}
	switch c := v.(type) {
	case map[string]any:
		for k, x := range c {
			w.child(x, set, step{name: k, index: -1})
		}
	case []any:
		for i, x := range c {
			w.child(x, set, step{index: i})
		}
	}
}

// visitNamed follows a lone name state i by lookup instead of scanning.
func (w *walker) visitNamed(v any, i int) {
	seg := &w.segs[i]
	next := w.newSet()
	next.add(i + 1)
	next = w.close(next)
	switch c := v.(type) {
	case map[string]any:
		if x, ok := c[seg.Name]; ok {
			w.enter(x, next, step{name: seg.Name, index: -1})
		}
	case []any:
		if seg.Index >= 0 && seg.Index < len(c) {
			w.enter(c[seg.Index], next, step{index: seg.Index})
		}
	}
}

// child moves the states of a parent into one child and visits it.
func (w *walker) child(x any, set stateSet, s step) {
	next := w.advance(set, s)
	if next != nil {
		w.enter(x, next, s)
	}
}

func (w *walker) enter(x any, set stateSet, s step) {
	w.path = append(w.path, s)
	w.visit(x, set)
	w.path = w.path[:len(w.path)-1]
}

// advance returns the states that reach the child s, or nil if none.
func (w *walker) advance(set stateSet, s step) stateSet {
	next := w.newSet()
	live := false
	w.each(set, func(i int) {
		switch seg := &w.segs[i]; {
		case seg.Kind == canon.SegDescend:
			next.add(i) // ** stays to descend further
		case seg.Kind == canon.SegWildcard || matchName(seg, s):
			next.add(i + 1)
		default:
			return
		}
		live = true
	})
	if !live {
		return nil
	}
	return w.close(next)
}

// matchName reports whether a name segment selects the child s: a member
// by its name, an element by its RFC 6901 index.
func matchName(seg *canon.Segment, s step) bool {
	if s.index >= 0 {
		return seg.Index == s.index
	}
	return seg.Name == s.name
}

// close adds, for each ** state, the state after it: ** matches zero
// levels too. Ascending order lets "**/**" chain.
func (w *walker) close(set stateSet) stateSet {
	for i := range w.segs {
		if w.segs[i].Kind == canon.SegDescend && set.has(i) {
			set.add(i + 1)
		}
	}
	return set
}

// single returns the one live state of set when there is exactly one, not
// counting "selected".
func (w *walker) single(set stateSet) (int, bool) {
	n, only := 0, -1
	w.each(set, func(i int) { n, only = n+1, i })
	return only, n == 1
}

// each calls fn with every state in set below len(segs).
func (w *walker) each(set stateSet, fn func(int)) {
	for wi, word := range set {
		for ; word != 0; word &= word - 1 {
			if i := wi*64 + bits.TrailingZeros64(word); i < len(w.segs) {
				fn(i)
			}
		}
	}
}
