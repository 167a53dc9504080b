package sign

import (
	"crypto/ed25519"
	"encoding/base64"
	"fmt"
	"maps"
	"strings"

	"github.com/aqlstore/aqlstore/canon"
)

// AlgEdDSA is the only signature algorithm sign implements: Ed25519.
const AlgEdDSA = "EdDSA"

// docLimits bound the documents SignBytes and VerifyBytes decode. They are
// wider than canon's defaults because a full_set response with its
// decision records can pass 4 MiB and 10,000 candidates; the nesting
// limit stays canon's.
var docLimits = canon.Limits{MaxBytes: 64 << 20, MaxMembers: 1 << 20}

// Signer signs documents with one Ed25519 key, naming the key by its
// did:key. A Signer is immutable and safe for concurrent use.
type Signer struct {
	priv ed25519.PrivateKey
	did  string
	kid  string
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
	return &Signer{priv: key, did: did, kid: did + "#" + strings.TrimPrefix(did, didKeyPrefix)}
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
func (s *Signer) Sign(doc map[string]any) (map[string]any, error) {
	sig, err := s.signature(doc)
	if err != nil {
		return nil, err
	}
	out := maps.Clone(doc)
	if out == nil {
		out = map[string]any{}
	}
	out[signatureMember] = sig
	return out, nil
}

// signature computes the signature block for doc.
func (s *Signer) signature(doc map[string]any) (map[string]any, error) {
	msg, err := signingInput(doc)
	if err != nil {
		return nil, err
	}
	value := base64.RawURLEncoding.EncodeToString(ed25519.Sign(s.priv, msg))
	return map[string]any{"alg": AlgEdDSA, "kid": s.kid, "value": value}, nil
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
	signed, err := s.Sign(doc)
	if err != nil {
		return nil, err
	}
	return canonicalJSON(signed)
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
