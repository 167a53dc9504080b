package canon

import (
	"bytes"
	"fmt"
	"hash/maphash"
	"math"
)

// Default path limits. A path index keys every value by its normalized
// path — the member names and array levels from the root, array positions
// folded away — and keeps every distinct path in a dictionary shared by
// all documents, for as long as the store lives. Unbounded, one document
// of long names nested deep adds paths quadratic in depth × name length
// (a 4 MiB document of 65,000-byte names nested 63 deep added a gigabyte).
// Agent documents have names of tens of bytes, paths of a few hundred
// bytes and hundreds of distinct paths; a collection keyed by data rather
// than by field names belongs in an array, whose elements share one path.
const (
	DefaultMaxNameBytes  = 1024    // one member name
	DefaultMaxPathBytes  = 4096    // one normalized path (PathBytes)
	DefaultMaxPaths      = 20000   // distinct paths below the root: an object of MaxMembers members fits twice
	DefaultMaxPathsBytes = 1 << 20 // those paths' bytes, summed
)

func (l *Limits) ensurePathDefaults(d Limits) {
	if l.MaxNameBytes <= 0 {
		l.MaxNameBytes = d.MaxNameBytes
	}
	if l.MaxPathBytes <= 0 {
		l.MaxPathBytes = d.MaxPathBytes
	}
	if l.MaxPaths <= 0 {
		l.MaxPaths = d.MaxPaths
	}
	if l.MaxPathsBytes <= 0 {
		l.MaxPathsBytes = d.MaxPathsBytes
	}
}

// WithoutPathLimits returns l with path limits that never bind, for
// decoding what is not one document bound for an index: an export that
// holds a tenant's every document, a signed response, a document already
// stored (each was bounded when it was put).
func (l Limits) WithoutPathLimits() Limits {
	l.MaxNameBytes, l.MaxPathBytes, l.MaxPaths, l.MaxPathsBytes = math.MaxInt, math.MaxInt, math.MaxInt, math.MaxInt
	return l
}

// CheckPaths checks the canonical JSON c against the path limits of lim
// (nil: the defaults) and returns nil, or a *SyntaxError wrapping ErrLimit
// that names the first member or element past them. A store calls it on
// documents it indexes that were put under other limits (a reindex), so
// that index keys stay bounded whatever a stored document holds.
func CheckPaths(c []byte, lim *Limits) error {
	l := limitsOrDefault(lim)
	l.MaxBytes, l.MaxDepth, l.MaxMembers = max(l.MaxBytes, len(c)), math.MaxInt, math.MaxInt
	if _, ok := checkCanonical(c, 0, l); ok {
		return nil
	}
	if _, err := decodeTokens(c, l); err != nil {
		return err
	}
	return &SyntaxError{Line: 1, Column: 1, Err: ErrLimit, Reason: "over a path limit"}
}

// pathBound is what a fast walk keeps: every node below the root and the
// bytes of their paths. Both bound the distinct paths from above, so a
// document within them is within MaxPaths and MaxPathsBytes without a set
// of paths; only a document past them is counted exactly (pathSet).
type pathBound struct{ nodes, bytes int }

func (b *pathBound) add(pathBytes int) { b.nodes, b.bytes = b.nodes+1, b.bytes+pathBytes }

func (b *pathBound) within(l *Limits) bool {
	return b.nodes <= l.MaxPaths && b.bytes <= l.MaxPathsBytes
}

// pathSeed keys the path hashes of this process: a document cannot be
// made to collide its paths on purpose and so pass for fewer.
var pathSeed = maphash.MakeSeed()

// arrayLevel stands for an array level in a path's hash; a member name
// hashes to it only by a chance of 2^-64 (the seed is secret).
const arrayLevel = 0x61727261796c766c

// memberKey, memberKeyBytes and elementKey hash a normalized path from
// its parent's hash and the last segment's.
func memberKey(parent uint64, name string) uint64 {
	return mixPath(parent, maphash.String(pathSeed, name))
}

func memberKeyBytes(parent uint64, name []byte) uint64 {
	return mixPath(parent, maphash.Bytes(pathSeed, name))
}

func elementKey(parent uint64) uint64 { return mixPath(parent, arrayLevel) }

// mixPath combines a parent's hash with a segment's: the multiply keeps
// distinct parents distinct for one segment, and splitmix64's finalizer
// spreads the result.
func mixPath(parent, seg uint64) uint64 {
	x := parent*0x9e3779b97f4a7c15 ^ seg
	x ^= x >> 31
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// pathSet counts a document's distinct paths exactly. It never holds more
// than MaxPaths+1 of them: the first path past a limit ends the walk.
type pathSet struct {
	seen  map[uint64]struct{}
	bytes int
}

// add records the path key of pathBytes bytes and returns the limit the
// document crosses with it, or "".
func (s *pathSet) add(key uint64, pathBytes int, l *Limits) string {
	if s.seen == nil {
		s.seen = map[uint64]struct{}{}
	}
	if _, ok := s.seen[key]; ok {
		return ""
	}
	s.seen[key] = struct{}{}
	s.bytes += pathBytes
	switch {
	case len(s.seen) > l.MaxPaths:
		return "MaxPaths"
	case s.bytes > l.MaxPathsBytes:
		return "MaxPathsBytes"
	}
	return ""
}

// pathsWithinCanonical counts the distinct paths of canonical bytes
// exactly; withinLimits calls it for documents past the bounds. It is the
// same one loop over the bytes, keeping each open container's path.
func pathsWithinCanonical(c []byte, l *Limits) bool {
	type level struct {
		key, elem uint64 // the container's path, and its elements' when an array
		bytes     int
		array     bool
	}
	var levels [8]level
	stack := levels[:0]
	var s pathSet
	var key uint64 // path of the value that starts next
	n := 0         // and its bytes
	for i := 0; i < len(c); i++ {
		switch c[i] {
		case '"':
			end := skipString(c, i)
			if end < len(c) && c[end] == ':' { // a member name
				top := &stack[len(stack)-1]
				q := c[i:end]
				if bytes.IndexByte(q, '\\') >= 0 {
					name, _ := RawString(q)
					key, n = memberKey(top.key, name), top.bytes+len(name)+1
				} else {
					key, n = memberKeyBytes(top.key, q[1:len(q)-1]), top.bytes+len(q)-1
				}
				if s.add(key, n, l) != "" {
					return false
				}
			}
			i = end - 1
		case '{', '[':
			stack = append(stack, level{key: key, elem: elementKey(key), bytes: n, array: c[i] == '['})
			if c[i] == '[' && c[i+1] != ']' && s.add(stack[len(stack)-1].elem, n+1, l) != "" {
				return false
			}
			key, n = stack[len(stack)-1].elem, n+1 // the first element's, if an array
		case ',':
			if top := &stack[len(stack)-1]; top.array {
				key, n = top.elem, top.bytes+1
				if s.add(key, n, l) != "" {
					return false
				}
			}
		case '}', ']':
			stack = stack[:len(stack)-1]
		}
	}
	return true
}

// pathsWithinTree counts the distinct paths of a decoded document
// exactly; decodeFast calls it for documents past the bounds.
func pathsWithinTree(v any, l *Limits) bool {
	var s pathSet
	var walk func(v any, key uint64, pathBytes int) bool
	walk = func(v any, key uint64, pathBytes int) bool {
		switch c := v.(type) {
		case map[string]any:
			for name, e := range c {
				k, n := memberKey(key, name), pathBytes+len(name)+1
				if s.add(k, n, l) != "" || !walk(e, k, n) {
					return false
				}
			}
		case []any:
			k, n := elementKey(key), pathBytes+1
			for _, e := range c {
				if s.add(k, n, l) != "" || !walk(e, k, n) {
					return false
				}
			}
		}
		return true
	}
	return walk(v, 0, 0)
}

// The refusals the token decoder gives, at the offending member or
// element, each naming its limit and a fix.

// nodePath is the normalized path of the value the token decoder reads
// next: its key (memberKey, elementKey) and its bytes.
type nodePath struct {
	key   uint64
	bytes int
}

// addPath checks the path of a member or element, whose text starts at
// byte off, against MaxPathBytes, MaxPaths and MaxPathsBytes.
func (d *decoder) addPath(off int64, p nodePath) error {
	if p.bytes > d.lim.MaxPathBytes {
		return d.pathTooLong(off, p.bytes)
	}
	if limit := d.paths.add(p.key, p.bytes, &d.lim); limit != "" {
		return d.tooManyPaths(off, limit)
	}
	return nil
}

// startOf returns the offset of the token that follows off, past
// whitespace and a comma.
func (d *decoder) startOf(off int64) int64 {
	for off < int64(len(d.src)) {
		switch d.src[off] {
		case ' ', '\t', '\n', '\r', ',':
			off++
		default:
			return off
		}
	}
	return off
}

func (d *decoder) nameTooLong(off int64, n int) error {
	return d.errAt(off, string(d.dec.StackPointer()), ErrLimit,
		fmt.Sprintf("member name of %d bytes is over the limit of %d (Limits.MaxNameBytes)", n, d.lim.MaxNameBytes),
		"shorten the name: keep long text in values, not in member names")
}

func (d *decoder) pathTooLong(off int64, n int) error {
	return d.errAt(off, string(d.dec.StackPointer()), ErrLimit,
		fmt.Sprintf("path of %d bytes (member names and array levels from the root) is over the limit of %d (Limits.MaxPathBytes)",
			n, d.lim.MaxPathBytes),
		"nest less deeply or use shorter member names")
}

func (d *decoder) tooManyPaths(off int64, limit string) error {
	reason := fmt.Sprintf("distinct path %d is over the limit of %d paths per document (Limits.MaxPaths)",
		len(d.paths.seen), d.lim.MaxPaths)
	if limit == "MaxPathsBytes" {
		reason = fmt.Sprintf("distinct paths of %d bytes in all are over the limit of %d per document (Limits.MaxPathsBytes)",
			d.paths.bytes, d.lim.MaxPathsBytes)
	}
	return d.errAt(off, string(d.dec.StackPointer()), ErrLimit, reason,
		"keep collections keyed by data in arrays (their elements share one path), or split the document")
}
