package aidp

import (
	"errors"
	"net/http"
	"testing"
	"time"
)

func TestContentType(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want MsgType
		code string
	}{
		{"application/aidp+json; msg=IE", IE, ""},
		{"application/aidp+json;msg=ob", OB, ""},
		{"application/aidp+json", "", ""},
		{"application/json", "", CodeUnsupportedMediaType},
		{"application/aidp+cbor; msg=IE", "", CodeUnsupportedMediaType},
		{"application/aidp+json; msg=XX", "", CodeUnsupportedMediaType},
		{";;", "", CodeUnsupportedMediaType},
	} {
		got, err := ParseContentType(tc.in)
		var e *Error
		if got != tc.want || (tc.code == "") != (err == nil) || (err != nil && (!errors.As(err, &e) || e.Code != tc.code)) {
			t.Errorf("ParseContentType(%q) = %q, %v", tc.in, got, err)
		}
	}
	if ContentType(PD) != "application/aidp+json; msg=PD" {
		t.Error(ContentType(PD))
	}
}

// TestCheckHTTP: §22.6.1, the envelope id header must match the payload.
func TestCheckHTTP(t *testing.T) {
	m := mustParse(t, "ie-22.14.1.json")
	if err := CheckHTTP(m, ContentType(IE), exampleEnvelopeID); err != nil {
		t.Fatal(err)
	}
	if err := CheckHTTP(m, MediaType, ""); err != nil {
		t.Fatal(err)
	}
	err := CheckHTTP(m, ContentType(OB), "0f2e3c1a")
	var l ErrorList
	if !errors.As(err, &l) || len(l) != 2 || l[0].Pointer != "/msg_type" || l[1].Pointer != "/payload/envelope_id" ||
		!errors.Is(err, ErrMalformedMessage) {
		t.Errorf("CheckHTTP mismatch: %v", err)
	}
	if err := CheckHTTP(m, "text/plain", ""); !errors.Is(err, ErrUnsupportedMediaType) {
		t.Errorf("CheckHTTP text/plain: %v", err)
	}
}

func TestHTTPStatus(t *testing.T) {
	for code, want := range map[string]int{CodeRevoked: http.StatusForbidden, CodeReplayDetected: http.StatusConflict,
		CodeMalformedMessage: http.StatusBadRequest, CodeUnsupportedVersion: http.StatusBadRequest,
		CodeUnsupportedMediaType: http.StatusUnsupportedMediaType, CodeConstraintViolation: http.StatusForbidden} {
		if got, ok := HTTPStatus(code); !ok || got != want {
			t.Errorf("HTTPStatus(%s) = %d", code, got)
		}
	}
}

// TestNewProblem: the PD built for a rejection parses as a PD and lists
// every problem.
func TestNewProblem(t *testing.T) {
	l := parseErrors(t, encode(map[string]any{"aidp_version": Version, "msg_type": "IE", "canon": Profile, "payload": map[string]any{}}))
	at := time.Date(2026, 1, 13, 7, 14, 1, 0, time.UTC)
	for _, id := range []string{exampleEnvelopeID, ""} {
		m, err := Parse(encode(NewProblem(id, at, l...)), nil)
		if err != nil {
			t.Fatal(err)
		}
		pd := m.Problem
		if pd.ErrorCode != CodeMalformedMessage || pd.EnvelopeID != id || !pd.Timestamp.Equal(at) ||
			len(pd.Details["errors"].([]any)) != len(l) {
			t.Errorf("PD %+v", pd)
		}
	}
	if _, err := Parse(encode(NewProblem("", at)), nil); err != nil {
		t.Errorf("PD without errors: %v", err)
	}
}
