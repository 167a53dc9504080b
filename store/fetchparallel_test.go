package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/aqlstore/aqlstore/canon"
)

// TestFetchParallel: FetchParallel yields what Fetch yields, in the same
// order, with work run on every visible document; stopping early and an
// error from work both end it (and its workers) cleanly.
func TestFetchParallel(t *testing.T) {
	s := openTest(t, nil)
	ctx := context.Background()
	var batch []Document
	for i := range 3*fetchChunk + 17 {
		owner := Public
		if i%5 == 0 {
			owner = "did:key:other"
		}
		body := fmt.Sprintf(`{"n":%d}`, i)
		if i%25 <= 1 { // the same content under another owner and the public
			body = `{"n":"shared"}`
		}
		batch = append(batch, Document{Body: []byte(body), Owner: owner, Kind: canon.KindJSON})
	}
	if _, err := s.PutBatch(ctx, batch); err != nil {
		t.Fatal(err)
	}
	nums := roaring.New()
	nums.AddRange(1, uint64(len(batch))+1)
	nums.Remove(7)
	var want []string
	for doc, err := range s.Fetch(ctx, nums, false) {
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, fmt.Sprintf("#%d %s", doc.Num, doc.Body))
	}
	for _, workers := range []int{1, 3, 0} {
		var got []string
		for x, err := range FetchParallel(ctx, s, nums, workers, func(w int, doc *StoredDoc) (string, error) {
			return fmt.Sprintf("#%d %s", doc.Num, doc.Body), nil
		}) {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, x)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%d workers: %d results, want %d in Fetch's order", workers, len(got), len(want))
		}
	}
	n := 0
	for _, err := range FetchParallel(ctx, s, nums, 3, func(int, *StoredDoc) (int, error) { return 0, nil }) {
		if err != nil {
			t.Fatal(err)
		}
		if n++; n == 10 {
			break
		}
	}
	boom := errors.New("boom")
	var failAt uint32
	fmt.Sscanf(want[2*fetchChunk+5], "#%d", &failAt)
	var last error
	got := 0
	for _, err := range FetchParallel(ctx, s, nums, 3, func(_ int, doc *StoredDoc) (int, error) {
		if doc.Num == failAt {
			return 0, boom
		}
		return 0, nil
	}) {
		if err != nil {
			last = err
			continue
		}
		got++
	}
	if !errors.Is(last, boom) {
		t.Fatalf("error %v, want boom", last)
	}
	if wantBefore := len(slices.DeleteFunc(slices.Clone(want), func(s string) bool {
		var num int
		fmt.Sscanf(s, "#%d", &num)
		return uint32(num) >= failAt
	})); got > wantBefore {
		t.Errorf("%d results before the error, at most %d expected", got, wantBefore)
	}
}

// TestFetchParallelSharesAFewCandidates: candidates too few for a full
// chunk per worker (a page of 100) are cut into a chunk per worker (which
// worker takes which is the scheduler's), none smaller than
// fetchChunkMin, and yielded in Fetch's order.
func TestFetchParallelSharesAFewCandidates(t *testing.T) {
	s := openTest(t, nil)
	ctx := context.Background()
	var batch []Document
	for i := range 100 {
		batch = append(batch, Document{Body: []byte(fmt.Sprintf(`{"n":%d}`, i)), Kind: canon.KindJSON})
	}
	if _, err := s.PutBatch(ctx, batch); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ n, workers, chunks int }{{100, 2, 2}, {100, 3, 3}, {20, 2, 2}, {20, 4, 2}, {10, 2, 1}} {
		nums := roaring.New()
		nums.AddRange(1, uint64(tc.n)+1)
		if got := len(splitChunks(nums, chunkSize(nums.GetCardinality(), tc.workers))); got != tc.chunks {
			t.Errorf("%d candidates on %d workers: %d chunks, want %d", tc.n, tc.workers, got, tc.chunks)
		}
		var got []uint32
		for num, err := range FetchParallel(ctx, s, nums, tc.workers, func(w int, doc *StoredDoc) (uint32, error) {
			return doc.Num, nil
		}) {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, num)
		}
		if !slices.Equal(got, nums.ToArray()) {
			t.Fatalf("%d candidates on %d workers: yielded %v", tc.n, tc.workers, got)
		}
	}
}
