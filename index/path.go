package index

import (
	"encoding/binary"
	"math/bits"

	"github.com/aqlstore/aqlstore/canon"
)

// Path is a normalized path: the member names and array levels from the
// root to a value, with array indices folded away. Its encoding is a
// string of segments, 'k' uvarint(len) name for a member, 'a' for an array
// level, so member names never need escaping.
type Path string

func (p Path) appendMember(name string) Path {
	b := binary.AppendUvarint([]byte(p+"k"), uint64(len(name)))
	return Path(append(b, name...))
}

func (p Path) appendArray() Path { return p + "a" }

// pathSeg is one decoded segment: array is true for an array level.
type pathSeg struct {
	name  string
	array bool
}

// segments decodes p. A malformed path (which only a corrupt store
// holds) decodes to the segments before the damage.
func (p Path) segments() []pathSeg {
	var out []pathSeg
	for s := string(p); len(s) > 0; {
		if s[0] == 'a' {
			out, s = append(out, pathSeg{array: true}), s[1:]
			continue
		}
		n, k := binary.Uvarint([]byte(s[1:min(len(s), 11)]))
		if s[0] != 'k' || k <= 0 || uint64(len(s)-1-k) < n {
			return out
		}
		out = append(out, pathSeg{name: s[1+k : 1+k+int(n)]})
		s = s[1+k+int(n):]
	}
	return out
}

// String returns p as an extended JSON Pointer, array levels as *.
func (p Path) String() string { return segString(p.segments()) }

// matchMode is how a pattern matches a path: not at all, only through an
// array index (so the path's postings are a superset: lossy), or exactly.
type matchMode uint8

const (
	noMatch matchMode = iota
	lossyMatch
	exactMatch
)

// matcher runs a pattern as a nondeterministic automaton over paths, as
// canon's pointer walker does over documents: state i means "segment i is
// next", state len(pat) means "matched". It keeps two state sets, the
// states some route reaches (any) and those a route reaches without
// folding a concrete array index into an array level (exact), so a path
// costs O(len(path) × len(pat)) whatever the number of `**` segments; the
// recursion it replaces tried every way to split the path among them,
// exponential in their number. A matcher is reused across the paths of
// one lookup and is not safe for concurrent use.
type matcher struct {
	pat        []canon.Segment
	descend    []int // indices of the ** segments, ascending
	tail       int   // segments after the last ** (all of them without one)
	any, exact []uint64
	nAny, nEx  []uint64 // the next sets, swapped in after each step
}

func newMatcher(pat []canon.Segment) *matcher {
	pat = collapseDescend(pat)
	words := len(pat)/64 + 1 // states 0..len(pat)
	buf := make([]uint64, 4*words)
	m := &matcher{pat: pat, any: buf[:words:words], exact: buf[words : 2*words : 2*words],
		nAny: buf[2*words : 3*words : 3*words], nEx: buf[3*words:]}
	m.tail = len(pat)
	for i, s := range pat {
		if s.Kind == canon.SegDescend {
			m.descend = append(m.descend, i)
			m.tail = len(pat) - i - 1
		}
	}
	return m
}

// collapseDescend drops every ** that follows another: "**/**" selects
// what "**" does, and the pattern that took the recursive matcher
// minutes was eight of them in a row.
func collapseDescend(pat []canon.Segment) []canon.Segment {
	var out []canon.Segment
	for i, s := range pat {
		if s.Kind == canon.SegDescend && i > 0 && pat[i-1].Kind == canon.SegDescend {
			if out == nil {
				out = append([]canon.Segment(nil), pat[:i]...)
			}
			continue
		}
		if out != nil {
			out = append(out, s)
		}
	}
	if out == nil {
		return pat
	}
	return out
}

// tailFits reports whether the segments after the pattern's last ** can
// match the path's last segments, one to one: most paths of a dictionary
// fail here, without running the automaton.
func (m *matcher) tailFits(path []pathSeg) bool {
	if len(m.descend) == 0 || m.tail == 0 {
		return true
	}
	if len(path) < m.tail {
		return false
	}
	for i, s := range m.pat[len(m.pat)-m.tail:] {
		seg := path[len(path)-m.tail+i]
		switch {
		case s.Kind == canon.SegWildcard:
		case seg.array && s.Index < 0, !seg.array && seg.name != s.Name:
			return false
		}
	}
	return true
}

// match reports how the pattern matches the path. `**` takes zero or more
// segments, `*` exactly one; a name matches a member of that name, and a
// numeric name also an array level, lossily (the index folds array
// positions away).
func (m *matcher) match(path []pathSeg) matchMode {
	if !m.tailFits(path) {
		return noMatch
	}
	clear(m.any)
	clear(m.exact)
	m.any[0], m.exact[0] = 1, 1
	m.close(m.any)
	m.close(m.exact)
	for _, seg := range path {
		if !m.step(seg) {
			return noMatch
		}
	}
	switch n := len(m.pat); {
	case hasState(m.exact, n):
		return exactMatch
	case hasState(m.any, n):
		return lossyMatch
	}
	return noMatch
}

// step moves both sets over one path segment and reports whether any
// state survives.
func (m *matcher) step(seg pathSeg) bool {
	clear(m.nAny)
	clear(m.nEx)
	live := false
	n := len(m.pat)
	for wi, word := range m.any {
		for ; word != 0; word &= word - 1 {
			i := wi*64 + bits.TrailingZeros64(word)
			if i >= n {
				continue
			}
			next, lossy, ok := m.transition(i, seg)
			if !ok {
				continue
			}
			live = true
			m.nAny[next/64] |= 1 << (next % 64)
			if !lossy && hasState(m.exact, i) {
				m.nEx[next/64] |= 1 << (next % 64)
			}
		}
	}
	m.close(m.nAny)
	m.close(m.nEx)
	m.any, m.nAny = m.nAny, m.any
	m.exact, m.nEx = m.nEx, m.exact
	return live
}

// transition is where state i goes over seg: ** stays (and close adds the
// state after it), * moves on, a name moves on over a member of that name,
// and a numeric name over an array level, lossily.
func (m *matcher) transition(i int, seg pathSeg) (next int, lossy, ok bool) {
	switch s := &m.pat[i]; {
	case s.Kind == canon.SegDescend:
		return i, false, true
	case s.Kind == canon.SegWildcard:
		return i + 1, false, true
	case seg.array:
		return i + 1, true, s.Index >= 0
	default:
		return i + 1, false, seg.name == s.Name
	}
}

// close adds, for every ** state in set, the state after it: ** matches
// zero levels too. Ascending order lets "**/**" chain.
func (m *matcher) close(set []uint64) {
	for _, i := range m.descend {
		if hasState(set, i) {
			set[(i+1)/64] |= 1 << ((i + 1) % 64)
		}
	}
}

func hasState(set []uint64, i int) bool { return set[i/64]&(1<<(i%64)) != 0 }

// match is newMatcher(pat).match(path), for one path.
func match(pat []canon.Segment, path []pathSeg) matchMode {
	return newMatcher(pat).match(path)
}
