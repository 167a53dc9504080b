package sign

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aqlstore/aqlstore/canon"
)

// canonSentinels are the decode errors a document to sign or verify may
// be refused with before signing is reached.
var canonSentinels = []error{canon.ErrSyntax, canon.ErrDuplicateName, canon.ErrInvalidUTF8, canon.ErrLimit}

func isAny(err error, targets ...error) bool {
	for _, t := range targets {
		if errors.Is(err, t) {
			return true
		}
	}
	return false
}

// FuzzSignVerify holds signing to its promises on any input: what
// SignBytes signs verifies, is RFC 8785 by canon's canonicalizer (a
// differential between this package's encoder and jsontext's), and its
// signature covers exactly canon's canonical bytes of the document without
// its signature member; another key does not verify it. Verify and
// VerifyIntent on the raw input never panic and refuse only with the
// documented errors; VerifyIntent's verdict is Refused exactly when it
// errs.
func FuzzSignVerify(f *testing.F) {
	s := testSigner(f)
	for _, doc := range []string{`{}`, `{"a":1,"b":[true,null,"x"]}`, `{"signature":{"alg":"EdDSA","value":"x"},"n":-0}`,
		`{"n":[1e21,1e-7,5e-324,1.7976931348623157e308,0.1,100.00]}`, `{"s":"\u00e9\ud83d\ude00\u2028\"\\\u0001","\u20ac":1,"€€":2}`,
		`{"issuer_did":"` + s.DID() + `","signature":{"alg":"EdDSA","kid":"` + s.KeyID() + `","value":"AA"}}`,
		`{"a":1e400}`, `[1]`, `{"a":1,"a":2}`, `{"signature":{"alg":"RS256","value":"AA"}}`, `{"signature":{"alg":"EdDSA","value":"AA","x":1}}`} {
		f.Add([]byte(doc))
		if signed, err := s.SignBytes([]byte(doc)); err == nil {
			f.Add(signed)
		}
	}
	other := otherKey(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		checkVerifyAny(t, b, s.PublicKey())
		signed, err := s.SignBytes(b)
		if err != nil {
			if !isAny(err, append(canonSentinels, ErrNotObject, ErrUnsignable)...) {
				t.Fatalf("SignBytes(%q): undocumented error %v", b, err)
			}
			return
		}
		if err := VerifyBytes(signed, s.PublicKey()); err != nil {
			t.Fatalf("signed %q does not verify: %v", signed, err)
		}
		if err := VerifyBytes(signed, other); !errors.Is(err, ErrBadSignature) {
			t.Fatalf("signed %q verifies under another key: %v", signed, err)
		}
		c, err := canon.Canonicalize(nil, signed, &canon.Limits{MaxBytes: 1 << 30, MaxDepth: canon.MaxWriteDepth + 1, MaxMembers: 1 << 30})
		if err != nil || !bytes.Equal(c, signed) {
			t.Fatalf("signed bytes are not RFC 8785:\nsign  %q\ncanon %q (%v)", signed, c, err)
		}
		checkSignedBody(t, signed, s.PublicKey())
	})
}

// checkSignedBody checks that the signature of signed covers canon's
// canonical bytes of signed without its signature member.
func checkSignedBody(t *testing.T, signed []byte, pub ed25519.PublicKey) {
	v, err := canon.Decode(signed, &canon.Limits{MaxBytes: 1 << 30, MaxDepth: canon.MaxWriteDepth + 1, MaxMembers: 1 << 30})
	if err != nil {
		t.Fatalf("signed bytes do not decode: %v", err)
	}
	doc := v.(map[string]any)
	sig, err := base64.RawURLEncoding.DecodeString(doc[signatureMember].(map[string]any)["value"].(string))
	if err != nil {
		t.Fatal(err)
	}
	delete(doc, signatureMember)
	body, err := canon.Canonicalize(nil, canon.AppendValue(nil, doc), &canon.Limits{MaxBytes: 1 << 30, MaxDepth: canon.MaxWriteDepth + 1, MaxMembers: 1 << 30})
	if err != nil || !ed25519.Verify(pub, body, sig) {
		t.Fatalf("the signature does not cover canon's bytes %q (%v)", body, err)
	}
}

// checkVerifyAny runs the verifiers on arbitrary bytes.
func checkVerifyAny(t *testing.T, b []byte, pub ed25519.PublicKey) {
	err := VerifyBytes(b, pub)
	var se *SignatureError
	switch {
	case err == nil, isAny(err, append(canonSentinels, ErrNotObject, ErrUnsignable)...):
	case errors.As(err, &se):
		if se.Pointer != "/signature" && !strings.HasPrefix(se.Pointer, "/signature/") || se.Reason == "" {
			t.Fatalf("signature error %+v", *se)
		}
	default:
		t.Fatalf("VerifyBytes(%q): undocumented error %v", b, err)
	}
	doc, err := decodeObject(b)
	if err != nil {
		return
	}
	verdict, err := VerifyIntent(doc, &KeyResolver{Trust: map[string]ed25519.PublicKey{"did:web:trusted.example": pub}})
	if (verdict == Refused) != (err != nil) {
		t.Fatalf("VerifyIntent(%q) = %v, %v", b, verdict, err)
	}
	if err != nil && !isAny(err, ErrBadSignature, ErrNoSignature, ErrUnsupportedAlg, ErrInvalidKey, ErrUnsignable) {
		t.Fatalf("VerifyIntent(%q): undocumented error %v", b, err)
	}
}

// FuzzParseJWK: a key file is accepted only as an Ed25519 private JWK
// whose x belongs to its d, and the key written back (encodeJWK) reads as
// the same key; any other file is ErrKeyFile naming the file.
func FuzzParseJWK(f *testing.F) {
	f.Add(encodeJWK(vectorKey(f, didKeyVectors[0].seed)))
	x := `"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"`
	d := `"nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A"`
	for _, s := range []string{``, `not json`, `[1]`, `{"kty":"EC","crv":"Ed25519","d":` + d + `,"x":` + x + `}`,
		`{"kty":"OKP","crv":"Ed25519","d":` + d + `,"x":` + x + `}`, `{"kty":"OKP","crv":"Ed25519","d":"a+b/","x":` + x + `}`,
		`{"kty":"OKP","crv":"Ed25519","d":` + d + `,"x":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}`} {
		f.Add([]byte(s))
	}
	const path = "/keys/key.jwk"
	f.Fuzz(func(t *testing.T, b []byte) {
		priv, err := parseJWK(path, b)
		if err != nil {
			if priv != nil || !errors.Is(err, ErrKeyFile) || !strings.Contains(err.Error(), path) {
				t.Fatalf("parseJWK(%q) = %x, %v; want ErrKeyFile naming the file", b, priv, err)
			}
			return
		}
		if len(priv) != ed25519.PrivateKeySize || !bytes.Equal(ed25519.NewKeyFromSeed(priv.Seed()), priv) {
			t.Fatalf("parseJWK(%q) = a malformed key %x", b, priv)
		}
		again, err := parseJWK(path, encodeJWK(priv))
		if err != nil || !again.Equal(priv) {
			t.Fatalf("the key of %q written back reads as %x, %v", b, again, err)
		}
	})
}

// FuzzTrustFile: a trust file is accepted only when every entry names a
// DID without fragment and an Ed25519 key; every entry then resolves to
// its key (a did:key entry to the key it encodes), and the file written
// back with did:key values loads to the same resolver; any other file is
// ErrTrustFile naming the file.
func FuzzTrustFile(f *testing.F) {
	a := testSigner(f).DID()
	b := DIDKey(otherKey(f))
	for _, s := range []string{`{"did:web:agent.example": "` + a + `", "did:web:shop.example": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo", "` + a + `": "` + a + `"}`,
		`{`, `["did:web:x"]`, `{"agent.example": "` + a + `"}`, `{"did:web:a.example#key-1": "` + a + `"}`, `{"did:web:a.example": 5}`,
		`{"did:web:a.example": "did:key:z6MkBAD"}`, `{"did:web:a.example": "AAAA"}`, `{"` + a + `": "` + b + `"}`, `{}`} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	path := filepath.Join(dir, "trust.json")
	f.Fuzz(func(t *testing.T, content []byte) {
		if err := os.WriteFile(path, content, 0o600); err != nil {
			t.Fatal(err)
		}
		r, err := LoadTrustFile(path)
		if err != nil {
			if r != nil || !errors.Is(err, ErrTrustFile) || !strings.Contains(err.Error(), path) {
				t.Fatalf("LoadTrustFile(%q) = %v; want ErrTrustFile naming the file", content, err)
			}
			return
		}
		back := map[string]any{}
		for did, pub := range r.Trust {
			got, ok := r.Resolve(did + "#key-1")
			if len(pub) != ed25519.PublicKeySize || !ok || !got.Equal(pub) || strings.HasPrefix(did, "did:key:") && DIDKey(pub) != did {
				t.Fatalf("entry %q: key %x resolves to %x, %v", did, pub, got, ok)
			}
			back[did] = DIDKey(pub)
		}
		if err := os.WriteFile(path, canon.AppendValue(nil, back), 0o600); err != nil {
			t.Fatal(err)
		}
		again, err := LoadTrustFile(path)
		if err != nil || len(again.Trust) != len(r.Trust) {
			t.Fatalf("the trust file written back does not load alike: %v", err)
		}
		for did, pub := range r.Trust {
			if !again.Trust[did].Equal(pub) {
				t.Fatalf("entry %q changed when written back", did)
			}
		}
	})
}
