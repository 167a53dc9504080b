package server

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/query/aql"
	"github.com/aqlstore/aqlstore/query/sign"
	"github.com/aqlstore/aqlstore/server/client"
	"github.com/aqlstore/aqlstore/store"
)

// signedByB is a commercial intent for offer id, issued and signed by
// tenant B's key.
func signedByB(t *testing.T, id string) []byte {
	t.Helper()
	doc := canonDoc(t, intent("commercial", `{"path": "/offer_id", "operator": "eq", "value": "`+id+`"}`, ""))
	doc["issuer_did"] = tenantB
	signed, err := sign.NewSigner(keyB).Sign(doc)
	if err != nil {
		t.Fatal(err)
	}
	return canon.AppendValue(nil, signed)
}

// TestSignedIntentIsNotBearer: an intent signed by tenant B reads B's
// private documents only when B sends it (its token, or a request signed
// with its key). Replayed by an anonymous caller or by tenant A, it reads
// public documents only, as the README's "Who a query reads as" says.
func TestSignedIntentIsNotBearer(t *testing.T) {
	ts := startServer(t, nil)
	if _, err := ts.client(tokenB).Put(context.Background(), []byte(shoe("b-private", 3)), client.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	body := signedByB(t, "b-private")
	signer := ts.client("")
	signer.Key = keyB
	for _, tc := range []struct {
		who  string
		c    *client.Client
		want int
	}{
		{"anonymous replay", ts.client(""), 0},
		{"tenant A replays B's intent", ts.client(tokenA), 0},
		{"B with its token", ts.client(tokenB), 1},
		{"B signing the request", signer, 1},
	} {
		if got := answerWith(t, ts, tc.c, body); got != tc.want {
			t.Errorf("%s: %d candidates, want %d", tc.who, got, tc.want)
		}
	}
}

// TestSignedSubscriptionIsNotBearer: a subscription reads as the same
// principal a query would: B's signed intent replayed by another caller
// reads as public, never as B nor as the replaying tenant.
func TestSignedSubscriptionIsNotBearer(t *testing.T) {
	ts := startServer(t, nil)
	in, err := aql.Parse(signedByB(t, "x"), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		who, tenant, want string
	}{
		{"anonymous replay", "", store.Public},
		{"tenant A replays B's intent", tenantA, store.Public},
		{"B itself", tenantB, tenantB},
	} {
		r := httptest.NewRequest("POST", pathIntent, nil)
		r = r.WithContext(withCaller(r.Context(), caller{tenant: tc.tenant, ip: "192.0.2.1"}))
		got, err := ts.srv.subscriber(r, in)
		if err != nil || got != tc.want {
			t.Errorf("%s: reads as %q (%v), want %q", tc.who, got, err, tc.want)
		}
	}
}
