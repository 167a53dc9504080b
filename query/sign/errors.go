package sign

import (
	"errors"
	"fmt"
)

// Sentinel errors, checked with errors.Is. The concrete errors name the
// member at fault and, where there is one, the fix.
var (
	// ErrNoSignature means the document has no top-level "signature"
	// member.
	ErrNoSignature = errors.New("sign: no signature")
	// ErrBadSignature means the signature block is malformed, or its value
	// does not verify under the key: the document was changed after
	// signing, or was signed by another key. A caller refuses such a
	// document.
	ErrBadSignature = errors.New("sign: bad signature")
	// ErrUnsupportedAlg means the signature's alg is not "EdDSA".
	ErrUnsupportedAlg = errors.New("sign: unsupported signature algorithm")
	// ErrNotObject means a document to sign or verify is not a JSON object.
	ErrNotObject = errors.New("sign: document is not a JSON object")
	// ErrUnsignable means a value in a document has no JSON form: a Go type
	// outside the decoded-document model, NaN, invalid UTF-8, a malformed
	// canon.Number, or a number outside the IEEE 754 double range.
	ErrUnsignable = errors.New("sign: value cannot be signed")
	// ErrUnsealable means a token was not sealed by this Sealer: altered,
	// truncated, sealed under another key or for another purpose.
	ErrUnsealable = errors.New("sign: not a token this resolver sealed")
	// ErrInvalidKey means a public key is not 32 bytes.
	ErrInvalidKey = errors.New("sign: invalid Ed25519 public key")
	// ErrDIDKey means a did:key identifier is malformed or is not an
	// Ed25519 key.
	ErrDIDKey = errors.New("sign: malformed did:key")
	// ErrKeyFile means a private key file is malformed.
	ErrKeyFile = errors.New("sign: bad key file")
	// ErrKeyPermissions means a private key file is open to group or
	// others; the message says which chmod fixes it.
	ErrKeyPermissions = errors.New("sign: key file permissions too open")
	// ErrTrustFile means a trust file is malformed; the message names the
	// entry.
	ErrTrustFile = errors.New("sign: bad trust file")
)

// SignatureError reports what is wrong with a document's signature, at the
// JSON Pointer of the member at fault (e.g. /signature/value).
type SignatureError struct {
	Pointer string // JSON Pointer of the offending member
	Reason  string // what is wrong, and the fix where there is one
	Err     error  // ErrNoSignature, ErrBadSignature or ErrUnsupportedAlg
}

// Error reads like "sign: bad signature at /signature/value: …".
func (e *SignatureError) Error() string {
	return fmt.Sprintf("%v at %s: %s", e.Err, e.Pointer, e.Reason)
}

// Unwrap returns the sentinel, so errors.Is works.
func (e *SignatureError) Unwrap() error { return e.Err }

// quoteShort quotes s, cut after 96 bytes so that hostile input cannot
// flood an error message.
func quoteShort(s string) string {
	const max = 96
	if len(s) <= max {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprintf("%q...(%d bytes)", s[:max], len(s))
}
