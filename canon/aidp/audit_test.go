package aidp

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"testing"
)

// TestAuditDigest checks the §11.6.9 record against one written out by
// hand, hashed with crypto/sha256 directly.
func TestAuditDigest(t *testing.T) {
	ie := mustParse(t, baseIE).Envelope
	ob := mustParse(t, baseOB).Observation
	rec, sum, err := AuditDigest(ie, ob)
	if err != nil {
		t.Fatal(err)
	}
	body := sha256.Sum256([]byte(`{"action":"payment.create","parameters":{"amount":50,"currency":"EUR","memo":"invoice-8841"},` +
		`"target":{"domain":"svc:payments","resource":"acct:merchant-123"}}`))
	want := fmt.Sprintf(`{"actor_ref":{"agent_id":"agent:alpha","identity_ref":"urn:aidp:id:issuerA:agent-alpha","issuer":"did:example:issuerA"},`+
		`"authority_ref":{"cap_id":"cap:alpha:pay-v1","cap_ref":"urn:aidp:cap:authA:cap-alpha-pay-v1","issuer":"did:example:authA","rev_ref":"urn:aidp:rev:authA:list-01"},`+
		`"envelope_id":"%s","execution_id":"exec-9c2d1a","intent_body_digest":"sha256:%x"}`, exampleEnvelopeID, body)
	if got := string(encode(rec)); got != want {
		t.Fatalf("record\n%s\nwant\n%s", got, want)
	}
	if wantSum := sha256.Sum256([]byte(want)); sum.String() != hex.EncodeToString(wantSum[:]) {
		t.Errorf("digest %s, want %x", sum, wantSum)
	}
	if d, _ := IntentDigest(ie); d != body {
		t.Errorf("IntentDigest %s", d)
	}
}

// TestAuditDigestBindsIntentBody: the same envelope with another
// parameter (or the same body written differently) gives another (or the
// same) record digest.
func TestAuditDigestBindsIntentBody(t *testing.T) {
	ob := mustParse(t, baseOB).Observation
	_, base, _ := AuditDigest(mustParse(t, baseIE).Envelope, ob)

	doc := decodeExample(t, baseIE)
	edit(t, doc, "/payload/intent_body/parameters/amount", num("50.0"))
	m, err := Parse(encode(doc), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, same, _ := AuditDigest(m.Envelope, ob); same != base {
		t.Error("50.0 and 50 are the same JSON number but digest differently")
	}
	edit(t, doc, "/payload/intent_body/parameters/amount", num("5000"))
	m, _ = Parse(encode(doc), nil)
	if _, other, _ := AuditDigest(m.Envelope, ob); other == base {
		t.Error("a changed amount does not change the audit digest")
	}
}

func TestAuditDigestNotBound(t *testing.T) {
	ie := mustParse(t, baseIE).Envelope
	doc := decodeExample(t, baseOB)
	edit(t, doc, "/payload/envelope_id", "another")
	ob, err := Parse(encode(doc), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := AuditDigest(ie, ob.Observation); !errors.Is(err, ErrNotBound) {
		t.Errorf("AuditDigest of a foreign OB: %v", err)
	}
	if _, _, err := AuditDigest(nil, ob.Observation); err == nil {
		t.Error("AuditDigest(nil, ob) succeeded")
	}
	if err := Bind(ie, ob.Observation); !errors.Is(err, ErrNotBound) {
		t.Errorf("Bind of a foreign OB: %v", err)
	}
}

// TestBind: an OB must carry every member the IE's hooks require.
func TestBind(t *testing.T) {
	ie := mustParse(t, baseIE).Envelope
	if err := Bind(ie, mustParse(t, baseOB).Observation); err != nil {
		t.Fatal(err)
	}
	doc := decodeExample(t, baseIE)
	edit(t, doc, "/payload/observability_hooks/required_fields", []any{"status", "execution_advice", "execution_advice"})
	ie = mustParseBytes(t, encode(doc)).Envelope
	err := Bind(ie, mustParse(t, baseOB).Observation)
	var l ErrorList
	if !errors.As(err, &l) || len(l) != 1 || l[0].Pointer != "/payload/execution_advice" || !errors.Is(err, ErrMalformedMessage) {
		t.Errorf("Bind without a required field: %v", err)
	}
}

func mustParseBytes(t *testing.T, b []byte) *Message {
	t.Helper()
	m, err := Parse(b, nil)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
