package sign

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/go-json-experiment/json/jsontext"
)

// typicalResponse builds an IntentResponse the way query.Response.unsigned
// does (query/response.go), with the Go types it uses: rank and score as
// canon.Number, payloads and constraint values as canon.Decode gives them.
// Each candidate is the discovery example's (shared/vectors/oap
// examples/aql): four evaluations, a projected payload of four members;
// two candidates are rejected.
func typicalResponse(n int) map[string]any {
	cands := make([]any, n)
	for i := range cands {
		cands[i] = map[string]any{
			"candidate_id":    fmt.Sprintf("shop-%d:sku-%03d", i%7, i),
			"rank":            canon.Number(strconv.Itoa(i + 1)),
			"score":           canon.Number(strconv.FormatFloat(0.99-float64(i)/1000, 'f', -1, 64)),
			"payload":         typicalPayload(i),
			"decision_record": typicalRecord(i, "accept", true),
		}
	}
	rejected := make([]any, 2)
	for i := range rejected {
		rejected[i] = map[string]any{"candidate_id": fmt.Sprintf("shop-x:sku-%03d", i),
			"decision_record": typicalRecord(n+i, "reject", false)}
	}
	return map[string]any{
		"response_id":   "urn:oap:intent-response:719fa956d041ec567eddfac65d48756a",
		"intent_id":     "urn:oap:intent:demo-discovery-1",
		"resolver_did":  "did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp",
		"resolver_role": "resolver",
		"evaluated_at":  "2026-05-04T00:00:00Z",
		"candidates":    cands,
		"rejected":      rejected,
	}
}

func typicalPayload(i int) map[string]any {
	return map[string]any{
		"manifest_id": fmt.Sprintf("manifest:shop-%d:sku-%03d", i%7, i),
		"seller_did":  fmt.Sprintf("did:web:shop-%d.example", i%7),
		"price":       map[string]any{"amount": fmt.Sprintf("%d.99", 50+i%50), "currency": "EUR"},
		"inventory":   map[string]any{"available": canon.Number(strconv.Itoa(1 + i%40))},
	}
}

func typicalRecord(i int, outcome string, passed bool) map[string]any {
	eval := func(path, op string, value, candidate any, ok bool) any {
		return map[string]any{"path": path, "operator": op, "value": value, "candidate_value": candidate, "passed": ok}
	}
	last := eval("/price/currency", "eq", "EUR", "EUR", passed)
	if !passed {
		last.(map[string]any)["reason"] = "value differs"
	}
	return map[string]any{
		"decision_id":  fmt.Sprintf("urn:oap:decision:719fa956d041ec567eddfac65d48756a-%d", i+1),
		"evaluated_at": "2026-05-04T00:00:00Z",
		"outcome":      outcome,
		"explanation":  "all constraints satisfied",
		"constraint_evaluations": []any{
			eval("/category", "eq", "running_shoes", "running_shoes", true),
			eval("/inventory/available", "gt", canon.Number("0"), canon.Number(strconv.Itoa(1+i%40)), true),
			eval("/price/amount", "lte", "100.00", fmt.Sprintf("%d.99", 50+i%50), true),
			last,
		},
	}
}

// BenchmarkSignResponse signs a typical response and produces the bytes
// sent, three ways:
//
//	old        Sign as it was (plain JSON, jcs.Transform) + canon.AppendValue
//	sign       Sign (one canonical pass) + canon.AppendValue, what callers
//	           that keep using Sign now pay
//	appendSigned  AppendSigned: one canonical pass, whose bytes are sent
func BenchmarkSignResponse(b *testing.B) {
	s := testSigner(b)
	for _, n := range []int{10, 100} {
		doc := typicalResponse(n)
		b.Run(fmt.Sprintf("candidates=%d/old", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				signed, err := legacySign(s, doc)
				if err != nil {
					b.Fatal(err)
				}
				_ = canon.AppendValue(nil, signed)
			}
		})
		b.Run(fmt.Sprintf("candidates=%d/sign", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				signed, err := s.Sign(doc)
				if err != nil {
					b.Fatal(err)
				}
				_ = canon.AppendValue(nil, signed)
			}
		})
		b.Run(fmt.Sprintf("candidates=%d/appendSigned", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := s.AppendSigned(nil, doc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestTypicalResponse keeps the benchmark's document honest: the old and
// new paths agree on it.
func TestTypicalResponse(t *testing.T) {
	s := testSigner(t)
	doc := typicalResponse(10)
	old, err := legacySign(s, doc)
	if err != nil {
		t.Fatal(err)
	}
	b, sig, err := s.AppendSigned(nil, doc)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := legacyCanonicalJSON(old)
	if string(b) != string(want) || sig["value"] != old[signatureMember].(map[string]any)["value"] {
		t.Fatalf("AppendSigned\n%s\nold path\n%s", b, want)
	}
}

// BenchmarkSigningInput compares the ways to the RFC 8785 bytes of a
// typical response without the signature: the one-pass encoder, one
// marshal canonicalized by jsontext (which does not validate what the
// encoder validates), and the old marshal re-parsed by jcs.
func BenchmarkSigningInput(b *testing.B) {
	for _, n := range []int{10, 100} {
		doc := typicalResponse(n)
		b.Run(fmt.Sprintf("candidates=%d/encoder", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := signingInput(doc); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("candidates=%d/jsontext", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				v := jsontext.Value(canon.AppendValue(nil, doc))
				if err := v.Canonicalize(); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("candidates=%d/jcs", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := legacySigningInput(doc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
