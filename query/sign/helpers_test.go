package sign

import (
	"crypto/ed25519"
	"testing"

	"github.com/aqlstore/aqlstore/canon"
)

// testSigner is the signer of the did:key spec's first vector (seed 0).
func testSigner(t testing.TB) *Signer {
	t.Helper()
	return NewSigner(vectorKey(t, didKeyVectors[0].seed))
}

// otherKey is the public key of the spec's second vector (seed 1).
func otherKey(t testing.TB) ed25519.PublicKey {
	t.Helper()
	return vectorKey(t, didKeyVectors[1].seed).Public().(ed25519.PublicKey)
}

func decodeObj(t testing.TB, s string) map[string]any {
	t.Helper()
	v, err := canon.Decode([]byte(s), nil)
	if err != nil {
		t.Fatalf("decode %s: %v", s, err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("%s is not an object", s)
	}
	return m
}

func encode(v any) []byte { return canon.AppendValue(nil, v) }

// sampleResponse is an intent response with nesting, numbers, unicode and
// escapes: the kind of document a resolver signs.
const sampleResponse = `{
  "response_id": "urn:oap:intent-response:1",
  "intent_id": "urn:oap:intent:demo",
  "resolver_did": "did:web:resolver.example",
  "evaluated_at": "2026-06-01T12:00:00Z",
  "candidates": [
    {"candidate_id": "c1", "rank": 1, "score": 0.92,
     "payload": {"name": "Läufer — Ultra 🏃", "price": {"amount": "99.90", "currency": "EUR"},
                 "tags": ["trail", "日本語", "\u2028", "quote\"back\\slash"], "stock": 1e2},
     "decision_record": {"passed": true, "constraint_evaluations": []}}
  ],
  "rejected": []
}`
