package aidp

import (
	"bytes"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/aqlstore/aqlstore/canon"
)

const exampleEnvelopeID = "0f2e3c1a-9b9a-4a8c-8c2b-2f3b9f3c5a10"

// TestExamples: every retyped example of the draft validates, with the
// type and key its file name and text promise.
func TestExamples(t *testing.T) {
	want := map[string]struct {
		typ MsgType
		key string
	}{
		"ie-19.1.json":                {IE, exampleEnvelopeID},
		"ob-19.2.json":                {OB, exampleEnvelopeID + "\x00exec-9c2d1a"},
		"pd-19.3.json":                {PD, ""},
		"ie-22.14.1.json":             {IE, exampleEnvelopeID},
		"pd-22.14.1-ack.json":         {PD, ""},
		"ob-22.14.1.json":             {OB, exampleEnvelopeID + "\x00exec-9c2d1a"},
		"pd-22.14.1-delivery-ok.json": {PD, ""},
		"pd-22.14.2-revoked.json":     {PD, ""},
		"pd-22.14.3-replay.json":      {PD, ""},
		"pd-22.14.4-constraint.json":  {PD, ""},
	}
	files, _ := filepath.Glob("testdata/*.json")
	if len(files) != len(want) {
		t.Errorf("%d example files, want %d", len(files), len(want))
	}
	for _, f := range files {
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			m, err := Parse(readExample(t, name), nil)
			if err != nil {
				t.Fatal(err)
			}
			w := want[name]
			key, hasKey := m.Key()
			if m.Type != w.typ || key != w.key || hasKey != (w.key != "") {
				t.Errorf("type %s key %q (%v), want %s %q", m.Type, key, hasKey, w.typ, w.key)
			}
			if m.Version != Version || m.Canon != Profile || m.View()["msg_type"] != string(m.Type) {
				t.Errorf("header %q %q %v", m.Version, m.Canon, m.View()["msg_type"])
			}
		})
	}
}

// TestExampleFields spot-checks the typed payloads against the text.
func TestExampleFields(t *testing.T) {
	ie := mustParse(t, "ie-19.1.json").Envelope
	at := time.Date(2026, 1, 13, 7, 14, 0, 0, time.UTC)
	if !ie.Timestamp.Equal(at) || ie.ActorRef.AgentID != "agent:alpha" || ie.AuthorityRef.RevRef != "urn:aidp:rev:authA:list-01" ||
		ie.IntentBody.Action != "payment.create" || ie.IntentBody.Domain != "svc:payments" ||
		*ie.Constraints.MaxUses != 1 || ie.Constraints.RiskTier != "high" || !ie.Constraints.NotAfter.Equal(at.Add(5*time.Minute)) ||
		len(ie.DelegationChain) != 0 || ie.ObservabilityHooks.ReturnTo.Type != "inbox" || *ie.ObservabilityHooks.TimeoutSec != 30 {
		t.Errorf("IE fields: %+v", ie)
	}
	ob := mustParse(t, "ob-19.2.json").Observation
	if ob.Status != StatusExecuted || ob.Attestation.Decision != DecisionAuthorized || ob.Result["state"] != "captured" ||
		len(ob.SideEffects) != 1 {
		t.Errorf("OB fields: %+v", ob)
	}
	pd := mustParse(t, "pd-19.3.json").Problem
	if pd.ErrorCode != CodeRevoked || pd.EnvelopeID != exampleEnvelopeID || pd.Details["cap_id"] != "cap:alpha:pay-v1" {
		t.Errorf("PD fields: %+v", pd)
	}
}

func mustParse(t testing.TB, name string) *Message {
	t.Helper()
	m, err := Parse(readExample(t, name), nil)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestCanonicalAndSigningInput: the stored bytes are RFC 8785 and the
// signing input is exactly the canonical payload.
func TestCanonicalAndSigningInput(t *testing.T) {
	m := mustParse(t, "ob-19.2.json")
	want, err := canon.Canonicalize(nil, readExample(t, "ob-19.2.json"), nil)
	if err != nil || !bytes.Equal(m.Canonical(), want) {
		t.Fatalf("canonical:\n%s\nwant\n%s (%v)", m.Canonical(), want, err)
	}
	payload := encode(decodeExample(t, "ob-19.2.json")["payload"])
	if !bytes.Equal(m.SigningInput(), payload) {
		t.Errorf("signing input %s, want %s", m.SigningInput(), payload)
	}
	again, err := Parse(m.Canonical(), nil)
	if err != nil || !bytes.Equal(again.Canonical(), m.Canonical()) {
		t.Errorf("canonical bytes do not parse to themselves: %v", err)
	}
}

func TestParseType(t *testing.T) {
	if _, err := ParseType(readExample(t, "ie-19.1.json"), IE, nil); err != nil {
		t.Fatal(err)
	}
	_, err := ParseType(readExample(t, "ob-19.2.json"), IE, nil)
	var l ErrorList
	if !errors.As(err, &l) || l[0].Pointer != "/msg_type" || !errors.Is(err, ErrMalformedMessage) {
		t.Fatalf("ParseType(OB, IE) = %v", err)
	}
}

func TestOptions(t *testing.T) {
	doc := decodeExample(t, "ob-19.2.json")
	delete(doc, "proof")
	if _, err := Parse(encode(doc), &Options{AllowUnsignedObservations: true}); err != nil {
		t.Errorf("unsigned OB with AllowUnsignedObservations: %v", err)
	}
	doc["aidp_version"] = "1.1-draft"
	if _, err := Parse(encode(doc), &Options{Versions: []string{"1.0-draft", "1.1-draft"}, AllowUnsignedObservations: true}); err != nil {
		t.Errorf("configured version: %v", err)
	}
	if _, err := Parse(encode(doc), &Options{Versions: []string{""}}); err == nil || errors.As(err, new(ErrorList)) {
		t.Errorf("invalid options: %v", err)
	}
	var o Options
	if o.EnsureDefaults(); o.Versions[0] != Version || o.Profiles[0] != Profile || o.Validate() != nil {
		t.Errorf("defaults: %+v", o)
	}
}

// TestErrorsIs: every code has a sentinel that errors.Is finds through
// an ErrorList, and nothing else matches.
func TestErrorsIs(t *testing.T) {
	codes := []string{CodeInvalidIdentity, CodeUntrustedIssuer, CodeRevoked, CodeInvalidCapability,
		CodeInvalidDelegationChain, CodeConstraintViolation, CodeReplayDetected, CodeMalformedMessage,
		CodeUnsupportedVersion, CodeUnsupportedMediaType}
	for _, code := range codes {
		var err error = ErrorList{{Code: code, Pointer: "/x"}}
		for _, other := range codes {
			if got := errors.Is(err, Sentinel(other)); got != (code == other) {
				t.Errorf("errors.Is(%s, %s) = %v", code, other, got)
			}
		}
		if s, ok := HTTPStatus(code); !ok || s < 400 {
			t.Errorf("HTTPStatus(%s) = %d, %v", code, s, ok)
		}
	}
	if Sentinel("DELIVERY_OK") != nil {
		t.Error("sentinel for a code we do not define")
	}
	if _, ok := HTTPStatus("DELIVERY_OK"); ok {
		t.Error("HTTPStatus maps an unknown code")
	}
	l := ErrorList{{Code: CodeMalformedMessage, Pointer: "/a", Message: "m1"}, {Code: CodeMalformedMessage, Message: "m2"}}
	if got := l.Error(); got != "aidp: 2 problems:\n\tMALFORMED_MESSAGE at /a: m1\n\tMALFORMED_MESSAGE at /: m2" {
		t.Errorf("Error() = %q", got)
	}
	if l.Code() != CodeMalformedMessage || (ErrorList{}).Code() != "" {
		t.Error("Code()")
	}
}
