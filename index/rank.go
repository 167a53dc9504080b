package index

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/store"
)

// The rank order. Every document has one 'R' key, written and deleted in
// the batch that puts or deletes it, whose byte order is the order a
// resolver ranks candidates in: score descending (exact decimals; a
// document without a score after every scored one), then candidate id
// ascending, then document number. A page is then a walk of these keys
// that keeps the accepted documents and stops once the page is full,
// instead of reading and sorting every candidate.
//
//	X R 0x01 ^decimal(score) id-escaped 0x00 0x01 num    scored
//	X R 0x02                 id-escaped 0x00 0x01 num    no score
//
// decimal is AppendDecimalKey's, inverted (descending); the candidate id
// has each 0x00 written 0x00 0xff, so the 0x00 0x01 terminator sorts a
// shorter id before every longer one it prefixes; num is 4 bytes
// big-endian. The value is rankValue.
const (
	rankScored   = 0x01
	rankUnscored = 0x02
)

// rankValue is the value of every rank key: a plain key's value may not
// read as an empty posting list (store.IndexWriter.Set).
var rankValue = []byte{'r'}

// AppendRankKey appends the rank key of document num, with score ("" for
// none) and candidate id, to dst. A score that is not a number is an
// error.
func AppendRankKey(dst []byte, score canon.Number, id string, num uint32) ([]byte, error) {
	dst = appendFamily(dst, famRank)
	if score == "" {
		dst = append(dst, rankUnscored)
	} else {
		dst = append(dst, rankScored)
		start := len(dst)
		var err error
		if dst, err = AppendNumberKey(dst, string(score)); err != nil {
			return dst, err
		}
		invert(dst[start:])
	}
	for {
		i := strings.IndexByte(id, 0)
		if i < 0 {
			break
		}
		dst = append(append(dst, id[:i]...), 0x00, 0xff)
		id = id[i+1:]
	}
	dst = append(append(dst, id...), 0x00, 0x01)
	return binary.BigEndian.AppendUint32(dst, num), nil
}

// rankNum reads the document number at the end of a rank key.
func rankNum(key []byte) (uint32, bool) {
	if len(key) < 2+1+2+4 || !bytes.HasPrefix(key, []byte{store.IndexPrefix, famRank}) {
		return 0, false
	}
	return binary.BigEndian.Uint32(key[len(key)-4:]), true
}

// WalkRank calls fn with the document number of every rank key after
// (strictly) the key after, in rank order, from the first when after is
// nil, until fn returns false or an error. It reads the committed index.
func (ix *Index) WalkRank(after []byte, fn func(num uint32) (bool, error)) error {
	start := appendFamily(nil, famRank)
	if after != nil {
		start = append(bytes.Clone(after), 0) // the least key greater than after
	}
	return ix.r.Keys(start, appendFamily(nil, famRank+1), func(key []byte) (bool, error) {
		num, ok := rankNum(key)
		if !ok {
			return false, fmt.Errorf("%w: rank key %x is too short: run `aqlstore reindex`", store.ErrCorrupt, key)
		}
		return fn(num)
	})
}

// rankKeys is a mutation's rank keys: each key's last operation, true to
// set it, false to delete it, written in key order by Flush.
type rankKeys map[string]bool

func (rk rankKeys) note(doc store.IndexedDoc, num uint32, set bool, scratch []byte) ([]byte, error) {
	key, err := AppendRankKey(scratch[:0], doc.Score, doc.CandidateID, num)
	if err != nil {
		return key, fmt.Errorf("index: document %d: score: %w", num, err)
	}
	rk[string(key)] = set
	return key, nil
}

func (rk rankKeys) flush(w *store.IndexWriter) error {
	keys := make([]string, 0, len(rk))
	for k := range rk {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		var err error
		if rk[k] {
			err = w.Set([]byte(k), rankValue)
		} else {
			err = w.Delete([]byte(k))
		}
		if err != nil {
			return err
		}
	}
	return nil
}
