package store

import (
	"encoding/binary"

	"github.com/aqlstore/aqlstore/canon"
)

// Key families. Every key aqlstore writes starts with one of these bytes;
// this table is the only place the layout is written down.
//
//	prefix  key layout                                    value
//	'M'     'M' name                                      meta value (see meta*)
//	'B'     'B' blobnum[4]                                shared blob: codec byte, payload
//	'R'     'R' id[32]                                    blobnum[4], reference count uvarint
//	'D'     'D' num[4]                                    document record, naming its id and blobnum, then its
//	                                                      body (codec byte, payload) when blobnum = num (record.go)
//	'I'     'I' id[32] owner 0x00 natural key             num[4]: content id + owner (+ key) → number
//	'N'     'N' kind 0x00 owner 0x00 natural key          num[4]: natural key → number
//	'K'     'K' kind 0x00 num[4]                          empty: documents by kind
//	'L'     'L' num[4]                                    column entry: kind, owner, score, candidate id (columns.go)
//	'C'     'C' seq[8]                                    receipt, RFC 8785 JSON
//	'S'     'S' family ...                                message kinds' keys (message_keys.go)
//	'G'     'G' family ...                                grants of documents to other tenants (grant.go)
//	'X'     reserved for index postings (package index)
//
// Numbers are big-endian so that keys sort in numeric order. Kinds and
// owners never contain 0x00 (Put refuses such owners; kinds are fixed names).
//
// A blob is numbered by the first document that stored its content. Unique
// content, the common case, thus has blobnum = num, and its body is stored
// inline at the end of that document's record: a candidate's record and
// body come from one point read, and a scan reads them in one sequence.
// Identical content stored again (by another owner, or under another
// candidate id) counts one more reference under 'R' id, which tells Put
// the blob number without a scan, and is written once more as a shared
// blob 'B' blobnum when it gains its second reference; documents whose
// blobnum is not their own number read it there. Numbers are never reused,
// so 'B' blobnum stays valid after document blobnum is deleted, as long as
// another reference holds the blob; the last reference deletes it.
const (
	prefixMeta    byte = 'M'
	prefixBlob    byte = 'B'
	prefixRefs    byte = 'R'
	prefixDoc     byte = 'D'
	prefixID      byte = 'I'
	prefixNatural byte = 'N'
	prefixKind    byte = 'K'
	prefixReceipt byte = 'C'
	prefixColumn  byte = 'L'
)

// Meta keys.
var (
	metaFormat    = []byte("Mformat")     // uvarint format version
	metaNextNum   = []byte("Mnext_num")   // num[4]: the next document number
	metaChainHead = []byte("Mchain_head") // seq[8] hash[32]: the last receipt
)

// formatVersion is written on init and checked on open. Format 1 keyed
// blobs by content id ('B' id[32]); format 2 keyed them by blob number;
// format 3 keeps the body of unique content inline in the document record.
const formatVersion = 3

// AppendBlobKey appends the key of blob blobNum to dst.
func AppendBlobKey(dst []byte, blobNum uint32) []byte {
	return binary.BigEndian.AppendUint32(append(dst, prefixBlob), blobNum)
}

// AppendRefsKey appends the reference-count key of id to dst.
func AppendRefsKey(dst []byte, id canon.ContentID) []byte {
	return append(append(dst, prefixRefs), id[:]...)
}

// AppendDocKey appends the document-record key of num to dst.
func AppendDocKey(dst []byte, num uint32) []byte {
	return binary.BigEndian.AppendUint32(append(dst, prefixDoc), num)
}

// AppendColumnKey appends the column-entry key of document num to dst.
func AppendColumnKey(dst []byte, num uint32) []byte {
	return binary.BigEndian.AppendUint32(append(dst, prefixColumn), num)
}

// AppendIDKey appends the key mapping (id, owner, natural key) to a
// number. The natural key is part of it because two candidates may carry
// identical records under different ids.
func AppendIDKey(dst []byte, id canon.ContentID, owner, naturalKey string) []byte {
	return append(append(AppendIDPrefix(dst, id, owner), 0), naturalKey...)
}

// AppendIDPrefix appends the prefix of every id key of (id, owner).
func AppendIDPrefix(dst []byte, id canon.ContentID, owner string) []byte {
	return append(append(append(dst, prefixID), id[:]...), owner...)
}

// AppendNaturalKey appends the key of a natural key in (kind, owner).
func AppendNaturalKey(dst []byte, kind canon.Kind, owner, key string) []byte {
	dst = append(append(dst, prefixNatural), kind...)
	dst = append(append(append(dst, 0), owner...), 0)
	return append(dst, key...)
}

// AppendKindKey appends the key listing document num under kind.
func AppendKindKey(dst []byte, kind canon.Kind, num uint32) []byte {
	dst = append(append(append(dst, prefixKind), kind...), 0)
	return binary.BigEndian.AppendUint32(dst, num)
}

// AppendKindPrefix appends the prefix of every key of kind.
func AppendKindPrefix(dst []byte, kind canon.Kind) []byte {
	return append(append(append(dst, prefixKind), kind...), 0)
}

// AppendReceiptKey appends the key of receipt seq.
func AppendReceiptKey(dst []byte, seq uint64) []byte {
	return binary.BigEndian.AppendUint64(append(dst, prefixReceipt), seq)
}

// prefixEnd returns the smallest key greater than every key with prefix p.
func prefixEnd(p []byte) []byte {
	end := append([]byte(nil), p...)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] < 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}
