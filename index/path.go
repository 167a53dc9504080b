package index

import (
	"encoding/binary"

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

// match reports how the pointer's segments match the path's. `**` takes
// zero or more segments, `*` exactly one; a name matches a member of that
// name, and a numeric name also an array level, lossily (the index folds
// array positions away).
func match(pat []canon.Segment, path []pathSeg) matchMode {
	if len(pat) == 0 {
		if len(path) == 0 {
			return exactMatch
		}
		return noMatch
	}
	switch pat[0].Kind {
	case canon.SegDescend:
		best := match(pat[1:], path)
		for i := range path {
			if best == exactMatch {
				break
			}
			best = max(best, match(pat[1:], path[i+1:]))
		}
		return best
	case canon.SegWildcard:
		if len(path) == 0 {
			return noMatch
		}
		return match(pat[1:], path[1:])
	}
	if len(path) == 0 {
		return noMatch
	}
	if path[0].array {
		if pat[0].Index < 0 {
			return noMatch
		}
		return min(lossyMatch, match(pat[1:], path[1:]))
	}
	if path[0].name != pat[0].Name {
		return noMatch
	}
	return match(pat[1:], path[1:])
}
