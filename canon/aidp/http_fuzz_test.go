package aidp

import (
	"errors"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aqlstore/aqlstore/canon"
)

// FuzzParseContentType: a Content-Type is accepted only when it is the
// AIDP-JS media type with no msg or one of IE, OB, PD (any case), and
// the type it gives writes back (ContentType) to a header that reads as
// the same type; anything else is UNSUPPORTED_MEDIA_TYPE, which the HTTP
// binding answers with 415.
func FuzzParseContentType(f *testing.F) {
	for _, s := range []string{"application/aidp+json; msg=IE", "application/aidp+json;msg=ob", "application/aidp+json",
		"APPLICATION/AIDP+JSON; MSG=pd", "application/json", "application/aidp+cbor; msg=IE", "application/aidp+json; msg=XX",
		";;", "", `application/aidp+json; msg="IE"`, "application/aidp+json; msg=IE; msg=OB", "application/aidp+json; msg*=utf-8''IE"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		typ, err := ParseContentType(s)
		if err != nil {
			var e *Error
			status, _ := HTTPStatus(CodeUnsupportedMediaType)
			if typ != "" || !errors.As(err, &e) || e.Code != CodeUnsupportedMediaType || e.Message == "" || status != http.StatusUnsupportedMediaType {
				t.Fatalf("ParseContentType(%q) = %q, %v; want an UNSUPPORTED_MEDIA_TYPE *Error", s, typ, err)
			}
			return
		}
		mt, params, perr := mime.ParseMediaType(s)
		if perr != nil || mt != MediaType || !strings.EqualFold(params["msg"], string(typ)) {
			t.Fatalf("ParseContentType(%q) = %q, but the header is %q %v (%v)", s, typ, mt, params, perr)
		}
		if typ == "" {
			return
		}
		if again, err := ParseContentType(ContentType(typ)); err != nil || again != typ {
			t.Fatalf("ContentType(%s) = %q reads as %q, %v", typ, ContentType(typ), again, err)
		}
	})
}

// FuzzObservationKey: SplitObservationKey undoes ObservationKey for every
// pair of ids Parse can accept (non-empty, without NUL), refuses what
// ObservationKey cannot have made, and every key of an envelope starts
// with its EnvelopePrefix.
func FuzzObservationKey(f *testing.F) {
	f.Add("env-1", "exec-1", "env-1\x00exec-1")
	f.Add("0f2e3c1a", "x", "")
	f.Add("a", "b", "a\x00b\x00c")
	f.Add("", "b", "\x00b")
	f.Fuzz(func(t *testing.T, env, exec, key string) {
		if env != "" && exec != "" && !strings.Contains(env, keySep) && !strings.Contains(exec, keySep) {
			k := ObservationKey(env, exec)
			e, x, ok := SplitObservationKey(k)
			if !ok || e != env || x != exec || !strings.HasPrefix(k, EnvelopePrefix(env)) {
				t.Fatalf("SplitObservationKey(ObservationKey(%q, %q)) = %q, %q, %v", env, exec, e, x, ok)
			}
		}
		e, x, ok := SplitObservationKey(key)
		if ok != (ObservationKey(e, x) == key && e != "" && x != "" && !strings.Contains(e+x, keySep)) {
			t.Fatalf("SplitObservationKey(%q) = %q, %q, %v", key, e, x, ok)
		}
		if !ok && (e != "" || x != "") {
			t.Fatalf("SplitObservationKey(%q) refused but returned %q, %q", key, e, x)
		}
	})
}

// FuzzProblemOfRejection: whatever Parse refuses, the Problem Details
// message NewProblem builds from its errors (as the server answers an
// AIDP client) is itself a valid PD that carries the first error's code
// and lists every error; CheckHTTP's refusals are errors of the
// documented codes.
func FuzzProblemOfRejection(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.json")
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, "application/aidp+json; msg=OB", "0f2e3c1a")
	}
	for _, tc := range malformedCases {
		if tc.raw != "" {
			f.Add([]byte(tc.raw), "application/aidp+json", "")
		}
	}
	at := time.Date(2026, 1, 13, 7, 14, 1, 0, time.UTC)
	f.Fuzz(func(t *testing.T, b []byte, contentType, envelopeHeader string) {
		m, err := Parse(b, nil)
		if err == nil {
			checkHTTPErrors(t, CheckHTTP(m, contentType, envelopeHeader))
			return
		}
		var l ErrorList
		if !errors.As(err, &l) {
			t.Fatalf("rejection is %T %v", err, err)
		}
		pd, perr := Parse(canon.AppendValue(nil, NewProblem("", at, l...)), nil)
		if perr != nil || pd.Problem == nil {
			t.Fatalf("the PD of %v does not parse: %v", err, perr)
		}
		if pd.Problem.ErrorCode != l[0].Code || len(pd.Problem.Details["errors"].([]any)) != len(l) {
			t.Fatalf("PD %+v does not report %v", pd.Problem, err)
		}
	})
}

func checkHTTPErrors(t *testing.T, err error) {
	if err == nil {
		return
	}
	var one *Error
	var l ErrorList
	switch {
	case errors.As(err, &l):
		for _, e := range l {
			if e.Code != CodeMalformedMessage || !strings.HasPrefix(e.Pointer, "/") {
				t.Fatalf("CheckHTTP error %+v", e)
			}
		}
	case errors.As(err, &one):
		if one.Code != CodeUnsupportedMediaType {
			t.Fatalf("CheckHTTP error %+v", one)
		}
	default:
		t.Fatalf("CheckHTTP error %T %v", err, err)
	}
}
