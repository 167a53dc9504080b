package canon

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/gowebpki/jcs"
)

// ContentID is the sha256 of a document's canonical bytes: its identity.
type ContentID [sha256.Size]byte

// String returns the lowercase hex form used everywhere ids are printed.
func (id ContentID) String() string { return hex.EncodeToString(id[:]) }

// IsZero reports whether id is the zero id (no document).
func (id ContentID) IsZero() bool { return id == ContentID{} }

// ParseContentID parses the lowercase (or uppercase) hex form of an id.
func ParseContentID(s string) (ContentID, error) {
	var id ContentID
	if len(s) != 2*len(id) {
		return id, fmt.Errorf("canon: content id %q: want %d hex digits, got %d", s, 2*len(id), len(s))
	}
	if _, err := hex.Decode(id[:], []byte(s)); err != nil {
		return id, fmt.Errorf("canon: content id %q: %v", s, err)
	}
	return id, nil
}

// Sum returns the content id of canonical bytes.
func Sum(canonical []byte) ContentID { return sha256.Sum256(canonical) }

// Canonical strictly decodes b (see Decode) and returns its RFC 8785
// canonical bytes together with the decoded value. The returned value is
// decoded from b, so its Numbers carry b's literal text.
func Canonical(b []byte, lim *Limits) ([]byte, any, error) {
	v, err := Decode(b, lim)
	if err != nil {
		return nil, nil, err
	}
	c, err := jcs.Transform(b)
	if err != nil {
		return nil, nil, &SyntaxError{Line: 1, Column: 1, Err: ErrNotCanonicalizable,
			Reason: "no RFC 8785 form: " + err.Error(),
			Fix:    "numbers must fit an IEEE 754 double; keep large or exact values in strings"}
	}
	return c, v, nil
}
