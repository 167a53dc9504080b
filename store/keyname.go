package store

import (
	"bytes"
	"encoding/binary"
	"strconv"

	"github.com/aqlstore/aqlstore/canon"
)

// keyName describes a key for a person reading an error or a verify
// report: "document 12", "blob 7", "receipt 40". Damage is found by key
// (Pebble names the files and key ranges it cannot read), but people look
// for documents. It never prints an owner or a natural key: an error
// message must not carry one tenant's names into another's log line.
func keyName(key []byte) string {
	if len(key) == 0 {
		return "the start of the key space"
	}
	num := func(what string) string {
		if len(key) < 5 {
			return what + " keys"
		}
		return what + " " + strconv.FormatUint(uint64(binary.BigEndian.Uint32(key[1:5])), 10)
	}
	switch key[0] {
	case prefixMeta:
		return "metadata " + strconv.Quote(string(key[1:]))
	case prefixBlob:
		return num("blob")
	case prefixDoc:
		return num("document")
	case prefixColumn:
		return num("column entry of document")
	case prefixRefs, prefixID:
		what := map[byte]string{prefixRefs: "reference count", prefixID: "content-id key"}[key[0]]
		if len(key) < 1+len(canon.ContentID{}) {
			return what + "s"
		}
		var id canon.ContentID
		copy(id[:], key[1:])
		return what + " of " + id.String()
	case prefixNatural:
		return "natural keys of kind " + strconv.Quote(string(field(key[1:])))
	case prefixKind:
		kind := field(key[1:])
		rest := key[1+len(kind):]
		if len(rest) == 5 {
			return "kind key of document " + strconv.FormatUint(uint64(binary.BigEndian.Uint32(rest[1:])), 10)
		}
		return "kind keys of " + strconv.Quote(string(kind))
	case prefixReceipt:
		if len(key) < 9 {
			return "receipt keys"
		}
		return "receipt " + strconv.FormatUint(binary.BigEndian.Uint64(key[1:9]), 10)
	case prefixMessage:
		return "message keys"
	case IndexPrefix:
		return "index postings"
	}
	return "key " + strconv.Quote(string(key[:min(len(key), 16)]))
}

// field returns b up to its first NUL byte.
func field(b []byte) []byte {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return b[:i]
	}
	return b
}
