package query

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/query/aql"
	"github.com/aqlstore/aqlstore/store"
	"pgregory.net/rapid"
)

var loadedDocs, loadsRefused atomic.Int64

// TestPlannerEqualsFullScanBulkLoaded is TestPlannerEqualsFullScan on a
// store filled partly by puts and partly by a bulk load (store.Loader),
// whose posting lists are written whole into ingested sstables and ORed
// with those the puts left, in runs of a few documents; puts and deletes
// may follow the load. Planner and full scan must agree on it as on a
// store filled by puts.
func TestPlannerEqualsFullScanBulkLoaded(t *testing.T) {
	setRapidChecks(t, diffChecks)
	rapid.Check(t, func(t *rapid.T) {
		d, s, ix := openDiffStore(t)
		defer d.remove()
		ctx := context.Background()
		gen := func() store.Document {
			owner := rapid.SampledFrom([]string{store.Public, store.Public, "did:key:other"}).Draw(t, "owner")
			return store.Document{Body: []byte(genObject(t, 0)), Owner: owner, Kind: canon.KindJSON, Signals: genSignals(t)}
		}
		var refs []store.Ref
		for range rapid.IntRange(0, 15).Draw(t, "puts before") {
			if ref, err := s.Put(ctx, gen()); err == nil {
				refs = append(refs, ref)
			}
		}
		docs := make([]store.Document, rapid.IntRange(1, 40).Draw(t, "loaded"))
		for i := range docs {
			docs[i] = gen()
		}
		refs = append(refs, bulkLoad(t, s, docs, rapid.IntRange(1, 12).Draw(t, "run docs"))...)
		for _, ref := range refs {
			if rapid.IntRange(0, 5).Draw(t, "del") == 0 {
				_ = s.Delete(ctx, ref)
			}
		}
		for range rapid.IntRange(0, 8).Draw(t, "puts after") {
			_, _ = s.Put(ctx, gen())
		}
		if rapid.Bool().Draw(t, "reopen") {
			s, ix = d.reopen(t, s)
		}
		defer s.Close()
		for q := 0; q < 5; q++ {
			in, err := aql.Parse([]byte(genIntent(t)), nil)
			if err != nil {
				continue // a generated operand the intent rules refuse
			}
			compare(t, s, ix, in, "")
		}
	})
	t.Logf("%d documents bulk loaded; %d refused by the load (the same content with other signals)",
		loadedDocs.Load(), loadsRefused.Load())
	if loadedDocs.Load() == 0 {
		t.Error("no document was bulk loaded: the test no longer covers the load")
	}
}

// bulkLoad stores docs with a Loader whose runs spill every runDocs
// documents, leaving out those it refuses, as Put would.
func bulkLoad(t *rapid.T, s *store.Store, docs []store.Document, runDocs int) []store.Ref {
	ctx := context.Background()
	l, err := s.NewLoader(ctx, &store.LoadOptions{RunDocs: runDocs})
	if err != nil {
		t.Fatal(err)
	}
	refs := make([]store.Ref, 0, len(docs))
	for _, d := range docs {
		pd, err := s.Prepare(ctx, d)
		if err != nil {
			continue // as Put refuses it
		}
		if ref, err := l.Add(pd); err == nil {
			refs = append(refs, ref)
		} else {
			loadsRefused.Add(1)
		}
	}
	if err := l.Commit(); err != nil {
		t.Fatal(err)
	}
	loadedDocs.Add(int64(len(refs)))
	return refs
}
