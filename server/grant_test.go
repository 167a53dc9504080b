package server

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/aqlstore/aqlstore/server/client"
)

// grantPath is the grant endpoint of document id for grantee (escaped as
// a path segment).
func grantPath(id, grantee string) string {
	return pathDocuments + "/" + id + pathGrantsSuffix + "/" + url.PathEscape(grantee)
}

// putPrivate stores body as the tenant of token and returns its id.
func (ts *testServer) putPrivate(token, body string) string {
	ts.t.Helper()
	refs, err := ts.client(token).Put(context.Background(), []byte(body), client.PutOptions{})
	if err != nil || len(refs) != 1 {
		ts.t.Fatalf("put %s: %v", body, err)
	}
	return refs[0].ID
}

// candidateIDs resolves body as token and returns the candidate ids.
func (ts *testServer) candidateIDs(token string, body []byte) []string {
	ts.t.Helper()
	s, _, b := ts.send("POST", pathIntent, token, body, "Content-Type", contentOAP)
	if s != http.StatusOK {
		ts.t.Fatalf("query: %d %s", s, b)
	}
	var ids []string
	for _, c := range decode(ts.t, b)["candidates"].([]any) {
		ids = append(ids, c.(map[string]any)["candidate_id"].(string))
	}
	slices.Sort(ids)
	return ids
}

// TestGrantEndpoints: tenant A grants one of its documents to tenant B,
// who then reads it by id, by natural key and in queries, as A's; an
// anonymous caller still does not; A lists and revokes the grant, and B
// reads nothing again.
func TestGrantEndpoints(t *testing.T) {
	ts := startServer(t, nil)
	id := ts.putPrivate(tokenA, `{"offer_id": "o-granted", "category": "granted_goods", "note": "for B only"}`)
	ts.putPrivate(tokenA, `{"offer_id": "o-kept", "category": "granted_goods"}`)
	query := intent("commercial", `{"path": "/category", "operator": "eq", "value": "granted_goods"}`, "")
	reads := func(token string) (get, lookup int, candidates []string) {
		t.Helper()
		get, _, _ = ts.send("GET", pathDocuments+"/"+id, token, nil)
		lookup, _, _ = ts.send("GET", pathDocuments+"?kind=offer&key=o-granted", token, nil)
		return get, lookup, ts.candidateIDs(token, query)
	}
	if g, l, c := reads(tokenB); g != 404 || l != 404 || len(c) != 0 {
		t.Fatalf("B before the grant: get %d, lookup %d, candidates %v", g, l, c)
	}
	if s, _, b := ts.send("PUT", grantPath(id, tenantB), tokenA, nil); s != http.StatusNoContent {
		t.Fatalf("grant: %d %s", s, b)
	}
	if s, _, b := ts.send("PUT", grantPath(id, tenantB), tokenA, nil); s != http.StatusNoContent {
		t.Fatalf("grant again: %d %s", s, b)
	}
	if g, l, c := reads(tokenB); g != 200 || l != 200 || !slices.Equal(c, []string{"o-granted"}) {
		t.Fatalf("B with the grant: get %d, lookup %d, candidates %v", g, l, c)
	}
	if s, h, _ := ts.send("GET", pathDocuments+"/"+id, tokenB, nil); s != 200 || h.Get("Aqlstore-Owner") != tenantA {
		t.Fatalf("B reads the document as A's: %d owner %q", s, h.Get("Aqlstore-Owner"))
	}
	if g, l, c := reads(""); g != 404 || l != 404 || len(c) != 0 {
		t.Fatalf("anonymous with B's grant: get %d, lookup %d, candidates %v", g, l, c)
	}
	s, _, b := ts.send("GET", pathDocuments+"/"+id+pathGrantsSuffix, tokenA, nil)
	if s != 200 {
		t.Fatalf("list: %d %s", s, b)
	}
	ts.verified(b)
	if got := decode(t, b)["grantees"].([]any); len(got) != 1 || got[0] != tenantB {
		t.Fatalf("grantees %v", got)
	}
	if s, _, b := ts.send("DELETE", grantPath(id, tenantB), tokenA, nil); s != http.StatusNoContent {
		t.Fatalf("revoke: %d %s", s, b)
	}
	if g, l, c := reads(tokenB); g != 404 || l != 404 || len(c) != 0 {
		t.Fatalf("B after the revoke: get %d, lookup %d, candidates %v", g, l, c)
	}
	_, _, b = ts.send("GET", pathDocuments+"/"+id+pathGrantsSuffix, tokenA, nil)
	if got := decode(t, b)["grantees"].([]any); len(got) != 0 {
		t.Fatalf("grantees after the revoke %v", got)
	}
}

// TestGrantRefusals: each refusal is a signed problem document; a
// document that is not the caller's is 404 even when the caller may read
// it (granted, public), exactly like a missing one.
func TestGrantRefusals(t *testing.T) {
	ts := startServer(t, nil)
	idA := ts.putPrivate(tokenA, `{"offer_id": "o-a"}`)
	idB := ts.putPrivate(tokenB, `{"offer_id": "o-b"}`)
	idPub := ts.putPublic(`{"offer_id": "o-public"}`)
	if s, _, b := ts.send("PUT", grantPath(idB, tenantA), tokenB, nil); s != http.StatusNoContent { // A may read B's
		t.Fatalf("grant: %d %s", s, b)
	}
	missing := strings.Repeat("0", 63) + "1"
	for _, c := range []struct {
		name, method, path, token string
		status                    int
		code                      string
	}{
		{"anonymous grant", "PUT", grantPath(idA, tenantB), "", 401, "unauthenticated"},
		{"anonymous list", "GET", pathDocuments + "/" + idA + pathGrantsSuffix, "", 401, "unauthenticated"},
		{"unknown token", "PUT", grantPath(idA, tenantB), "not-a-token-we-know", 401, "unauthenticated"},
		{"bad id", "PUT", grantPath("abc", tenantB), tokenA, 400, "bad_id"},
		{"to oneself", "PUT", grantPath(idA, tenantA), tokenA, 400, "bad_grantee"},
		{"to public", "PUT", grantPath(idA, "public"), tokenA, 400, "bad_grantee"},
		{"NUL in the grantee", "PUT", grantPath(idA, "did:web:x\x00y"), tokenA, 400, "bad_grantee"},
		{"public visibility", "PUT", grantPath(idA, tenantB) + "?visibility=public", tokenA, 400, "bad_parameter"},
		{"someone else's, granted to the caller", "PUT", grantPath(idB, tenantB), tokenA, 404, "not_found"},
		{"revoke someone else's", "DELETE", grantPath(idB, "did:web:c.example"), tokenA, 404, "not_found"},
		{"list someone else's", "GET", pathDocuments + "/" + idB + pathGrantsSuffix, tokenA, 404, "not_found"},
		{"a public one", "PUT", grantPath(idPub, tenantB), tokenA, 404, "not_found"},
		{"a missing one", "PUT", grantPath(missing, tenantB), tokenA, 404, "not_found"},
	} {
		s, h, b := ts.send(c.method, c.path, c.token, nil)
		doc := ts.checkProblem(s, h, b, c.status, c.code)
		if detail, _ := doc["detail"].(string); strings.Contains(detail, tenantB) && c.token == tokenA && c.status == 404 {
			t.Errorf("%s: the 404 names another tenant: %s", c.name, detail)
		}
	}
	// The missing and the readable-but-not-owned document answer alike.
	_, _, granted := ts.send("PUT", grantPath(idB, "did:web:c.example"), tokenA, nil)
	_, _, absent := ts.send("PUT", grantPath(missing, "did:web:c.example"), tokenA, nil)
	if g, a := isoNorm(granted), isoNorm(absent); strings.ReplaceAll(g, idB, missing) != a {
		t.Fatalf("a readable document of another tenant and a missing one answer differently:\n%s\n%s", g, a)
	}
}

// TestGrantedDocumentInSubscription: a subscription delivers a document
// granted to the subscriber once, through the grant's receipt (here, on
// resuming from before the put); a grant revoked by then is not
// delivered, and neither is anything another tenant did not grant.
func TestGrantedDocumentInSubscription(t *testing.T) {
	ts := startServer(t, nil)
	s := ts.subscribed(tokenB, shoeSubscription(100), "")
	ts.putPublic(shoe("sentinel-0", 1))
	if ev := nextEvent(t, s); ev.Name != "candidate" {
		t.Fatalf("event %s %s", ev.Name, ev.Data)
	}
	from := s.LastEventID()
	s.Close()
	granted := ts.putPrivate(tokenA, shoe("o-granted", 1))
	revoked := ts.putPrivate(tokenA, shoe("o-revoked", 1))
	ts.putPrivate(tokenA, shoe("o-private", 1))
	for _, id := range []string{granted, revoked} {
		if st, _, b := ts.send("PUT", grantPath(id, tenantB), tokenA, nil); st != http.StatusNoContent {
			t.Fatalf("grant: %d %s", st, b)
		}
	}
	if st, _, b := ts.send("DELETE", grantPath(revoked, tenantB), tokenA, nil); st != http.StatusNoContent {
		t.Fatalf("revoke: %d %s", st, b)
	}
	ts.putPublic(shoe("sentinel-1", 1))
	s = ts.subscribed(tokenB, shoeSubscription(100), from)
	var got []string
	for {
		id, _ := ts.candidateEvent(nextEvent(t, s))
		if id == "sentinel-1" {
			break
		}
		got = append(got, id)
	}
	if !slices.Equal(got, []string{"o-granted"}) {
		t.Fatalf("B's resumed subscription sent %v, want the granted document only", got)
	}
}

// TestGrantPathsWrongMethod: another method on a grant path is 405 with
// the methods it serves, not 404.
func TestGrantPathsWrongMethod(t *testing.T) {
	ts := startServer(t, nil)
	id := ts.putPrivate(tokenA, shoe("o-methods", 1))
	for _, c := range []struct{ method, path, allow string }{
		{"POST", pathDocuments + "/" + id + pathGrantsSuffix, "GET"},
		{"DELETE", pathDocuments + "/" + id + pathGrantsSuffix, "GET"},
		{"GET", grantPath(id, tenantB), "PUT, DELETE"},
		{"POST", grantPath(id, tenantB), "PUT, DELETE"},
	} {
		s, h, b := ts.send(c.method, c.path, tokenA, nil)
		if s != http.StatusMethodNotAllowed || h.Get("Allow") != c.allow {
			t.Errorf("%s %s: %d Allow %q, want 405 Allow %q: %s", c.method, c.path, s, h.Get("Allow"), c.allow, b)
		}
	}
	if s, _, b := ts.send("GET", grantPath(id, tenantB)+"/extra", tokenA, nil); s != http.StatusNotFound {
		t.Errorf("a path below a grant: %d %s, want 404", s, b)
	}
}

// TestClientGrants: the Go client's Grant, Grantees and Revoke.
func TestClientGrants(t *testing.T) {
	ts := startServer(t, nil)
	ctx := context.Background()
	id := ts.putPrivate(tokenA, shoe("o-client", 1))
	a, b := ts.client(tokenA), ts.client(tokenB)
	if _, err := b.Get(ctx, id, nil, nil); err == nil {
		t.Fatal("B reads A's document before the grant")
	}
	if err := a.Grant(ctx, id, tenantB); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Get(ctx, id, nil, nil); err != nil {
		t.Fatalf("B after the grant: %v", err)
	}
	body, err := a.Grantees(ctx, id)
	if err != nil || !strings.Contains(string(body), tenantB) {
		t.Fatalf("grantees: %s %v", body, err)
	}
	ts.verified(body)
	if err := a.Revoke(ctx, id, tenantB); err != nil {
		t.Fatal(err)
	}
	var ce *client.Error
	if _, err := b.Get(ctx, id, nil, nil); !errors.As(err, &ce) || ce.Status != http.StatusNotFound {
		t.Fatalf("B after the revoke: %v, want 404", err)
	}
	if err := b.Grant(ctx, id, tenantA); !errors.As(err, &ce) || ce.Status != http.StatusNotFound {
		t.Fatalf("B granting A's document: %v, want 404", err)
	}
}
