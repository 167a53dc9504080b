package store

import (
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

// encodeBlob appends the blob value of canonical bytes to dst.
func encodeBlob(dst, canonical []byte, compression string) []byte {
	if compression == "zstd" {
		enc, _ := zstdCodecs()
		return enc.EncodeAll(canonical, append(dst, codecZstd))
	}
	return append(append(dst, codecNone), canonical...)
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
