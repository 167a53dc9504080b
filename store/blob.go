package store

import (
	"encoding/binary"
	"fmt"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// Blob codecs: the first byte of every blob value.
const (
	codecNone byte = 0 // the canonical bytes as they are
	codecZstd byte = 1 // zstd of the canonical bytes, one frame per document
)

var (
	zstdOnce sync.Once
	zstdEnc  *zstd.Encoder
	zstdDec  *zstd.Decoder
)

// zstdCodecs returns shared stateless-use encoder and decoder: EncodeAll and
// DecodeAll are safe for concurrent use.
func zstdCodecs() (*zstd.Encoder, *zstd.Decoder) {
	zstdOnce.Do(func() {
		zstdEnc, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1))
		zstdDec, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(0))
	})
	return zstdEnc, zstdDec
}

// appendRefs appends the value of an 'R' key: the blob's number and how
// many documents use it.
func appendRefs(dst []byte, blobNum uint32, n uint64) []byte {
	return binary.AppendUvarint(binary.BigEndian.AppendUint32(dst, blobNum), n)
}

// decodeRefs decodes the value of an 'R' key.
func decodeRefs(v []byte) (blobNum uint32, n uint64, ok bool) {
	if len(v) < 5 {
		return 0, 0, false
	}
	n, k := binary.Uvarint(v[4:])
	return binary.BigEndian.Uint32(v), n, k > 0 && k == len(v)-4
}

// encodeBlob appends the blob value of canonical bytes to dst.
func encodeBlob(dst, canonical []byte, compression string) []byte {
	if compression == "zstd" {
		enc, _ := zstdCodecs()
		return enc.EncodeAll(canonical, append(dst, codecZstd))
	}
	return append(append(dst, codecNone), canonical...)
}

// blobBody returns the canonical bytes held in blob value v, which the
// caller owns and gives up: without compression they are v's own bytes,
// not a copy.
func blobBody(v []byte) ([]byte, error) {
	if len(v) > 0 && v[0] == codecNone {
		return v[1:], nil
	}
	return decodeBlob(nil, v)
}

// readBody reads and decodes the body of document num through get (the
// committed store, a view, a body reader or a mutation's batch).
// A body stored inline with the record (the document's own content) costs
// no read at all.
func readBody(get func(key, dst []byte) ([]byte, bool, error), num uint32, rec *record) ([]byte, error) {
	if rec.blob == num {
		body, err := blobBody(rec.inline)
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", num, err)
		}
		return body, nil
	}
	v, found, err := get(AppendBlobKey(nil, rec.blob), nil)
	if err != nil {
		return nil, fmt.Errorf("read blob %d of document %d: %w", rec.blob, num, err)
	}
	if !found {
		return nil, fmt.Errorf("%w: document %d names blob %d (%s), which is missing", ErrCorrupt, num, rec.blob, rec.id)
	}
	body, err := blobBody(v)
	if err != nil {
		return nil, fmt.Errorf("document %d: %w", num, err)
	}
	return body, nil
}

// decodeBlob appends the canonical bytes held in blob value v to dst.
func decodeBlob(dst, v []byte) ([]byte, error) {
	if len(v) == 0 {
		return dst, fmt.Errorf("%w: empty blob", ErrCorrupt)
	}
	switch v[0] {
	case codecNone:
		return append(dst, v[1:]...), nil
	case codecZstd:
		_, dec := zstdCodecs()
		out, err := dec.DecodeAll(v[1:], dst)
		if err != nil {
			return dst, fmt.Errorf("%w: blob: %v", ErrCorrupt, err)
		}
		return out, nil
	}
	return dst, fmt.Errorf("%w: blob codec %d unknown", ErrCorrupt, v[0])
}
