package index

import (
	"encoding/binary"
	"strconv"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/store"
)

// Key layout. Every key starts with store.IndexPrefix ('X') and a family
// byte; path ids are 4 bytes big-endian.
//
//	family  key                                   value
//	'N'     X N                                   next path id, 4 bytes
//	'p'     X p path                              path id (the dictionary)
//	'P'     X P id                                path (the reverse)
//	'e'     X e id                                bitmap: documents with a value at the path
//	'q'     X q id type value                     bitmap: documents with that scalar there
//	                                              type s string (≤ maxEqString bytes), n number
//	                                              (canonical text), t true, f false, z null
//	'r'     X r id type sortable                  bitmap: range postings, one per value
//	                                              type n number or decimal string (exact
//	                                              decimal key, AppendDecimalKey: a number by
//	                                              its canonical text, a decimal string by
//	                                              every digit; equal values share a key),
//	                                              i RFC 3339 instant (seconds, then every
//	                                              fraction digit)
//	'b'     X b id type level bucket              bitmap: the OR of the 'r' postings whose
//	                                              sortable value starts with bucket, at
//	                                              each level (bucketLevels), so a range
//	                                              ORs one bitmap per bucket it covers whole
//	'y'     X y id type                           bitmap: documents with a range value of the
//	                                              type (n or i) at the path: every bucket's
//	                                              documents, so a range may be read as its
//	                                              complement (lookup.go, complementAt)
//	'm'     X m id type                           bitmap: documents with two or more range
//	                                              values of the type at the path (through an
//	                                              array), where a complement says nothing
//	'g'     X g id trigram                        bitmap: strings there containing the trigram
//	                                              (text paths only, Config)
//	'h'     X h id string                         bitmap: strings there shorter than a trigram
//	                                              (text paths only)
//	'l'     X l id                                bitmap: documents with strings too long for
//	                                              equality postings at the path
//	'o'     X o id                                bitmap: documents with strings at a text path
//	                                              that have no trigrams (decimal strings,
//	                                              instants, strings over maxTextString)
//	'C'     X C                                   the index configuration, JSON (Config)
//	'k'     X k kind                              bitmap: documents of the kind
//	'w'     X w owner                             bitmap: documents of the owner
//	'u'     X u                                   bitmap: every document
//	'R'     X R score id 0x00 0x01 num            'r': the rank order, one key per document,
//	                                              score descending (rank.go)
const (
	famNext    = 'N'
	famConfig  = 'C'
	famPath    = 'p'
	famPathID  = 'P'
	famExists  = 'e'
	famEq      = 'q'
	famRange   = 'r'
	famBucket  = 'b'
	famTyped   = 'y'
	famMulti   = 'm'
	famGram    = 'g'
	famShort   = 'h'
	famLong    = 'l'
	famNoGram  = 'o'
	famKind    = 'k'
	famOwner   = 'w'
	famAll     = 'u'
	famRank    = 'R'
	typeString = 's'
	typeNumber = 'n'
	typeTrue   = 't'
	typeFalse  = 'f'
	typeNull   = 'z'
	typeInst   = 'i'
)

// Strings longer than this get no equality posting; they are listed in
// the path's 'l' bitmap, which equality lookups add as lossy candidates.
const maxEqString = 128

func appendFamily(dst []byte, fam byte) []byte { return append(dst, store.IndexPrefix, fam) }

func appendPathKey(dst []byte, fam byte, id uint32) []byte {
	return binary.BigEndian.AppendUint32(appendFamily(dst, fam), id)
}

// Range buckets. A bucket is a prefix of sortable values, at one of a
// type's levels, coarse to fine: for decimals the class and exponent (a
// decade), then with the first two significant digits (at most 90 buckets
// per decade and sign), then the first four; for instants the top five
// bytes of the seconds (2^24 s, about 194 days), then six (2^16 s, about
// 18 hours). Zero is a decimal bucket alone.
var (
	decimalBuckets = []int{1 + 8, 1 + 8 + 1, 1 + 8 + 2}
	instantBuckets = []int{5, 6}
)

// bucketLevels returns the bucket lengths of type typ, coarse to fine.
func bucketLevels(typ byte) []int {
	if typ == typeNumber {
		return decimalBuckets
	}
	return instantBuckets
}

// rangeBucket returns the bucket of the sortable value v at a level of
// length n: a prefix of v.
func rangeBucket(n int, v []byte) []byte { return v[:min(n, len(v))] }

// appendBucket appends the value of a bucket key (after the path id) of
// the range value k (type, then sortable value) at level, of length n:
// the type, the level, the bucket.
func appendBucket(dst, k []byte, level, n int) []byte {
	return append(append(dst, k[0], byte(level)), rangeBucket(n, k[1:])...)
}

// appendSortableInstant appends t as offset-binary seconds, then every
// digit of its fraction in ASCII without trailing zeros: byte order is
// the instants' order at any number of fractional digits (".5" sorts
// before ".50001", and no key ends in '0'). The key is variable length,
// so a range over instants is bounded with instantKeyAfter, never by
// padding.
func appendSortableInstant(dst []byte, t canon.Instant) []byte {
	dst = binary.BigEndian.AppendUint64(dst, uint64(t.T.Unix())^(1<<63))
	n := len(dst)
	var digits [10]byte
	nanos := strconv.AppendInt(digits[:0], int64(t.T.Nanosecond())+1e9, 10) // "1" and nine digits
	dst = append(append(dst, nanos[1:]...), t.Sub...)
	for len(dst) > n && dst[len(dst)-1] == '0' {
		dst = dst[:len(dst)-1]
	}
	return dst
}

// instantKeyAfter turns the instant key k into the smallest byte string
// above it: every key that sorts after k sorts at or after k+"\x00",
// since a key's fraction digits are ASCII digits.
func instantKeyAfter(k []byte) []byte { return append(k, 0) }
