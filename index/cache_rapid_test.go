package index

import (
	"context"
	"fmt"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"pgregory.net/rapid"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/store"
)

// TestCachedEqualsUncachedAfterCommits runs random commits — batches of
// puts of several kinds and owners, deletes, compactions that sweep
// paths — reading the cached lookups between them, so that each commit
// finds entries to update: after every commit each cached answer (kinds,
// owners, every document, existence, the public universe) equals the
// posting lists read from the store without the cache.
func TestCachedEqualsUncachedAfterCommits(t *testing.T) {
	kinds := []canon.Kind{canon.KindOffer, canon.KindKnowledge, canon.KindJSON}
	owners := []string{store.Public, "did:web:t1.example", "did:web:t2.example"}
	members := []string{"a", "b", "c"}
	rapid.Check(t, func(t *rapid.T) {
		s, ix := rapidStore(t, "cache")
		var refs []store.Ref
		seq := 0
		for step := rapid.IntRange(1, 20).Draw(t, "steps"); step > 0; step-- {
			readCached(t, ix, kinds, owners, members)
			switch op := rapid.IntRange(0, 9).Draw(t, "op"); {
			case op < 6:
				owner := rapid.SampledFrom(owners).Draw(t, "owner")
				ctx := context.Background()
				if owner != store.Public {
					ctx = store.WithPrincipal(ctx, owner)
				}
				var batch []store.Document
				for n := rapid.IntRange(1, 3).Draw(t, "docs"); n > 0; n-- {
					seq++
					batch = append(batch, store.Document{Kind: rapid.SampledFrom(kinds).Draw(t, "kind"),
						Body: fmt.Appendf(nil, `{"node_id":"k%d","offer_id":"o%d","%s":%d}`, seq, seq,
							rapid.SampledFrom(members).Draw(t, "member"), seq)})
				}
				got, err := s.PutBatch(ctx, batch)
				if err != nil {
					t.Fatal(err)
				}
				refs = append(refs, got...)
			case op < 9 && len(refs) > 0:
				i := rapid.IntRange(0, len(refs)-1).Draw(t, "victim")
				if err := s.Delete(context.Background(), refs[i]); err != nil {
					t.Fatal(err)
				}
				refs = append(refs[:i], refs[i+1:]...)
			default:
				if err := s.Compact(context.Background()); err != nil {
					t.Fatal(err)
				}
			}
			checkCached(t, ix, kinds, owners, members)
		}
	})
}

// readCached reads every cached family, filling the cache.
func readCached(t *rapid.T, ix *Index, kinds []canon.Kind, owners []string, members []string) {
	for _, k := range kinds {
		must(t)(ix.Kinds([]canon.Kind{k}))
	}
	must(t)(ix.Owners(owners))
	must(t)(ix.All())
	must(t)(ix.Public(kinds[:2]))
	must(t)(ix.Public(kinds))
	for _, m := range members {
		if ids, _ := ix.Paths(canon.MustParsePointer("/" + m)); len(ids) > 0 {
			must(t)(ix.Exists(ids))
		}
	}
}

// checkCached compares each cached answer with the store's posting lists.
func checkCached(t *rapid.T, ix *Index, kinds []canon.Kind, owners []string, members []string) {
	disk := func(key []byte) *roaring.Bitmap {
		bm, err := ix.r.Bitmap(key)
		if err != nil {
			t.Fatal(err)
		}
		return bm
	}
	same := func(what string, cached, want *roaring.Bitmap) {
		if !cached.Equals(want) {
			t.Fatalf("%s: cached %v, the store holds %v", what, cached.ToArray(), want.ToArray())
		}
	}
	kindsOnDisk := func(ks []canon.Kind) *roaring.Bitmap {
		out := roaring.New()
		for _, k := range ks {
			out.Or(disk(append(appendFamily(nil, famKind), k...)))
		}
		return out
	}
	for _, k := range kinds {
		same("kind "+string(k), must(t)(ix.Kinds([]canon.Kind{k})), kindsOnDisk([]canon.Kind{k}))
	}
	for _, o := range owners {
		same("owner "+o, must(t)(ix.Owners([]string{o})), disk(append(appendFamily(nil, famOwner), o...)))
	}
	same("all", must(t)(ix.All()), disk(appendFamily(nil, famAll)))
	public := disk(append(appendFamily(nil, famOwner), store.Public...))
	for _, ks := range [][]canon.Kind{kinds[:2], kinds} {
		same(fmt.Sprintf("public %v", ks), must(t)(ix.Public(ks)), roaring.And(public, kindsOnDisk(ks)))
	}
	for _, m := range members {
		ids, _ := ix.Paths(canon.MustParsePointer("/" + m))
		for _, id := range ids {
			same("exists /"+m, must(t)(ix.Exists([]uint32{id})), disk(appendPathKey(nil, famExists, id)))
		}
	}
}

func must(t *rapid.T) func(*roaring.Bitmap, error) *roaring.Bitmap {
	return func(bm *roaring.Bitmap, err error) *roaring.Bitmap {
		if err != nil {
			t.Fatal(err)
		}
		return bm
	}
}
