package server

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/aqlstore/aqlstore/index"
	"github.com/aqlstore/aqlstore/query"
	"github.com/aqlstore/aqlstore/query/aql"
	"github.com/aqlstore/aqlstore/server/client"
	"github.com/aqlstore/aqlstore/store"
)

// Regression tests of the leaks and faults TestTenantIsolationProperty
// (isolation_test.go) found.

// TestExplainCountsVisibleDocumentsOnly: the plan a reader gets (explain)
// counts the documents that reader may see, not every tenant's: a leaf's
// cardinality over the whole index told a reader how many of another
// tenant's documents match (found by TestTenantIsolationProperty).
func TestExplainCountsVisibleDocumentsOnly(t *testing.T) {
	st, ix, err := index.Open(t.TempDir(), &store.Options{NoSync: true, MemTableSize: 1 << 20, CacheSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	for _, d := range []struct{ owner, body string }{
		{store.Public, `{"offer_id": "p", "category": "shoes"}`},
		{"did:web:secretive.example", `{"offer_id": "s1", "category": "shoes"}`},
		{"did:web:secretive.example", `{"offer_id": "s2", "category": "shoes"}`},
	} {
		if _, err := st.Put(ctx, store.Document{Body: []byte(d.body), Owner: d.owner}); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ constraints, want string }{
		{`{"path": "/category", "operator": "eq", "value": "shoes"}`,
			"candidates 1 of 1\nindex.Eq(/category = \"shoes\") exact act=1\n"},
		{`{"not": {"path": "/category", "operator": "eq", "value": "shoes"}}`,
			"candidates 0 of 1\nbitmap.AndNot(universe) exact act=0\n  index.Eq(/category = \"shoes\") exact act=1\n"},
	} {
		in, err := aql.Parse(isoIntent("commercial", c.constraints, `{"include": ["/"]}`, ""), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, reader := range []string{store.Public, "did:web:other.example"} {
			p, err := query.PlanIntent(st, ix, in, reader, query.CategoryKinds(in.Category))
			if err != nil {
				t.Fatal(err)
			}
			if got := p.Shape(); got != c.want {
				t.Errorf("plan of %s as %s:\n%s\nwant (only the public document counted):\n%s", c.constraints, reader, got, c.want)
			}
			var walk func(n *query.PlanNode)
			walk = func(n *query.PlanNode) {
				if n.Estimate > p.Universe.GetCardinality() {
					t.Errorf("%s as %s: %s estimates %d of %d visible documents", c.constraints, reader, n.Op, n.Estimate, p.Universe.GetCardinality())
				}
				for _, k := range n.Children {
					walk(k)
				}
			}
			walk(p.Root)
		}
	}
}

// TestGetObservationByID: an AIDP observation's natural key joins its
// envelope and execution ids with a NUL byte, which is no header value;
// GET by content id sent it raw in Aqlstore-Natural-Key, and the client
// could not read the answer at all (found by TestTenantIsolationProperty).
func TestGetObservationByID(t *testing.T) {
	ts := startServer(t, nil)
	if s, _, b := ts.post(pathAIDPIntents, mediaIE, tokenA, ieMessage("env-g", "g")); s != http.StatusCreated {
		t.Fatalf("IE: %d %s", s, b)
	}
	s, _, b := ts.post(pathAIDPObservations, mediaOB, tokenA, obMessage("env-g", "exec-g", "02"))
	if s != http.StatusCreated {
		t.Fatalf("OB: %d %s", s, b)
	}
	id := decode(t, b)["documents"].([]any)[0].(map[string]any)["id"].(string)
	s, h, b := ts.send("GET", pathDocuments+"/"+id, tokenA, nil)
	if s != http.StatusOK || h.Get("Aqlstore-Kind") != "aidp-ob" || sha256Hex(string(b[:len(b)-1])) != id {
		t.Fatalf("get: %d %v %s", s, h, b)
	}
	if key, err := url.PathUnescape(h.Get("Aqlstore-Natural-Key")); err != nil || key != "env-g\x00exec-g" {
		t.Fatalf("Aqlstore-Natural-Key %q (%v), want env-g%%00exec-g", h.Get("Aqlstore-Natural-Key"), err)
	}
}

// TestQueryIgnoresOtherTenantsPaths: whether a plan is exact must not
// depend on another tenant's documents. A concrete index (/tags/0) plans
// lossily when some document anywhere has an array there; `not` over a
// lossy leaf then makes every visible document a candidate, and the
// rejected list an anonymous caller got changed when tenant B stored
// {"tags": ["blue"]}: it told that some hidden document has an array at
// /tags (found by TestTenantIsolationProperty).
func TestQueryIgnoresOtherTenantsPaths(t *testing.T) {
	ts := startServer(t, nil)
	ts.putPublic(`{"offer_id": "p1", "tags": {"0": "blue"}}`)
	ts.putPublic(`{"offer_id": "p2"}`)
	body := intent("commercial", `{"not": {"path": "/tags/0", "operator": "eq", "value": "blue"}}`,
		`"resolution_policy": "ranked_set",`)
	answer := func() string {
		t.Helper()
		s, _, b := ts.do("POST", pathIntent, contentOAP, "", body)
		if s != http.StatusOK {
			t.Fatalf("query: %d %s", s, b)
		}
		return isoNorm(b)
	}
	before := answer()
	if _, err := ts.client(tokenB).Put(context.Background(), []byte(`{"offer_id": "b", "tags": ["blue"]}`), client.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	if after := answer(); after != before {
		t.Fatalf("the anonymous answer changed when tenant B stored a private document:\nbefore: %s\nafter:  %s", before, after)
	}
}
