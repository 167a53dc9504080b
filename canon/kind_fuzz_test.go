package canon

import (
	"bytes"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// allKinds are the kind names ParseKind knows.
func allKinds() []Kind { return append(Kinds(), MessageKinds()...) }

// FuzzParseKind: a name is accepted exactly when it is one of the kinds,
// and is then that kind; any other name is an ErrUnknownKind
// *DocumentError that lists every known kind, so the user sees the fix.
func FuzzParseKind(f *testing.F) {
	for _, k := range allKinds() {
		f.Add(string(k))
	}
	for _, s := range []string{"", "JSON", "manifest ", "aidp", "aidp-ie\x00", "pairl\n", "exécution"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k, err := ParseKind(s)
		known := slices.Contains(allKinds(), Kind(s))
		if err == nil {
			if !known || string(k) != s {
				t.Fatalf("ParseKind(%q) = %q, want an error: not a kind", s, k)
			}
			return
		}
		var de *DocumentError
		if known || k != "" || !errors.As(err, &de) || !errors.Is(err, ErrUnknownKind) {
			t.Fatalf("ParseKind(%q) = %q, %v; want \"\" and an ErrUnknownKind *DocumentError", s, k, err)
		}
		for _, want := range allKinds() {
			if !strings.Contains(err.Error(), string(want)) {
				t.Fatalf("ParseKind(%q): %v does not list kind %s", s, err, want)
			}
		}
	})
}

// FuzzParseContentID: an id is 64 hex digits in either case, and then its
// String is the input in lowercase; anything else is an error that quotes
// the input.
func FuzzParseContentID(f *testing.F) {
	f.Add(Sum([]byte(`{}`)).String())
	f.Add(strings.ToUpper(Sum(nil).String()))
	for _, s := range []string{"", "00", strings.Repeat("0", 63), strings.Repeat("g", 64), strings.Repeat("0", 65)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, err := ParseContentID(s)
		if err != nil {
			if !id.IsZero() || !strings.HasPrefix(err.Error(), "canon: content id ") {
				t.Fatalf("ParseContentID(%q) = %s, %v", s, id, err)
			}
			return
		}
		if id.String() != strings.ToLower(s) {
			t.Fatalf("ParseContentID(%q) = %s", s, id)
		}
	})
}

// documentSentinels are the errors ParseDocument may return, each the
// sentinel of a *SyntaxError or *DocumentError.
var documentSentinels = []error{ErrSyntax, ErrDuplicateName, ErrInvalidUTF8, ErrLimit, ErrNotCanonicalizable,
	ErrUnknownKind, ErrInvalidDocument}

// FuzzParseDocument runs ParseDocument with every kind (and with
// detection) and checks what it promises: a refusal is a positioned
// error of a documented sentinel; an accepted document has the kind
// asked for (or detected, never a message kind), canonical bytes that are
// a fixed point, the natural key those bytes give, and parses again from
// its canonical bytes to the same document. Detection and the explicit
// kind agree: a document detected as K parses as K to the same result.
func FuzzParseDocument(f *testing.F) {
	for _, s := range []string{
		`{"oap_version":"1.0","tool":{"did":"did:web:a.example","version":"1.2.0"}}`,
		`{"manifest_id":"m-1","x":1}`, `{"intent_id":"urn:i:1","issuer_did":"did:web:b","constraints":[]}`,
		`{"id":"send","version":"2","side_effects":"none"}`, `{"offer_id":"o-9"}`, `{"node_id":"n-1"}`,
		`{"receipt_id":"r-1"}`, `{"message_id":"msg-1"}`, `{"anything":"else"}`, `[1,2]`,
		`{"id":"shop-a:sku-001","score":0.92,"cost":"79.99","quality":{"performance_score":0.84,"conformance_level":"L2"},"record":{"category":"running_shoes"}}`,
		`{"id":"c","record":{},"cost":{"amount":"1.0","currency":""}}`, `{"id":"c","record":{},"cost":{"amount":"1.0","currency":"EUR"}}`,
		`{"id":"c","record":{},"score":"high"}`, `{"a":1,"a":1}`, `{"aidp_version":"1","msg_type":"OB","payload":{}}`,
		`{"schemaVersion":"ExecutionIntent.v1","intentHash":"x"}`, `{"manifest_id":"\u0000"}`, `{"a":1e400}`,
	} {
		f.Add([]byte(s), uint8(0))
	}
	f.Add([]byte(`{"offer_id":"o-1"}`), uint8(4))
	f.Add([]byte(`{"a":1}`), uint8(255))
	f.Fuzz(func(t *testing.T, raw []byte, k uint8) {
		kind := fuzzKind(k)
		d, err := ParseDocument(raw, kind, nil)
		if err != nil {
			checkDocumentError(t, d, err)
			return
		}
		if IsMessageKind(d.Kind) || !slices.Contains(Kinds(), d.Kind) || kind != "" && d.Kind != kind {
			t.Fatalf("asked for kind %q, got %q", kind, d.Kind)
		}
		checkParsedDocument(t, d)
		if kind == "" {
			again, err := ParseDocument(raw, d.Kind, nil)
			if err != nil || !reflect.DeepEqual(again, d) {
				t.Fatalf("detected as %s, but parsing as %s gives %+v, %v", d.Kind, d.Kind, again, err)
			}
		}
	})
}

// fuzzKind picks "" (detect), one of the kinds, or a name that is none.
func fuzzKind(k uint8) Kind {
	all := allKinds()
	switch i := int(k) % (len(all) + 2); {
	case i == 0:
		return ""
	case i <= len(all):
		return all[i-1]
	}
	return "no-such-kind"
}

func checkDocumentError(t *testing.T, d *Document, err error) {
	var se *SyntaxError
	var de *DocumentError
	switch {
	case d != nil && !errors.Is(err, ErrInvalidDocument):
		t.Fatalf("a document %+v with the error %v", d, err)
	case errors.As(err, &se):
		if se.Line < 1 || se.Column < 1 || se.Reason == "" || (se.Pointer != "" && se.Pointer[0] != '/') {
			t.Fatalf("malformed syntax error %+v", *se)
		}
	case errors.As(err, &de):
		if de.Reason == "" || (de.Pointer != "" && de.Pointer[0] != '/') {
			t.Fatalf("malformed document error %+v", *de)
		}
	default:
		t.Fatalf("error %T is neither a *SyntaxError nor a *DocumentError: %v", err, err)
	}
	for _, s := range documentSentinels {
		if errors.Is(err, s) {
			return
		}
	}
	t.Fatalf("error of no documented sentinel: %v", err)
}

// checkParsedDocument checks an accepted document against its own
// canonical bytes.
func checkParsedDocument(t *testing.T, d *Document) {
	c, err := Canonicalize(nil, d.Canonical, &Limits{MaxBytes: len(d.Canonical) + 1, MaxDepth: 1 << 20, MaxMembers: 1 << 30})
	if err != nil || !bytes.Equal(c, d.Canonical) {
		t.Fatalf("canonical bytes %q are not a fixed point: %q, %v", d.Canonical, c, err)
	}
	if d.ID() != Sum(d.Canonical) || d.View != nil {
		t.Fatalf("id or view of %+v", d)
	}
	if d.Kind == KindCandidate {
		checkCandidate(t, d)
		return
	}
	if key, err := NaturalKey(d.Kind, d.Canonical); err != nil || key != d.NaturalKey {
		t.Fatalf("natural key %q, the canonical bytes give %q, %v", d.NaturalKey, key, err)
	}
	again, err := ParseDocument(d.Canonical, d.Kind, &Limits{MaxBytes: len(d.Canonical) + 1, MaxDepth: 1 << 20, MaxMembers: 1 << 30})
	if err != nil || !reflect.DeepEqual(again, d) {
		t.Fatalf("canonical bytes parse to %+v, %v; want %+v", again, err, d)
	}
	if d.Signals != nil {
		t.Fatalf("signals on a %s", d.Kind)
	}
}

// checkCandidate rebuilds the candidate shape from the stored record, its
// key and its signals, and parses it back to the same document: what the
// store keeps of a candidate is enough to put it again (export, import).
func checkCandidate(t *testing.T, d *Document) {
	if d.NaturalKey == "" {
		t.Fatal("a candidate without an id")
	}
	shape := map[string]any{"id": d.NaturalKey}
	rec, err := DecodeCanonical(d.Canonical)
	if err != nil {
		t.Fatalf("record %q: %v", d.Canonical, err)
	}
	shape["record"] = rec
	if d.Signals != nil {
		for k, v := range d.Signals.Value() {
			shape[k] = v
		}
	}
	b := AppendValue(nil, shape)
	again, err := ParseDocument(b, KindCandidate, &Limits{MaxBytes: len(b) + 1, MaxDepth: 1 << 20, MaxMembers: 1 << 30})
	if err != nil || again.NaturalKey != d.NaturalKey || !bytes.Equal(again.Canonical, d.Canonical) ||
		!reflect.DeepEqual(signalsValue(again.Signals), signalsValue(d.Signals)) {
		t.Fatalf("candidate rebuilt as %s parses to %+v, %v; want %+v", b, again, err, d)
	}
}

func signalsValue(s *Signals) any {
	if s == nil {
		return nil
	}
	return s.Value()
}

// TestCandidateNeedsRecord: a candidate put as such without a record was
// once accepted with zero bytes as its stored document (found by
// FuzzParseDocument); the indexed store then failed with an unexplained
// "document 1 is empty".
func TestCandidateNeedsRecord(t *testing.T) {
	_, err := ParseDocument([]byte(`{"id":"0"}`), KindCandidate, nil)
	var de *DocumentError
	if !errors.As(err, &de) || !errors.Is(err, ErrInvalidDocument) || de.Pointer != "/record" {
		t.Fatalf("candidate without a record: %v; want ErrInvalidDocument at /record", err)
	}
}

// TestParseContentIDZeroOnError: a bad digit after good ones once came
// back with the good ones decoded into the id (found by
// FuzzParseContentID).
func TestParseContentIDZeroOnError(t *testing.T) {
	id, err := ParseContentID("01" + strings.Repeat("x", 62))
	if err == nil || !id.IsZero() {
		t.Fatalf("ParseContentID(bad digit) = %s, %v; want the zero id and an error", id, err)
	}
}
