package canon

import (
	"errors"
	"strings"
	"testing"
)

func TestDetectKindAndNaturalKey(t *testing.T) {
	cases := []struct {
		in   string
		kind Kind
		key  string
	}{
		{`{"oap_version":"1.0","tool":{"did":"did:web:a.example","version":"1.2.0"}}`, KindManifest, "did:web:a.example@1.2.0"},
		{`{"manifest_id":"m-1","x":1}`, KindManifest, "m-1"},
		{`{"intent_id":"urn:i:1","issuer_did":"did:web:b","constraints":[]}`, KindIntent, "urn:i:1"},
		{`{"id":"send","version":"2","side_effects":"none"}`, KindAction, "send@2"},
		{`{"offer_id":"o-9"}`, KindOffer, "o-9"},
		{`{"node_id":"n-1"}`, KindKnowledge, "n-1"},
		{`{"receipt_id":"r-1"}`, KindReceipt, "r-1"},
		{`{"message_id":"msg-1"}`, KindMessage, "msg-1"},
		{`{"anything":"else"}`, KindJSON, ""},
		{`[1,2]`, KindJSON, ""},
	}
	for _, c := range cases {
		d, err := ParseDocument([]byte(c.in), "", nil)
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		if d.Kind != c.kind || d.NaturalKey != c.key {
			t.Errorf("%s: kind %s key %q, want %s %q", c.in, d.Kind, d.NaturalKey, c.kind, c.key)
		}
	}
}

func TestCandidateShape(t *testing.T) {
	in := `{"id":"shop-a:sku-001","score":0.92,"cost":"79.99",
		"quality":{"performance_score":0.84,"conformance_level":"L2"},
		"record":{"category":"running_shoes","price":{"amount":"79.99","currency":"EUR"}}}`
	d, err := ParseDocument([]byte(in), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.Kind != KindCandidate || d.NaturalKey != "shop-a:sku-001" {
		t.Fatalf("kind %s key %q", d.Kind, d.NaturalKey)
	}
	if want := `{"category":"running_shoes","price":{"amount":"79.99","currency":"EUR"}}`; string(d.Canonical) != want {
		t.Errorf("stored record %s, want %s", d.Canonical, want)
	}
	s := d.Signals
	if s == nil || s.Score != "0.92" || s.Cost.Amount != "79.99" || s.Quality["conformance_level"] != "L2" {
		t.Errorf("signals %+v", s)
	}
}

func TestParseDocumentErrors(t *testing.T) {
	cases := []struct {
		in       string
		kind     Kind
		sentinel error
		contains string
	}{
		{`{"a":1}`, "nosuchkind", ErrUnknownKind, "known kinds"},
		{`{"a":1}`, KindOffer, ErrInvalidDocument, "/offer_id"},
		{`{"tool":{"did":"did:web:x"}}`, KindManifest, ErrInvalidDocument, "/tool/version"},
		{`{"id":"c","record":{},"cost":"ten"}`, "", ErrInvalidDocument, "/cost"},
		{`{"id":"c","record":{},"score":"high"}`, "", ErrInvalidDocument, "/score"},
		{`{"id":"c","record":{},"cost":{"amount":"1.0","currency":""}}`, "", ErrInvalidDocument, "/cost/currency"},
		{`{"a":1,"a":1}`, "", ErrDuplicateName, "duplicate"},
	}
	for _, c := range cases {
		_, err := ParseDocument([]byte(c.in), c.kind, nil)
		if !errors.Is(err, c.sentinel) || !strings.Contains(err.Error(), c.contains) {
			t.Errorf("%s (kind %q): err %v, want %v mentioning %q", c.in, c.kind, err, c.sentinel, c.contains)
		}
	}
}

// TestNaturalKeyOfRawBytes: NaturalKey reads compact bytes that are not
// canonical (members out of order) exactly as ParseDocument reads the
// canonical form, manifest_id taking precedence over tool did@version.
func TestNaturalKeyOfRawBytes(t *testing.T) {
	for _, raw := range []string{
		`{"tool":{"version":"1.2.0","did":"did:web:a.example"},"oap_version":"1.0"}`,
		`{"tool":{"version":"1.2.0","did":"did:web:a.example"},"manifest_id":"m-1","oap_version":"1.0"}`,
	} {
		doc, err := ParseDocument([]byte(raw), KindManifest, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := NaturalKey(KindManifest, []byte(raw))
		if err != nil || got != doc.NaturalKey || got == "" {
			t.Errorf("NaturalKey(%s) = %q, %v; ParseDocument says %q", raw, got, err, doc.NaturalKey)
		}
	}
	if _, err := NaturalKey(KindManifest, []byte(`{"tool":{"did":"did:web:a.example"}}`)); err == nil {
		t.Error("a manifest without /tool/version has a natural key")
	}
}
