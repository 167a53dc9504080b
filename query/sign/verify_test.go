package sign

import (
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
)

func TestVerifyWrongKey(t *testing.T) {
	s := testSigner(t)
	signed, _ := s.Sign(decodeObj(t, sampleResponse))
	err := Verify(signed, otherKey(t))
	if !errors.Is(err, ErrBadSignature) || !strings.Contains(err.Error(), "/signature/value") {
		t.Fatalf("Verify(other key) = %v", err)
	}
	if err := Verify(signed, s.PublicKey()[:31]); !errors.Is(err, ErrInvalidKey) {
		t.Fatalf("Verify(31-byte key) = %v, want ErrInvalidKey", err)
	}
}

func TestVerifyMissingSignature(t *testing.T) {
	err := Verify(decodeObj(t, `{"a":1}`), otherKey(t))
	if !errors.Is(err, ErrNoSignature) || errors.Is(err, ErrBadSignature) {
		t.Fatalf("Verify(unsigned) = %v, want ErrNoSignature", err)
	}
	if err := Verify(nil, otherKey(t)); !errors.Is(err, ErrNoSignature) {
		t.Fatalf("Verify(nil) = %v", err)
	}
}

func TestVerifyMalformedBlock(t *testing.T) {
	s := testSigner(t)
	signed, _ := s.Sign(map[string]any{"a": "b"})
	good := signed["signature"].(map[string]any)
	value := good["value"].(string)
	raw, _ := base64.RawURLEncoding.DecodeString(value)
	// Changing the last character only in its 4 unused bits decodes to the
	// same bytes without Strict; it must still be refused.
	last := value[len(value)-1]
	sibling := string(rune(last + 1))
	cases := []struct {
		sig  any
		want error
		at   string
	}{
		{"abc", ErrBadSignature, "/signature: is a string"},
		{map[string]any{"alg": "ES256", "value": value}, ErrUnsupportedAlg, `/signature/alg: "ES256" is not supported`},
		{map[string]any{"alg": "eddsa", "value": value}, ErrUnsupportedAlg, "/signature/alg"},
		{map[string]any{"value": value}, ErrBadSignature, "/signature/alg: missing"},
		{map[string]any{"alg": true, "value": value}, ErrBadSignature, "/signature/alg: is a boolean"},
		{map[string]any{"alg": "EdDSA"}, ErrBadSignature, "/signature/value: missing"},
		{map[string]any{"alg": "EdDSA", "value": 5}, ErrBadSignature, "/signature/value: is a"},
		{map[string]any{"alg": "EdDSA", "value": value + "=="}, ErrBadSignature, "not base64url"},
		{map[string]any{"alg": "EdDSA", "value": base64.StdEncoding.EncodeToString(raw)}, ErrBadSignature, "not base64url"},
		{map[string]any{"alg": "EdDSA", "value": value[:len(value)-1] + sibling}, ErrBadSignature, "/signature/value"},
		{map[string]any{"alg": "EdDSA", "value": value[:80]}, ErrBadSignature, "decodes to 60 bytes"},
		{map[string]any{"alg": "EdDSA", "value": value, "kid": 7}, ErrBadSignature, "/signature/kid: is a"},
		{map[string]any{"alg": "EdDSA", "value": value, "created": "now"}, ErrBadSignature, "/signature/created: unknown member"},
	}
	for _, c := range cases {
		doc := map[string]any{"a": "b", "signature": c.sig}
		err := Verify(doc, s.PublicKey())
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.at) {
			t.Errorf("Verify(signature %v) = %v, want %v containing %q", c.sig, err, c.want, c.at)
		}
		var se *SignatureError
		if !errors.As(err, &se) {
			t.Errorf("Verify(signature %v) = %T, want *SignatureError", c.sig, err)
		}
	}
	// The kid is not consulted when the key is given.
	doc := map[string]any{"a": "b", "signature": map[string]any{"alg": "EdDSA", "value": value, "kid": "anything"}}
	if err := Verify(doc, s.PublicKey()); err != nil {
		t.Errorf("Verify with another kid = %v", err)
	}
	if err := Verify(doc, ed25519.PublicKey(raw[:32])); !errors.Is(err, ErrBadSignature) {
		t.Errorf("Verify under a random key = %v", err)
	}
}
