package query

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"

	"pgregory.net/rapid"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/index"
	"github.com/aqlstore/aqlstore/query/aql"
	"github.com/aqlstore/aqlstore/store"
)

var grantTenants = []string{"did:key:grant-a", "did:key:grant-b", "did:key:grant-reader"}

// grantedSeen counts the resolutions that returned a granted document,
// so that the test shows it was not vacuous.
var grantedSeen atomic.Int64

// TestPlannerEqualsFullScanWithGrants: random stores of several tenants'
// documents, with random grants and revokes (by content id and by
// number), deletes and a reopen; a random reader (a tenant, or public)
// then resolves random intents through the planner and by full scan, page
// by page, and the two must agree (compare). Independently of both, the
// plan's universe must be exactly the documents a model says the reader
// may see (public, its own, granted to it), so that the agreement is not
// that of two readers blind to grants.
func TestPlannerEqualsFullScanWithGrants(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d, s, ix := openDiffStore(t)
		defer d.remove()
		owners := append([]string{store.Public}, grantTenants...)
		ctx := context.Background()
		type doc struct {
			ref     store.Ref
			live    bool
			granted map[string]bool
		}
		var docs []*doc
		for n := rapid.IntRange(1, 30).Draw(t, "docs"); n > 0; n-- {
			owner := rapid.SampledFrom(owners).Draw(t, "owner")
			ref, err := s.Put(store.WithPrincipal(ctx, owner), store.Document{Body: []byte(genObject(t, 0)), Kind: canon.KindJSON})
			if err == nil && ref.Created {
				docs = append(docs, &doc{ref: ref, live: true, granted: map[string]bool{}})
			}
		}
		for n := rapid.IntRange(0, 20).Draw(t, "changes"); n > 0 && len(docs) > 0; n-- {
			d := rapid.SampledFrom(docs).Draw(t, "doc")
			switch op := rapid.IntRange(0, 5).Draw(t, "op"); {
			case op == 0:
				if err := s.Delete(store.WithPrincipal(ctx, d.ref.Owner), store.Ref{Num: d.ref.Num}); err == nil {
					d.live, d.granted = false, map[string]bool{}
				}
			default:
				grantee := rapid.SampledFrom(append(grantTenants, grantTenants[2])).Draw(t, "grantee")
				ref := store.Ref{Num: d.ref.Num}
				if rapid.Bool().Draw(t, "by id") {
					ref = store.Ref{ID: d.ref.ID}
				}
				f, grant := s.Grant, op < 4
				if !grant {
					f = s.Revoke
				}
				err := f(store.WithPrincipal(ctx, d.ref.Owner), ref, grantee)
				if err != nil {
					if !errors.Is(err, store.ErrInvalid) && !errors.Is(err, store.ErrNotFound) {
						t.Fatalf("grant: %v", err)
					}
					continue
				}
				for _, e := range docs { // by id: every live copy the owner has
					if e.live && e.ref.Owner == d.ref.Owner && (e == d || ref.Num == 0 && e.ref.ID == d.ref.ID) {
						e.granted[grantee] = grant
					}
				}
			}
		}
		if rapid.Bool().Draw(t, "reopen") {
			s, ix = d.reopen(t, s)
		}
		defer s.Close()
		reader := rapid.SampledFrom(append(owners, grantTenants[2], grantTenants[2])).Draw(t, "reader")
		var want []uint32
		for _, d := range docs {
			if d.live && (d.ref.Owner == store.Public || d.ref.Owner == reader || d.granted[reader]) {
				want = append(want, d.ref.Num)
			}
		}
		slices.Sort(want)
		for q := 0; q < 4; q++ {
			in, err := aql.Parse([]byte(genIntent(t)), nil)
			if err != nil {
				diffParseFail.Add(1)
				continue
			}
			plan, err := PlanIntent(s, ix, in, reader, CategoryKinds(in.Category))
			if err != nil {
				t.Fatal(err)
			}
			if got := plan.Universe.ToArray(); !slices.Equal(got, want) {
				t.Fatalf("universe of %s: %v, want %v", reader, got, want)
			}
			compare(t, s, ix, in, reader)
			countGranted(t, s, ix, in, reader, docs, func(d *doc) (uint32, bool) {
				return d.ref.Num, d.live && d.granted[reader] && d.ref.Owner != reader && d.ref.Owner != store.Public
			})
		}
	})
	t.Logf("%d resolutions returned a granted document", grantedSeen.Load())
	if grantedSeen.Load() == 0 {
		t.Error("no resolution returned a granted document: the test no longer covers grants")
	}
}

// countGranted counts the candidates of a resolution that are documents
// granted to reader (not its own, not public).
func countGranted[D any](t *rapid.T, s *store.Store, ix *index.Index, in *aql.Intent, reader string, docs []D,
	granted func(D) (uint32, bool)) {
	nums := map[uint32]bool{}
	for _, d := range docs {
		if n, ok := granted(d); ok {
			nums[n] = true
		}
	}
	if len(nums) == 0 {
		return
	}
	plan, err := PlanIntent(s, ix, in, reader, CategoryKinds(in.Category))
	if err != nil {
		t.Fatal(err)
	}
	for doc, err := range s.Fetch(store.WithPrincipal(context.Background(), reader), plan.Candidates, false) {
		if err != nil {
			t.Fatal(err)
		}
		if nums[doc.Num] {
			grantedSeen.Add(1)
			return
		}
	}
}
