package sign

import (
	"errors"
	"fmt"
	"sync"

	"github.com/aqlstore/aqlstore/canon"
)

// signatureMember is the top-level member that carries the signature and
// is left out of the bytes it signs.
const signatureMember = "signature"

// body holds the bytes a signature covers: doc's RFC 8785 form without its
// signature member (canon.AppendCanonicalExcept, the one writer), and the
// offset at which that member belongs.
type body struct {
	buf []byte
	at  int
}

// bodies keeps finished buffers: the bytes signed and verified are not
// kept, and a response is written once per request.
var bodies = sync.Pool{New: func() any { return new(body) }}

// maxPooledBuf bounds the buffer kept in the pool, so that one huge
// document does not pin its size.
const maxPooledBuf = 1 << 20

// newBody writes doc's signed bytes. Errors wrap ErrUnsignable and name
// the value at fault; release the body in either case.
func newBody(doc map[string]any) (*body, error) {
	b := bodies.Get().(*body)
	buf, at, err := canon.AppendCanonicalExcept(b.buf[:0], doc, signatureMember)
	b.buf, b.at = buf, at
	if err != nil {
		return b, unsignable(err)
	}
	return b, nil
}

func (b *body) release() {
	if cap(b.buf) > maxPooledBuf {
		b.buf = nil
	}
	bodies.Put(b)
}

// unsignable restates the writer's error in this package's terms.
func unsignable(err error) error {
	var ve *canon.ValueError
	if errors.As(err, &ve) {
		return fmt.Errorf("%w at %s: %s", ErrUnsignable, ve.Pointer(), ve.Reason)
	}
	return fmt.Errorf("%w: %w", ErrUnsignable, err)
}
