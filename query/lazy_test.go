package query

import (
	"context"
	"errors"
	"testing"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/index"
	"github.com/aqlstore/aqlstore/query/aql"
	"github.com/aqlstore/aqlstore/store"
)

// TestLazyPageDistrustsTheIndex feeds the lazy page a ranking that
// disagrees with the documents (a document the index would call
// projectable is not): filling the page must notice and refuse, so
// Resolve starts again the ordinary way; and Resolve's own answer is the
// full scan's.
func TestLazyPageDistrustsTheIndex(t *testing.T) {
	s, ix, err := index.Open(t.TempDir(), &store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	for _, body := range []string{`{"n":1,"a":"x"}`, `{"n":2}`, `{"n":3,"a":"y"}`} {
		if _, err := s.Put(ctx, store.Document{Body: []byte(body), Kind: canon.KindJSON}); err != nil {
			t.Fatal(err)
		}
	}
	in, err := aql.Parse([]byte(`{"intent_id":"urn:oap:intent:lazy","issuer_did":"did:web:lazy.example","category":"knowledge",
		"constraints":{"path":"/n","operator":"exists","value":true},"projection":{"include":["/a"]},
		"validity":{"from":"2026-05-01T00:00:00Z","to":"2026-06-01T00:00:00Z"},"resolution_policy":"full_set",
		"signature":{"alg":"EdDSA","value":"x"}}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	o := (&Options{Signer: testSigner(), At: at, Index: ix, PageSize: 1}).withDefaults()
	pctx := store.WithPrincipal(ctx, store.Public)
	r := newResolution(in, &o)
	plan, err := PlanIntent(s, ix, in, store.Public, r.kinds())
	if err != nil {
		t.Fatal(err)
	}
	ok, err := r.tryLazy(pctx, s, plan)
	if err != nil || !ok {
		t.Fatalf("tryLazy = %v, %v; want the lazy path", ok, err)
	}
	if len(r.accepted) != 2 || r.nReject != 1 {
		t.Fatalf("lazy ranking: %d accepted, %d rejected; want 2 and 1", len(r.accepted), r.nReject)
	}
	// Pretend the index called document 2 (no /a) projectable.
	r.accepted = append(r.accepted, &Candidate{CandidateID: "forged", num: 2})
	r.lazy.rejected.Clear()
	if err := r.fillPage(r.accepted); !errors.Is(err, errLazyMiss) {
		t.Fatalf("fillPage with a forged candidate: %v, want errLazyMiss", err)
	}

	planned, err := Resolve(ctx, s, in, &Options{Signer: testSigner(), At: at, Index: ix, PageSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	full, err := Resolve(ctx, s, in, &Options{Signer: testSigner(), At: at, PageSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	if a, b := responseJSON(full), responseJSON(planned); a != b {
		t.Fatalf("lazy resolution differs from the full scan\nfull:    %s\nplanner: %s", a, b)
	}
	if planned.NextCursor != full.NextCursor {
		t.Errorf("cursors differ: planner %q, full scan %q", planned.NextCursor, full.NextCursor)
	}
	if planned.Evaluated != 2 || len(planned.Rejected) != 1 {
		t.Errorf("lazy resolution evaluated %d (want 2: one on the page, one listed rejection), listed %d rejections",
			planned.Evaluated, len(planned.Rejected))
	}
}
