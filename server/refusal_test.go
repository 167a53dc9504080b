package server

import (
	"strings"
	"testing"
	"time"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/query/sign"
)

// TestRefusedIntentsSayWhere: an intent outside its validity window (422)
// or with a signature that does not verify (403) is answered with a
// signed problem document whose problems name the member to fix, as an
// invalid intent's do.
func TestRefusedIntentsSayWhere(t *testing.T) {
	ts := startServer(t, nil)
	now := time.Now().UTC()
	window := func(from, to time.Time) []byte {
		b := intent("knowledge", `{"path": "/a", "operator": "exists", "value": true}`, "")
		v := canonDoc(t, b)
		v["validity"] = map[string]any{"from": from.Format(time.RFC3339), "to": to.Format(time.RFC3339)}
		return canon.AppendValue(nil, v)
	}
	signedByB := func(edit func(map[string]any)) []byte {
		doc := canonDoc(t, intent("knowledge", `{"path": "/a", "operator": "exists", "value": true}`, ""))
		doc["issuer_did"] = tenantB
		signed, err := sign.NewSigner(keyB).Sign(doc)
		if err != nil {
			t.Fatal(err)
		}
		edit(signed)
		return canon.AppendValue(nil, signed)
	}
	for _, tc := range []struct {
		name    string
		body    []byte
		status  int
		code    string
		pointer string
	}{
		{"expired", window(now.Add(-2*time.Hour), now.Add(-time.Hour)), 422, "outside_validity", "/validity/to"},
		{"not yet valid", window(now.Add(time.Hour), now.Add(2*time.Hour)), 422, "outside_validity", "/validity/from"},
		{"changed after signing", signedByB(func(d map[string]any) { d["category"] = "discovery" }), 403, "signature_refused", "/signature/value"},
		{"another key's kid", signedByB(func(d map[string]any) {
			d["signature"].(map[string]any)["kid"] = ts.signer.DID() + "#key-1"
		}), 403, "signature_refused", "/signature/kid"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, header, body := ts.do("POST", "/oap/intent", "application/json", "", tc.body)
			doc := ts.checkProblem(status, header, body, tc.status, tc.code)
			problems, _ := doc["problems"].([]any)
			if len(problems) != 1 {
				t.Fatalf("problems %v, want one at %s", doc["problems"], tc.pointer)
			}
			p := problems[0].(map[string]any)
			if p["pointer"] != tc.pointer || p["code"] == nil || !strings.Contains(p["message"].(string), " ") {
				t.Fatalf("problem %v, want one at %s with a code and a message", p, tc.pointer)
			}
		})
	}
}

// TestGetIncludeByPosition: GET ?include= refuses a pointer that names an
// array element by position, as an intent's include does, with the *
// form as the fix; ?exclude= may name one.
func TestGetIncludeByPosition(t *testing.T) {
	ts := startServer(t, nil)
	id := ts.putPublic(`{"pricing":{"models":[{"type":"per_call"},{"type":"subscription","tiers":[{"id":"standard"}]}]}}`)
	status, header, body := ts.do("GET", pathDocuments+"/"+id+"?include=/pricing/models/1/tiers", "", "", nil)
	doc := ts.checkProblem(status, header, body, 400, "bad_pointer")
	if detail, _ := doc["detail"].(string); !strings.Contains(detail, `"/pricing/models/*/tiers"`) {
		t.Fatalf("detail %q does not give the * form", detail)
	}
	status, _, body = ts.do("GET", pathDocuments+"/"+id+"?include=/pricing/models/*/tiers&exclude=/pricing/models/0", "", "", nil)
	if status != 200 || !strings.Contains(string(body), `"payload":{"pricing":{"models":[{"tiers":[{"id":"standard"}]}]}}`) {
		t.Fatalf("include with * and exclude by position: %d %s", status, body)
	}
}
