package sign

import (
	"crypto/ed25519"
	"encoding/base64"
	"fmt"

	"github.com/aqlstore/aqlstore/canon"
)

// sigBlock is a parsed signature member.
type sigBlock struct {
	kid   string // "" when absent
	value []byte
}

// Verify checks doc's signature under pub. It returns nil only when the
// signature block is well formed, its alg is EdDSA and its value is an
// Ed25519 signature by pub over the RFC 8785 bytes of doc without the
// signature member. The kid is not consulted: pub is the key. Errors are a
// *SignatureError wrapping ErrNoSignature, ErrBadSignature or
// ErrUnsupportedAlg, or wrap ErrInvalidKey or ErrUnsignable.
func Verify(doc map[string]any, pub ed25519.PublicKey) error {
	if len(pub) != ed25519.PublicKeySize {
		return fmt.Errorf("%w: %d bytes, want %d", ErrInvalidKey, len(pub), ed25519.PublicKeySize)
	}
	sig, err := parseSignature(doc)
	if err != nil {
		return err
	}
	e, err := newBody(doc)
	defer e.release()
	if err != nil {
		return err
	}
	if !ed25519.Verify(pub, e.buf, sig.value) {
		return &SignatureError{Pointer: "/signature/value", Err: ErrBadSignature,
			Reason: fmt.Sprintf("does not verify under key %s: the document changed after signing, or another key signed it", DIDKey(pub))}
	}
	return nil
}

// VerifyBytes is Verify for an encoded document, decoded strictly first
// (canon.Decode). Numbers and strings may be written in any form that
// canonicalizes to the signed bytes.
func VerifyBytes(b []byte, pub ed25519.PublicKey) error {
	doc, err := decodeObject(b)
	if err != nil {
		return err
	}
	return Verify(doc, pub)
}

// parseSignature reads doc's signature member. Unknown members are refused,
// as oap-intent(-response).schema.json has additionalProperties false.
func parseSignature(doc map[string]any) (*sigBlock, error) {
	raw, ok := doc[signatureMember]
	if !ok {
		return nil, &SignatureError{Pointer: "/signature", Err: ErrNoSignature,
			Reason: "the document has no signature member; sign it before sending"}
	}
	m, ok := raw.(map[string]any)
	if !ok {
		return nil, badSig("/signature", fmt.Sprintf("is %s, want an object {alg, kid, value}", canon.TypeName(raw)))
	}
	if err := checkSigMembers(m); err != nil {
		return nil, err
	}
	if err := checkAlg(m); err != nil {
		return nil, err
	}
	kid, err := optionalString(m, "kid")
	if err != nil {
		return nil, err
	}
	value, err := sigValue(m)
	if err != nil {
		return nil, err
	}
	return &sigBlock{kid: kid, value: value}, nil
}

func checkSigMembers(m map[string]any) error {
	for k := range m {
		if k != "alg" && k != "kid" && k != "value" {
			return badSig("/signature/"+escape(k), "unknown member; a signature has only alg, kid and value")
		}
	}
	return nil
}

func checkAlg(m map[string]any) error {
	alg, ok := m["alg"]
	if !ok {
		return badSig("/signature/alg", `missing; want "EdDSA"`)
	}
	s, ok := alg.(string)
	if !ok {
		return badSig("/signature/alg", fmt.Sprintf(`is %s, want the string "EdDSA"`, canon.TypeName(alg)))
	}
	if s != AlgEdDSA {
		return &SignatureError{Pointer: "/signature/alg", Err: ErrUnsupportedAlg,
			Reason: fmt.Sprintf(`%s is not supported; only "EdDSA" (Ed25519) is`, quoteShort(s))}
	}
	return nil
}

func optionalString(m map[string]any, name string) (string, error) {
	v, ok := m[name]
	if !ok {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", badSig("/signature/"+name, fmt.Sprintf("is %s, want a string", canon.TypeName(v)))
	}
	return s, nil
}

// sigValue decodes the signature value. Strict decoding refuses non-zero
// padding bits, so no two texts of value decode to the same signature.
func sigValue(m map[string]any) ([]byte, error) {
	v, ok := m["value"]
	if !ok {
		return nil, badSig("/signature/value", "missing")
	}
	s, ok := v.(string)
	if !ok {
		return nil, badSig("/signature/value", fmt.Sprintf("is %s, want a base64url string", canon.TypeName(v)))
	}
	b, err := base64.RawURLEncoding.Strict().DecodeString(s)
	if err != nil {
		return nil, badSig("/signature/value", "is not base64url without padding (RFC 4648 §5): "+err.Error())
	}
	if len(b) != ed25519.SignatureSize {
		return nil, badSig("/signature/value", fmt.Sprintf("decodes to %d bytes, an Ed25519 signature is %d", len(b), ed25519.SignatureSize))
	}
	return b, nil
}

func badSig(ptr, reason string) error {
	return &SignatureError{Pointer: ptr, Reason: reason, Err: ErrBadSignature}
}

// escape writes a member name as a JSON Pointer token.
func escape(name string) string {
	return string(canon.EscapeSegment(nil, name))
}
