package sign

import (
	"crypto/ed25519"
	"errors"
	"testing"
)

func TestVerifyIntent(t *testing.T) {
	issuer := testSigner(t)
	stranger := NewSigner(vectorKey(t, didKeyVectors[2].seed))
	trust := &KeyResolver{Trust: map[string]ed25519.PublicKey{"did:web:agent.example": issuer.PublicKey()}}
	intent := func(issuerDID string) map[string]any {
		return map[string]any{"intent_id": "urn:oap:intent:1", "issuer_did": issuerDID, "category": "discovery"}
	}
	signed := func(s *Signer, doc map[string]any) map[string]any {
		out, err := s.Sign(doc)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	tampered := func(doc map[string]any) map[string]any {
		doc["category"] = "commercial"
		return doc
	}
	withSig := func(doc map[string]any, sig map[string]any) map[string]any {
		doc["signature"] = sig
		return doc
	}
	demo := map[string]any{"alg": "EdDSA", "value": "demo-signature"}
	cases := []struct {
		name string
		doc  map[string]any
		r    Resolver
		want Verdict
		err  error
	}{
		{"did:web in trust, good signature", signed(issuer, intent("did:web:agent.example")), trust, VerifiedSignature, nil},
		{"did:key issuer, no resolver", signed(issuer, intent(issuer.DID())), nil, VerifiedSignature, nil},
		{"did:key issuer, kid stripped", stripKid(signed(issuer, intent(issuer.DID()))), nil, VerifiedSignature, nil},
		{"did:web in trust, tampered", tampered(signed(issuer, intent("did:web:agent.example"))), trust, Refused, ErrBadSignature},
		{"did:web in trust, signed by another key", signed(stranger, intent("did:web:agent.example")), trust, Refused, ErrBadSignature},
		{"did:web in trust, kid of another key", stripKidTo(signed(issuer, intent("did:web:agent.example")), stranger.KeyID()), trust, Refused, ErrBadSignature},
		{"did:key issuer, signed by another key", signed(stranger, intent(issuer.DID())), nil, Refused, ErrBadSignature},
		{"did:web in trust, unsigned", intent("did:web:agent.example"), trust, Refused, ErrNoSignature},
		{"did:web in trust, demo signature", withSig(intent("did:web:agent.example"), demo), trust, Refused, ErrBadSignature},
		{"did:web in trust, ES256", withSig(intent("did:web:agent.example"), map[string]any{"alg": "ES256", "value": "x"}), trust, Refused, ErrUnsupportedAlg},
		{"did:web unknown, demo signature", withSig(intent("did:web:other.example"), demo), trust, UnresolvedIssuer, nil},
		{"did:web unknown, unsigned", intent("did:web:other.example"), trust, UnresolvedIssuer, nil},
		{"did:web, nil resolver", withSig(intent("did:web:agent.example"), demo), nil, UnresolvedIssuer, nil},
		{"did:web unknown, good did:key kid", signed(stranger, intent("did:web:other.example")), trust, UnresolvedIssuer, nil},
		{"did:web unknown, did:key kid, tampered", tampered(signed(stranger, intent("did:web:other.example"))), trust, Refused, ErrBadSignature},
		{"did:web unknown, malformed did:key kid", stripKidTo(signed(stranger, intent("did:web:other.example")), "did:key:zzz"), trust, Refused, ErrBadSignature},
		{"no issuer_did", withSig(map[string]any{"a": 1}, demo), trust, UnresolvedIssuer, nil},
		{"nil intent", nil, trust, UnresolvedIssuer, nil},
	}
	for _, c := range cases {
		got, err := VerifyIntent(c.doc, c.r)
		if got != c.want || (c.err == nil) != (err == nil) || (c.err != nil && !errors.Is(err, c.err)) {
			t.Errorf("%s: VerifyIntent = %v, %v; want %v, %v", c.name, got, err, c.want, c.err)
		}
	}
}

func stripKid(doc map[string]any) map[string]any {
	delete(doc["signature"].(map[string]any), "kid")
	return doc
}

func stripKidTo(doc map[string]any, kid string) map[string]any {
	doc["signature"].(map[string]any)["kid"] = kid
	return doc
}

func TestVerdictString(t *testing.T) {
	for v, want := range map[Verdict]string{Refused: "refused", VerifiedSignature: "verified_signature", UnresolvedIssuer: "unresolved_issuer", 9: "Verdict(9)"} {
		if v.String() != want {
			t.Errorf("%d.String() = %s", int(v), v)
		}
	}
}
