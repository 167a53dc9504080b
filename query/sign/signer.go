package sign

import (
	"crypto/ed25519"
	"encoding/base64"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/aqlstore/aqlstore/canon"
)

// AlgEdDSA is the only signature algorithm sign implements: Ed25519.
const AlgEdDSA = "EdDSA"

// docLimits bound the documents SignBytes and VerifyBytes decode. They are
// wider than canon's defaults because a full_set response with its
// decision records can pass 4 MiB and 10,000 candidates; the nesting
// limit stays canon's.
var docLimits = canon.Limits{MaxBytes: 64 << 20, MaxMembers: 1 << 20}.WithoutPathLimits()

// Signer signs documents with one Ed25519 key, naming the key by its
// did:key. A Signer is immutable and safe for concurrent use.
type Signer struct {
	priv ed25519.PrivateKey
	did  string
	kid  string
	// sigPrefix is the RFC 8785 text of the signature member up to its
	// value: "signature":{"alg":"EdDSA","kid":"…","value":"
	sigPrefix string
	sealers   sync.Map // purpose → *Sealer
}

// NewSigner returns a Signer for priv. The key is rebuilt from its seed,
// so a private key whose public half was damaged still signs under the
// right public key. It panics if priv is not 64 bytes, as crypto/ed25519
// does.
func NewSigner(priv ed25519.PrivateKey) *Signer {
	if len(priv) != ed25519.PrivateKeySize {
		panic(fmt.Sprintf("sign: Ed25519 private key is %d bytes, want %d", len(priv), ed25519.PrivateKeySize))
	}
	key := ed25519.NewKeyFromSeed(priv.Seed())
	did := DIDKey(key.Public().(ed25519.PublicKey))
	kid := did + "#" + strings.TrimPrefix(did, didKeyPrefix)
	// A did:key is base58 after "did:key:": nothing in it needs escaping.
	prefix := `"` + signatureMember + `":{"alg":"` + AlgEdDSA + `","kid":"` + kid + `","value":"`
	return &Signer{priv: key, did: did, kid: kid, sigPrefix: prefix}
}

// DID returns the signer's did:key, e.g. "did:key:z6Mk…".
func (s *Signer) DID() string { return s.did }

// KeyID returns the signer's verification method id, the did:key URL
// "did:key:z6Mk…#z6Mk…" that Sign writes as the signature's kid.
func (s *Signer) KeyID() string { return s.kid }

// PublicKey returns the signer's public key; the caller may keep it.
func (s *Signer) PublicKey() ed25519.PublicKey {
	return append(ed25519.PublicKey(nil), s.priv[ed25519.SeedSize:]...)
}

// SignMessage signs msg itself (no canonicalization, no signature block):
// for compact tokens such as pagination cursors, verified with
// ed25519.Verify against PublicKey.
func (s *Signer) SignMessage(msg []byte) []byte { return ed25519.Sign(s.priv, msg) }

// Sign returns a shallow copy of doc with its "signature" member set to
// {"alg": "EdDSA", "kid": KeyID(), "value": …}; a signature doc already
// carries is replaced. doc itself is not changed, and the copy shares
// doc's nested values, so neither should be changed afterwards without
// signing again. Errors wrap ErrUnsignable and name the value at fault.
// To send the signed document, AppendSigned gives its bytes without
// encoding it a second time.
func (s *Signer) Sign(doc map[string]any) (map[string]any, error) {
	e, err := newBody(doc)
	defer e.release()
	if err != nil {
		return nil, err
	}
	out := maps.Clone(doc)
	if out == nil {
		out = map[string]any{}
	}
	out[signatureMember] = s.block(ed25519.Sign(s.priv, e.buf))
	return out, nil
}

// AppendSigned signs doc as Sign does and appends to dst the RFC 8785
// bytes of the signed document, doc with its "signature" member set (or
// replaced) by the returned block, whose value is the same as Sign's. doc
// is encoded once: the bytes signed are the bytes sent, with the signature
// member put in its sorted place. doc is not changed; a caller that keeps
// the signed document sets sig as doc's "signature" (or a copy's).
//
// The returned slice is dst extended, and belongs to the caller. On error
// dst is returned unchanged and the error wraps ErrUnsignable, naming the
// value at fault.
func (s *Signer) AppendSigned(dst []byte, doc map[string]any) (b []byte, sig map[string]any, err error) {
	e, err := newBody(doc)
	defer e.release()
	if err != nil {
		return dst, nil, err
	}
	at := e.at
	raw := ed25519.Sign(s.priv, e.buf)
	var scratch [320]byte
	member := s.appendMember(scratch[:0], raw, e.buf[at-1] != '{', e.buf[at] != '}')
	// Encoded in the pooled body buffer, copied once into dst grown to
	// size: no growth garbage, and no second pass.
	b = slices.Grow(dst, len(e.buf)+len(member))
	b = append(b, e.buf[:at]...)
	b = append(b, member...)
	return append(b, e.buf[at:]...), s.block(raw), nil
}

// AppendSignedCanonical is AppendSigned for a document already in RFC
// 8785 form: unsigned is the canonical bytes of a JSON object that has no
// "signature" member and no member whose name sorts after it, so the
// signature member is written last, before the closing brace. unsigned
// is signed as it is, not checked; it is not modified. The returned
// slice is dst extended.
func (s *Signer) AppendSignedCanonical(dst, unsigned []byte) (b []byte, sig map[string]any) {
	at := len(unsigned) - 1
	raw := ed25519.Sign(s.priv, unsigned)
	var scratch [320]byte
	member := s.appendMember(scratch[:0], raw, unsigned[at-1] != '{', false)
	b = slices.Grow(dst, len(unsigned)+len(member))
	b = append(b, unsigned[:at]...)
	b = append(b, member...)
	return append(b, '}'), s.block(raw)
}

// SealCanonical is AppendSignedCanonical writing the signed document
// into unsigned's own storage, for a document too large to copy twice:
// the returned bytes share unsigned's array, which the caller must not
// use afterwards.
func (s *Signer) SealCanonical(unsigned []byte) (b []byte, sig map[string]any) {
	at := len(unsigned) - 1
	raw := ed25519.Sign(s.priv, unsigned)
	var scratch [320]byte
	member := s.appendMember(scratch[:0], raw, unsigned[at-1] != '{', false)
	return append(append(unsigned[:at], member...), '}'), s.block(raw)
}

// appendMember writes the signature member for signature raw, with the
// comma that separates it from the member before it or after it.
func (s *Signer) appendMember(dst, raw []byte, before, after bool) []byte {
	if before {
		dst = append(dst, ',')
	}
	dst = append(dst, s.sigPrefix...)
	dst = base64.RawURLEncoding.AppendEncode(dst, raw)
	dst = append(dst, `"}`...)
	if after && !before {
		dst = append(dst, ',')
	}
	return dst
}

// block returns the signature member's value for signature raw.
func (s *Signer) block(raw []byte) map[string]any {
	return map[string]any{"alg": AlgEdDSA, "kid": s.kid, "value": base64.RawURLEncoding.EncodeToString(raw)}
}

// SignBytes signs an encoded JSON object: it decodes jsonDoc strictly
// (canon.Decode: duplicate names, invalid UTF-8 and trailing data are
// refused), signs it, and returns the RFC 8785 bytes of the signed
// document. The returned slice is new and belongs to the caller.
func (s *Signer) SignBytes(jsonDoc []byte) ([]byte, error) {
	doc, err := decodeObject(jsonDoc)
	if err != nil {
		return nil, err
	}
	b, _, err := s.AppendSigned(nil, doc)
	if err != nil {
		return nil, err
	}
	return b, nil
}

// decodeObject strictly decodes a JSON object.
func decodeObject(b []byte) (map[string]any, error) {
	v, err := canon.Decode(b, &docLimits)
	if err != nil {
		return nil, fmt.Errorf("sign: decode: %w", err)
	}
	doc, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%w: the top level is %s; only objects carry a signature member", ErrNotObject, canon.TypeName(v))
	}
	return doc, nil
}
