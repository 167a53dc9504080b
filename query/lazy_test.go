package query

import (
	"context"
	"errors"
	"fmt"
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
	r.lazy.accepted = r.lazy.universe // no rejection to list
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

// TestBudgetFirstPageIsLazy: a budgeted first page (full_set, and
// single_best) judges and allots the page's candidates only, in rank
// order, and its answer (over_budget flags, reasons, remaining budget)
// is the full scan's; the pages after it, which need every earlier cost,
// judge every candidate and are the full scan's too.
func TestBudgetFirstPageIsLazy(t *testing.T) {
	s, ix, err := index.Open(t.TempDir(), &store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var docs []store.Document
	for i := range 40 {
		sig := &canon.Signals{Score: canon.Number(fmt.Sprint(100 - i%17))}
		switch i % 5 {
		case 0: // no cost: allots nothing
		case 1:
			sig.Cost = &canon.Cost{Amount: "3.50", Currency: "USD"} // another currency
		default:
			sig.Cost = &canon.Cost{Amount: fmt.Sprintf("%d.25", i%7), Currency: "EUR"}
		}
		docs = append(docs, store.Document{Body: []byte(fmt.Sprintf(`{"g":"x","i":%d}`, i)), Kind: canon.KindJSON,
			Owner: store.Public, Signals: sig})
	}
	if _, err := s.PutBatch(context.Background(), docs); err != nil {
		t.Fatal(err)
	}
	for _, policy := range []string{"full_set", "single_best"} {
		in, err := aql.Parse([]byte(`{"intent_id":"urn:oap:intent:budget","issuer_did":"did:web:budget.example","category":"knowledge",
			"constraints":{"path":"/g","operator":"eq","value":"x"},"projection":{"include":["/i"]},
			"budget":{"amount":"9.00","currency":"EUR","allocation":"single_winner"},
			"validity":{"from":"2026-05-01T00:00:00Z","to":"2026-06-01T00:00:00Z"},"resolution_policy":"`+policy+`",
			"signature":{"alg":"EdDSA","value":"x"}}`), nil)
		if err != nil {
			t.Fatal(err)
		}
		cursor := ""
		for page := 0; page < 3; page++ {
			var plan *Plan
			o := &Options{Signer: testSigner(), At: at, PageSize: 4, Cursor: cursor}
			full, err := Resolve(context.Background(), s, in, o)
			if err != nil {
				t.Fatal(err)
			}
			o.Index, o.Explain = ix, func(p *Plan) { plan = p }
			planned, err := Resolve(context.Background(), s, in, o)
			if err != nil {
				t.Fatal(err)
			}
			if a, b := responseJSON(full), responseJSON(planned); a != b {
				t.Fatalf("%s page %d differs from the full scan\nfull:    %s\nplanner: %s", policy, page, a, b)
			}
			over := 0
			for _, c := range planned.Candidates {
				if c.OverBudget {
					over++
				}
			}
			if page == 0 && (plan.Rank == nil || planned.Evaluated > 5 || (policy == "full_set" && over == 0)) {
				t.Fatalf("%s first page: rank %v, %d evaluated, %d over budget; want a lazy page of 4 (and one more) with some over budget",
					policy, plan.Rank, planned.Evaluated, over)
			}
			if cursor = planned.NextCursor; cursor == "" {
				break
			}
		}
	}
}
