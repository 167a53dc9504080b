package store

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/internal/race"
)

// TestFetchLent: FetchLent yields what Fetch yields (seen during the
// loop), by point reads, through the cursor and sequentially, shared
// content and another owner's documents included, and reads each
// document into the same buffers: fewer allocations per document.
func TestFetchLent(t *testing.T) {
	s := openTest(t, nil)
	ctx := context.Background()
	var batch []Document
	for i := range 200 {
		owner := Public
		if i%7 == 0 {
			owner = "did:key:other"
		}
		body := fmt.Sprintf(`{"n":%d,"pad":"%0200d"}`, i, i)
		if i%25 <= 1 {
			body = `{"n":"shared"}`
		}
		batch = append(batch, Document{Body: []byte(body), Owner: owner, Kind: canon.KindJSON})
	}
	if _, err := s.PutBatch(ctx, batch); err != nil {
		t.Fatal(err)
	}
	seen := func(docs func(func(*StoredDoc, error) bool)) []string {
		var out []string
		for doc, err := range docs {
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprintf("#%d %s %s %s %d", doc.Num, doc.ID, doc.Owner, doc.Body, doc.Seq))
		}
		return out
	}
	nums := roaring.New()
	nums.AddRange(1, 201)
	nums.Remove(9)
	for _, set := range []*roaring.Bitmap{nums, roaring.BitmapOf(3, 4, 150)} {
		for _, sequential := range []bool{false, true} {
			want := seen(s.Fetch(ctx, set, sequential))
			if got := seen(s.FetchLent(ctx, set, sequential, nil)); !slices.Equal(got, want) || len(want) == 0 {
				t.Fatalf("sequential %v: FetchLent yields %d documents unlike Fetch's %d", sequential, len(got), len(want))
			}
		}
	}
	count := func(docs func(func(*StoredDoc, error) bool)) {
		for _, err := range docs {
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	given := testing.AllocsPerRun(10, func() { count(s.Fetch(ctx, nums, false)) })
	lent := testing.AllocsPerRun(10, func() { count(s.FetchLent(ctx, nums, false, nil)) })
	if n := float64(nums.GetCardinality()); lent > given-n {
		t.Errorf("FetchLent: %.0f allocations for %.0f documents, Fetch %.0f; want at least one fewer per document", lent, n, given)
	}
}

// TestFetchLentAllocatesNoDocument: a lent fetch reads every document
// into the same StoredDoc and record, by cursor and sequentially: what
// it allocates does not grow with the documents read.
func TestFetchLentAllocatesNoDocument(t *testing.T) {
	s := openTest(t, nil)
	ctx := context.Background()
	var batch []Document
	for i := range 300 {
		batch = append(batch, Document{Body: []byte(fmt.Sprintf(`{"n":%d,"pad":"%0200d"}`, i, i)), Kind: canon.KindJSON})
	}
	if _, err := s.PutBatch(ctx, batch); err != nil {
		t.Fatal(err)
	}
	count := func(nums *roaring.Bitmap, sequential bool) {
		for _, err := range s.FetchLent(ctx, nums, sequential, nil) {
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	if race.Enabled {
		t.Skip("allocation counts under the race detector are its own")
	}
	for _, sequential := range []bool{false, true} {
		few, many := roaring.New(), roaring.New()
		few.AddRange(1, 11)
		many.AddRange(1, 291)
		a := testing.AllocsPerRun(10, func() { count(few, sequential) })
		b := testing.AllocsPerRun(10, func() { count(many, sequential) })
		if b-a > 28 { // a tenth of an allocation per document more
			t.Errorf("sequential %v: %.0f allocations for 10 documents, %.0f for 290", sequential, a, b)
		}
	}
}
