package index

import (
	"encoding/binary"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/internal/jsonscan"
)

// A posting is a (path, kind of entry, value) triple found in a document.
// extract walks canonical bytes (RFC 8785: no whitespace, validated) and
// calls emit for each; it builds no tree.
//
// The walk is one pass over the bytes: each value is read where it
// starts and the walk goes on from where it ends, so no value is skipped
// over to find the next (a nested byte used to be scanned once per level
// above it). Strings without escapes are used in place. On bytes that are
// not canonical JSON it stops early, never panics; what it emitted until
// then is not meaningful.
type extractor struct {
	emit   func(p []byte, fam byte, value []byte) // p and value are valid for the call only
	text   func(p []byte) bool                    // whether strings at p get trigrams; nil: nowhere
	path   []byte                                 // the encoded Path being walked
	buf    []byte
	bucket []byte
	name   []byte    // an escaped string, unescaped
	arrays int       // arrays around the value being walked
	seen   rangeSeen // the range values of the document under arrays
	// noBuckets leaves the range buckets out (Index.StartLoad).
	noBuckets bool
}

// The one-byte values of the literals, shared: emit gets them read-only.
var (
	valueTrue  = []byte{typeTrue}
	valueFalse = []byte{typeFalse}
	valueNull  = []byte{typeNull}
)

// walk visits the document v at the path in x.path.
func (x *extractor) walk(v []byte) {
	x.arrays = 0
	x.seen.reset()
	if len(v) > 0 {
		x.value(v, 0)
	}
}

// value visits the value starting at c[i] (i < len(c)) at the path in
// x.path, which it extends for children and restores, and returns the
// index past the value; len(c) when c is malformed there. Paths are
// extended by length, not by slice: x.path only ever grows, so a path
// that outgrew its array is copied once, not once per sibling.
func (x *extractor) value(c []byte, i int) int {
	n := len(x.path)
	x.emit(x.path, famExists, nil)
	switch c[i] {
	case '{':
		i = x.object(c, i, n)
		x.path = x.path[:n]
		return i
	case '[':
		i = x.array(c, i, n)
		x.path = x.path[:n]
		return i
	case '"':
		end, escaped := stringEnd(c, i)
		if end < 0 {
			return len(c)
		}
		x.str(c[i:end], escaped, x.path)
		return end
	case 't':
		x.emit(x.path, famEq, valueTrue)
		return min(i+len("true"), len(c))
	case 'f':
		x.emit(x.path, famEq, valueFalse)
		return min(i+len("false"), len(c))
	case 'n':
		x.emit(x.path, famEq, valueNull)
		return min(i+len("null"), len(c))
	}
	j := i
	for j < len(c) && !isDelim(c[j]) {
		j++
	}
	x.number(c[i:j], x.path)
	return j
}

// object visits the members of the object at c[i], whose path is
// x.path[:n].
func (x *extractor) object(c []byte, i, n int) int {
	i++ // {
	if i < len(c) && c[i] == '}' {
		return i + 1
	}
	for i < len(c) && c[i] == '"' {
		end, escaped := stringEnd(c, i)
		if end < 0 || end+1 >= len(c) || c[end] != ':' {
			return len(c)
		}
		x.path = x.appendMemberSeg(x.path[:n], c[i:end], escaped)
		i = x.value(c, end+1)
		if i >= len(c) || c[i] != ',' {
			return min(i+1, len(c)) // past the }
		}
		i++
	}
	return len(c)
}

// array visits the elements of the array at c[i], whose path is
// x.path[:n].
func (x *extractor) array(c []byte, i, n int) int {
	i++ // [
	if i < len(c) && c[i] == ']' {
		return i + 1
	}
	x.arrays++
	defer func() { x.arrays-- }()
	for i < len(c) {
		x.path = append(x.path[:n], 'a')
		i = x.value(c, i)
		if i >= len(c) || c[i] != ',' {
			return min(i+1, len(c)) // past the ]
		}
		i++
	}
	return len(c)
}

// isDelim reports whether b ends a number in canonical JSON.
func isDelim(b byte) bool { return b == ',' || b == '}' || b == ']' || b == ':' }

// stringEnd returns the index past the quoted string at c[i], -1 when it
// is not closed, and whether the string holds an escape.
func stringEnd(c []byte, i int) (end int, escaped bool) {
	for j := i + 1; ; j += 2 { // past an escape's backslash and the byte it escapes
		j = jsonscan.QuoteEnd(c, j)
		if j >= len(c) {
			return -1, escaped
		}
		if c[j] == '"' {
			return j + 1, escaped
		}
		escaped = true
	}
}

// unquote returns the unescaped bytes of the quoted canonical string q:
// q's own bytes unless it holds an escape, else x.name, valid until the
// next call.
func (x *extractor) unquote(q []byte, escaped bool) ([]byte, bool) {
	if escaped {
		s, ok := canon.RawString(q)
		x.name = append(x.name[:0], s...)
		return x.name, ok
	}
	return q[1 : len(q)-1], true
}

// appendMemberSeg appends a member segment for the quoted canonical key,
// escaped when it holds an escape.
func (x *extractor) appendMemberSeg(p, key []byte, escaped bool) []byte {
	name, _ := x.unquote(key, escaped)
	p = binary.AppendUvarint(append(p, 'k'), uint64(len(name)))
	return append(p, name...)
}

// number emits the equality posting (canonical text, so 1.0 and 1 are one
// key) and the range posting. The range key is the exact decimal key of
// the canonical text: a JSON number denotes the IEEE double it rounds to,
// whose shortest text RFC 8785 stores, so the key is the value the
// evaluator compares.
func (x *extractor) number(v []byte, p []byte) {
	x.buf = append(append(x.buf[:0], typeNumber), v...) // kept: grown once, not per value
	x.emit(p, famEq, x.buf)
	x.decimal(p, v)
}

// decimal emits the range posting of a number's or decimal string's text.
func (x *extractor) decimal(p []byte, text []byte) {
	k, ok := appendDecimalText(append(x.buf[:0], typeNumber), text)
	if !ok {
		var err error
		if k, err = AppendNumberKey(append(x.buf[:0], typeNumber), string(text)); err != nil {
			return
		}
	}
	x.buf = k
	x.ranged(p, k)
}

// ranged emits the range posting of the key k (type, then sortable
// value), the postings of its buckets, and the path's typed posting for
// the document's first value of the type there, or its several-values
// posting for the second. Member names are unique in canonical JSON, so
// only a path through an array can meet a second value: the values seen
// are kept for those paths only.
func (x *extractor) ranged(p []byte, k []byte) {
	x.emit(p, famRange, k)
	if !x.noBuckets {
		for level, n := range bucketLevels(k[0]) {
			x.bucket = appendBucket(x.bucket[:0], k, level, n)
			x.emit(p, famBucket, x.bucket)
		}
	}
	before := 0
	if x.arrays > 0 {
		before = x.seen.note(k[0], p)
	}
	switch before {
	case 0:
		x.emit(p, famTyped, k[:1])
	case 1:
		x.emit(p, famMulti, k[:1])
	}
}

// str emits the equality posting (or marks the string long), range
// postings for decimal strings and instants, and, at text paths only,
// trigram postings. Decimal strings and instants get no trigrams (a
// substring search in "2025-09-10T18:51:27Z" or "649.85" is rare); the
// path's no-gram posting keeps trigram lookups conservative for them and
// for strings too long for trigrams.
func (x *extractor) str(q []byte, escaped bool, p []byte) {
	s, ok := x.unquote(q, escaped)
	if !ok {
		return
	}
	ranged := false
	if isDecimal(s) {
		x.decimal(p, s)
		ranged = true
	} else if mayBeInstant(s) {
		if t, ok := canon.ParseInstantFull(string(s)); ok {
			x.buf = appendSortableInstant(append(x.buf[:0], typeInst), t)
			x.ranged(p, x.buf)
			ranged = true
		}
	}
	if len(s) > maxEqString {
		x.emit(p, famLong, nil)
	} else {
		x.buf = append(append(x.buf[:0], typeString), s...) // kept: grown once, not per string
		x.emit(p, famEq, x.buf)
	}
	if x.text == nil || !x.text(p) {
		return
	}
	switch {
	case ranged || len(s) > maxTextString:
		x.emit(p, famNoGram, nil)
	case len(s) < 3:
		x.emit(p, famShort, s)
	default:
		for i := 0; i+3 <= len(s); i++ {
			x.emit(p, famGram, s[i:i+3:i+3])
		}
	}
}

// isDecimal is canon.IsDecimal (^-?[0-9]+(\.[0-9]+)?$) on bytes, without
// a regular expression: it runs on every string of every document.
func isDecimal(s []byte) bool {
	i := 0
	if len(s) > 0 && s[0] == '-' {
		i++
	}
	j := skipDigits(s, i)
	if j == i {
		return false
	}
	if j == len(s) {
		return true
	}
	if s[j] != '.' {
		return false
	}
	k := skipDigits(s, j+1)
	return k > j+1 && k == len(s)
}

func skipDigits(s []byte, i int) int {
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	return i
}

// mayBeInstant is the shape canon.ParseInstantFull checks first (its
// length, and the 'T' between date and time), so that strings that are
// surely no instant are not copied to be parsed.
func mayBeInstant(s []byte) bool {
	return len(s) >= len("2006-01-02T15:04:05Z") && (s[10] == 'T' || s[10] == 't')
}

// rangeSeen counts the range values a document holds per (type, path),
// for the paths through arrays: a few per document, compared in place,
// and a map once a document has many.
type rangeSeen struct {
	keys  []byte   // type, then path, end to end
	ends  []uint32 // key i is keys[ends[i-1]:ends[i]]
	count []uint8  // values seen at key i, at most 2
	index map[string]int
}

// rangeSeenLinear is how many keys rangeSeen compares one by one before
// it indexes them.
const rangeSeenLinear = 16

func (s *rangeSeen) reset() {
	s.keys, s.ends, s.count = s.keys[:0], s.ends[:0], s.count[:0]
	clear(s.index)
}

// note counts a value of type typ at p and returns how many the
// document held there before it: 0, 1, or 2 for two or more.
func (s *rangeSeen) note(typ byte, p []byte) int {
	at := len(s.keys)
	s.keys = append(append(s.keys, typ), p...)
	key := s.keys[at:]
	i := s.find(key)
	if i >= 0 {
		s.keys = s.keys[:at]
		before := int(s.count[i])
		s.count[i] = uint8(min(before+1, 2))
		return before
	}
	s.ends, s.count = append(s.ends, uint32(len(s.keys))), append(s.count, 1)
	if len(s.ends) > rangeSeenLinear {
		if s.index == nil {
			s.index = map[string]int{}
		}
		if len(s.index) == 0 {
			for j := range s.ends {
				s.index[string(s.key(j))] = j
			}
		} else {
			s.index[string(key)] = len(s.ends) - 1
		}
	}
	return 0
}

// find returns the index of key among those seen, -1 when it is new.
func (s *rangeSeen) find(key []byte) int {
	if len(s.index) > 0 {
		if i, ok := s.index[string(key)]; ok {
			return i
		}
		return -1
	}
	for i := range s.ends {
		if string(s.key(i)) == string(key) {
			return i
		}
	}
	return -1
}

func (s *rangeSeen) key(i int) []byte {
	start := uint32(0)
	if i > 0 {
		start = s.ends[i-1]
	}
	return s.keys[start:s.ends[i]]
}
