package store

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"sync/atomic"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"pgregory.net/rapid"
)

// fetchAll collects what Fetch yields for nums as principal, with the
// few-candidates threshold set to few (0: every fetch through the
// cursors; MaxUint64: every fetch by point reads).
func fetchAll(t *rapid.T, s *Store, principal string, nums *roaring.Bitmap, few uint64) []*StoredDoc {
	saved := fewCandidates
	fewCandidates = few
	defer func() { fewCandidates = saved }()
	var out []*StoredDoc
	for doc, err := range s.Fetch(WithPrincipal(context.Background(), principal), nums, false) {
		if err != nil {
			t.Fatalf("fetch %v as %s (threshold %d): %v", nums.ToArray(), principal, few, err)
		}
		out = append(out, doc)
	}
	return out
}

// otherTenant is the test tenant that is not owner: a grantee for a
// document owner holds.
func otherTenant(owner string) string {
	if owner == "did:key:alice" {
		return "did:key:bob"
	}
	return "did:key:alice"
}

var fetchFewCompared, fetchFewNonEmpty, fetchFewShared, fetchFewGranted, fetchFewSeenGranted atomic.Int64

// TestFetchFewMatchesCursors holds Fetch's point reads (a handful of
// candidates) to what its cursors return: the same documents, visible to
// the same readers, with the same bytes, records and signals, whatever
// the owners, grants, deletions and content shared between documents (a
// blob numbered below the document reading it).
func TestFetchFewMatchesCursors(t *testing.T) {
	fetchFewCompared.Store(0)
	fetchFewNonEmpty.Store(0)
	fetchFewShared.Store(0)
	fetchFewGranted.Store(0)
	fetchFewSeenGranted.Store(0)
	owners := []string{Public, "did:key:alice", "did:key:bob"}
	rapid.Check(t, func(t *rapid.T) {
		s := openRapid(t)
		var refs []Ref
		for i := rapid.IntRange(1, 24).Draw(t, "puts"); i > 0; i-- {
			owner := rapid.SampledFrom(owners).Draw(t, "owner")
			body := fmt.Sprintf(`{"n":%d,"tags":["a","b"]}`, rapid.IntRange(0, 6).Draw(t, "content"))
			if rapid.IntRange(0, 3).Draw(t, "candidate") == 0 { // signals stored with the record
				body = fmt.Sprintf(`{"id":"c-%d","record":{"n":1},"score":0.5}`, rapid.IntRange(0, 3).Draw(t, "cid"))
			}
			ref, err := s.Put(WithPrincipal(context.Background(), owner), Document{Body: []byte(body)})
			if err != nil {
				t.Fatalf("put %s as %s: %v", body, owner, err)
			}
			refs = append(refs, ref)
		}
		for _, ref := range refs {
			if ref.Owner == Public || rapid.IntRange(0, 2).Draw(t, "grant") != 0 {
				continue
			}
			grantee := otherTenant(ref.Owner)
			err := s.Grant(WithPrincipal(context.Background(), ref.Owner), Ref{Num: ref.Num}, grantee)
			if err != nil && !errors.Is(err, ErrNotFound) {
				t.Fatalf("grant %d to %s: %v", ref.Num, grantee, err)
			}
			if err == nil {
				fetchFewGranted.Add(1)
			}
		}
		for _, ref := range refs {
			if rapid.IntRange(0, 4).Draw(t, "delete") == 0 {
				err := s.Delete(WithPrincipal(context.Background(), ref.Owner), ref)
				if err != nil && !errors.Is(err, ErrNotFound) { // an idempotent put returned the same ref twice
					t.Fatalf("delete %d: %v", ref.Num, err)
				}
			}
		}
		nums := roaring.New()
		for _, n := range rapid.SliceOfN(rapid.Uint32Range(0, uint32(len(refs)+3)), 0, 8).Draw(t, "nums") {
			nums.Add(n)
		}
		principal := rapid.SampledFrom(owners).Draw(t, "principal")
		cursors := fetchAll(t, s, principal, nums, 0)
		points := fetchAll(t, s, principal, nums, math.MaxUint64)
		if !reflect.DeepEqual(cursors, points) {
			t.Fatalf("fetch %v as %s:\ncursors %s\npoints  %s", nums.ToArray(), principal, docsString(cursors), docsString(points))
		}
		fetchFewCompared.Add(1)
		if len(points) > 0 {
			fetchFewNonEmpty.Add(1)
		}
		for _, d := range points {
			if d.Owner != Public && d.Owner != principal {
				fetchFewSeenGranted.Add(1) // visible through a grant: sees read the grant key
			}
			if rec, found, err := readRecord(s.kv.get, d.Num); err == nil && found && rec.blob != d.Num {
				fetchFewShared.Add(1) // a body read below the last blob: the point read the cursor path makes too
			}
		}
	})
	// The random cases must have compared documents, some with shared
	// content, not only empty sets.
	if fetchFewNonEmpty.Load() == 0 || fetchFewShared.Load() == 0 || fetchFewSeenGranted.Load() == 0 {
		t.Fatalf("%d fetches compared, %d non-empty, %d documents with shared content, %d grants, %d documents "+
			"read through a grant: the cases are vacuous", fetchFewCompared.Load(), fetchFewNonEmpty.Load(),
			fetchFewShared.Load(), fetchFewGranted.Load(), fetchFewSeenGranted.Load())
	}
}

func docsString(docs []*StoredDoc) string {
	s := ""
	for _, d := range docs {
		s += fmt.Sprintf("[%d %s %s %q seq %d] ", d.Num, d.Owner, d.Kind, d.Body, d.Seq)
	}
	return s
}
