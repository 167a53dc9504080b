package index

import (
	"bytes"
	"encoding/binary"

	"github.com/aqlstore/aqlstore/canon"
)

// The posting extractor as it was before it walked the bytes in one pass
// (index format aqlstore.index.v4), kept as the oracle that
// TestExtractMatchesOracle and FuzzExtractMatchesOracle hold the
// extractor to: same postings, in the same order, byte for byte.

// A posting is a (path, kind of entry, value) triple found in a document.
// extract walks canonical bytes (RFC 8785: no whitespace, validated) and
// calls emit for each; it builds no tree.
type oracleExtractor struct {
	emit   func(p []byte, fam byte, value []byte) // p is valid for the call only
	text   func(p []byte) bool                    // whether strings at p get trigrams; nil: nowhere
	path   []byte                                 // the encoded Path being walked
	buf    []byte
	bucket []byte
	values map[string]int // range values per type and path, in the document walked
}

// walk visits the value v at the path in x.path, which it extends and
// restores for children (no allocation per node).
func (x *oracleExtractor) walk(v []byte) {
	p := x.path
	x.emit(p, famExists, nil)
	switch v[0] {
	case '{':
		canon.EachMember(v, func(key, val []byte) bool {
			x.path = oracleMemberSeg(p, key)
			x.walk(val)
			return true
		})
		x.path = p
	case '[':
		canon.EachElement(v, func(e []byte) bool {
			x.path = append(p, 'a')
			x.walk(e)
			return true
		})
		x.path = p
	case '"':
		x.str(v, p)
	case 't':
		x.emit(p, famEq, []byte{typeTrue})
	case 'f':
		x.emit(p, famEq, []byte{typeFalse})
	case 'n':
		x.emit(p, famEq, []byte{typeNull})
	default:
		x.number(v, p)
	}
}

// number emits the equality posting (canonical text, so 1.0 and 1 are one
// key) and the range posting.
// oracleMemberSeg appends a member segment for the quoted canonical key;
// only keys with escapes are decoded.
func oracleMemberSeg(p, key []byte) []byte {
	name := key[1 : len(key)-1]
	if bytes.IndexByte(name, '\\') >= 0 {
		s, _ := canon.RawString(key)
		name = []byte(s)
	}
	p = binary.AppendUvarint(append(p, 'k'), uint64(len(name)))
	return append(p, name...)
}

// number's range key is the exact decimal key of its canonical text: a
// JSON number denotes the IEEE double it rounds to, whose shortest text
// RFC 8785 stores, so the key is the value the evaluator compares.
func (x *oracleExtractor) number(v []byte, p []byte) {
	x.emit(p, famEq, append(append(x.buf[:0], typeNumber), v...))
	x.decimal(p, string(v))
}

// decimal emits the range posting of a number's or decimal string's text.
func (x *oracleExtractor) decimal(p []byte, text string) {
	if k, err := AppendNumberKey(append(x.buf[:0], typeNumber), text); err == nil {
		x.buf = k
		x.ranged(p, k)
	}
}

// ranged emits the range posting of the key k (type, then sortable
// value) and the postings of its buckets.
// Then the typed posting for the document's first value of the type at
// the path, or the several-values posting for its second (index format
// v5).
func (x *oracleExtractor) ranged(p []byte, k []byte) {
	x.emit(p, famRange, k)
	for level, n := range bucketLevels(k[0]) {
		x.bucket = append(append(append(x.bucket[:0], k[0]), byte(level)), rangeBucket(n, k[1:])...)
		x.emit(p, famBucket, x.bucket)
	}
	if x.values == nil {
		x.values = map[string]int{}
	}
	seen := string(k[:1]) + string(p)
	switch x.values[seen]++; x.values[seen] {
	case 1:
		x.emit(p, famTyped, []byte{k[0]})
	case 2:
		x.emit(p, famMulti, []byte{k[0]})
	}
}

// str emits the equality posting (or marks the string long), range
// postings for decimal strings and instants, and, at text paths only,
// trigram postings. Decimal strings and instants get no trigrams (a
// substring search in "2025-09-10T18:51:27Z" or "649.85" is rare); the
// path's no-gram posting keeps trigram lookups conservative for them and
// for strings too long for trigrams.
func (x *oracleExtractor) str(q []byte, p []byte) {
	s, ok := canon.RawString(q)
	if !ok {
		return
	}
	ranged := false
	if canon.IsDecimal(s) {
		x.decimal(p, s)
		ranged = true
	} else if t, ok := canon.ParseInstantFull(s); ok {
		x.buf = appendSortableInstant(append(x.buf[:0], typeInst), t)
		x.ranged(p, x.buf)
		ranged = true
	}
	if len(s) > maxEqString {
		x.emit(p, famLong, nil)
	} else {
		x.emit(p, famEq, append(append(x.buf[:0], typeString), s...))
	}
	if x.text == nil || !x.text(p) {
		return
	}
	switch {
	case ranged || len(s) > maxTextString:
		x.emit(p, famNoGram, nil)
	case len(s) < 3:
		x.emit(p, famShort, []byte(s))
	default:
		for i := 0; i+3 <= len(s); i++ {
			x.emit(p, famGram, []byte(s[i:i+3]))
		}
	}
}
