package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"pgregory.net/rapid"
)

// fetchSmall collects what Fetch (or FetchLent, copied) yields for nums
// as principal, sequentially or not, with the hot cache serving fetches
// of up to hot documents (0: off).
func fetchSmall(t *rapid.T, s *Store, principal string, nums *roaring.Bitmap, sequential, lent bool, hot uint64) []StoredDoc {
	saved := hotFetchMax
	hotFetchMax = hot
	defer func() { hotFetchMax = saved }()
	ctx := WithPrincipal(context.Background(), principal)
	seq := s.Fetch(ctx, nums, sequential)
	if lent {
		seq = s.FetchLent(ctx, nums, sequential, nil)
	}
	var out []StoredDoc
	for doc, err := range seq {
		if err != nil {
			t.Fatalf("fetch %v as %s: %v", nums.ToArray(), principal, err)
		}
		d := *doc
		d.Body = bytes.Clone(doc.Body)
		d.View = bytes.Clone(doc.View)
		out = append(out, d)
	}
	return out
}

// TestHotDocsEqualUncached holds fetches served by the hot cache to
// fetches that read the store: the same documents, visible to the same
// readers, with the same bytes, records and signals, whatever puts,
// deletes and grants come between them. Every fetch is asked twice
// with the cache on, so the second can be served from it.
func TestHotDocsEqualUncached(t *testing.T) {
	var hits int64 // fetches the stores' caches served
	owners := []string{Public, "did:key:alice", "did:key:bob"}
	rapid.Check(t, func(t *rapid.T) {
		s := openRapid(t)
		defer func() { hits += s.hot.hits.Load() }()
		var refs []Ref
		for step := rapid.IntRange(1, 40).Draw(t, "steps"); step > 0; step-- {
			switch op := rapid.IntRange(0, 9).Draw(t, "op"); {
			case op < 4 || len(refs) == 0:
				owner := rapid.SampledFrom(owners).Draw(t, "owner")
				body := fmt.Sprintf(`{"n":%d}`, rapid.IntRange(0, 8).Draw(t, "content"))
				if rapid.Bool().Draw(t, "candidate") {
					body = fmt.Sprintf(`{"id":"c-%d","record":{"n":1},"score":0.5}`, rapid.IntRange(0, 3).Draw(t, "cid"))
				}
				ref, err := s.Put(WithPrincipal(context.Background(), owner), Document{Body: []byte(body)})
				if err != nil {
					t.Fatalf("put: %v", err)
				}
				refs = append(refs, ref)
			case op == 4:
				ref := rapid.SampledFrom(refs).Draw(t, "deleted")
				if err := s.Delete(WithPrincipal(context.Background(), ref.Owner), ref); err != nil && !errors.Is(err, ErrNotFound) {
					t.Fatalf("delete: %v", err)
				}
			case op == 5:
				ref := rapid.SampledFrom(refs).Draw(t, "granted")
				if ref.Owner == Public {
					continue
				}
				grantee := otherTenant(ref.Owner)
				err := s.Grant(WithPrincipal(context.Background(), ref.Owner), Ref{Num: ref.Num}, grantee)
				if err != nil && !errors.Is(err, ErrNotFound) {
					t.Fatalf("grant: %v", err)
				}
			default:
				nums := roaring.New()
				for range rapid.IntRange(1, 6).Draw(t, "fetched") {
					nums.Add(rapid.Uint32Range(1, uint32(len(refs))+1).Draw(t, "num"))
				}
				principal := rapid.SampledFrom(owners).Draw(t, "principal")
				sequential, lent := rapid.Bool().Draw(t, "sequential"), rapid.Bool().Draw(t, "lent")
				want := fetchSmall(t, s, principal, nums, sequential, lent, 0)
				for range 2 {
					if got := fetchSmall(t, s, principal, nums, sequential, lent, 16); !reflect.DeepEqual(got, want) {
						t.Fatalf("fetch %v as %s: cached\n%+v\nread\n%+v", nums.ToArray(), principal, got, want)
					}
				}
			}
		}
	})
	if hits == 0 {
		t.Fatal("no fetch was served from the cache: the test compared nothing")
	}
}

// TestHotDocsAfterWrite: a fetch after a write reads the store again,
// and a document deleted since it was cached is not returned; a given
// document's body is the caller's, so changing it changes no later
// fetch.
func TestHotDocsAfterWrite(t *testing.T) {
	s := openTest(t, nil)
	ctx := context.Background()
	var refs []Ref
	for i := range 3 {
		ref, err := s.Put(ctx, Document{Body: fmt.Appendf(nil, `{"n":%d}`, i)})
		if err != nil {
			t.Fatal(err)
		}
		refs = append(refs, ref)
	}
	nums := roaring.BitmapOf(refs[0].Num, refs[1].Num, refs[2].Num)
	fetch := func() []*StoredDoc {
		var out []*StoredDoc
		for doc, err := range s.Fetch(ctx, nums, false) {
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, doc)
		}
		return out
	}
	hits := s.hot.hits.Load()
	fetch()
	second := fetch()
	if len(second) != 3 || s.hot.hits.Load() != hits+1 {
		t.Fatalf("second fetch: %d documents, %d served from the cache; want 3 and 1", len(second), s.hot.hits.Load()-hits)
	}
	second[0].Body[2] = 'X' // the caller's own copy
	if got := fetch(); string(got[0].Body) != `{"n":0}` {
		t.Fatalf("a caller's change reached the cache: %s", got[0].Body)
	}
	if err := s.Delete(ctx, refs[1]); err != nil {
		t.Fatal(err)
	}
	hits = s.hot.hits.Load()
	got := fetch()
	if len(got) != 2 || s.hot.hits.Load() != hits {
		t.Fatalf("after a delete: %d documents, %d served from the cache; want 2 and 0", len(got), s.hot.hits.Load()-hits)
	}
}

// TestHotDocsBounded: the cache keeps at most hotMax documents and
// hotMaxBytes of them, counts its bytes exactly, and never keeps a
// document larger than hotDocMaxBytes.
func TestHotDocsBounded(t *testing.T) {
	var h hotDocs
	k := &kv{}
	body := bytes.Repeat([]byte("x"), 12<<10)
	for n := uint32(1); n <= 3*hotMax; n++ {
		h.note(k, 0, n, &record{signals: []byte(`{"score":1}`)}, body[:len(body)-int(n%100)])
	}
	sum := 0
	for _, d := range h.docs {
		sum += len(d.body) + len(d.rec.signals)
	}
	if len(h.docs) > hotMax || h.bytes > hotMaxBytes || h.bytes != sum {
		t.Fatalf("%d documents, %d bytes counted, %d held: bounds %d and %d", len(h.docs), h.bytes, sum, hotMax, hotMaxBytes)
	}
	h.note(k, 0, 1<<30, &record{}, make([]byte, hotDocMaxBytes+1))
	if _, ok := h.docs[1<<30]; ok {
		t.Fatal("a document larger than hotDocMaxBytes was kept")
	}
}
