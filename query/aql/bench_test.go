package aql

import "testing"

// pointIntent is the body `aqlbench loadtest --lookups` posts.
var pointIntent = []byte(`{"category":"discovery","constraints":{"operator":"eq","path":"/tool/id","value":"tool-1-4242"},` +
	`"intent_id":"urn:oap:intent:loadtest","issuer_did":"did:web:loadtest.example",` +
	`"projection":{"include":["/tool/name"]},"signature":{"alg":"EdDSA","value":"unsigned"},` +
	`"validity":{"from":"2026-05-01T00:00:00Z","to":"2026-06-01T00:00:00Z"}}`)

// BenchmarkParse parses and checks the load test's point-query intent,
// as the server does for every request.
func BenchmarkParse(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(pointIntent, nil); err != nil {
			b.Fatal(err)
		}
	}
}
