package index

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"testing"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/store"
)

// treeWalk walks the committed order's B-tree, flattened or not.
func treeWalk(t *testing.T, ix *Index, after []byte) []uint32 {
	t.Helper()
	sn, err := ix.rank.tree(ix.r)
	if err != nil {
		t.Fatal(err)
	}
	var got []uint32
	if err := sn.walkTree(after, func(num uint32) (bool, error) { got = append(got, num); return true, nil }); err != nil {
		t.Fatal(err)
	}
	return got
}

// flatWalk flattens the committed order (Warm) and walks it through
// WalkRank.
func flatWalk(t *testing.T, ix *Index, after []byte) []uint32 {
	t.Helper()
	if err := ix.Warm(); err != nil {
		t.Fatal(err)
	}
	sn, _ := ix.rank.tree(ix.r)
	if sn.flat.Load() == nil {
		t.Fatal("Warm left the order unflattened")
	}
	return walkAll(t, ix, after)
}

// TestRankFlatWalksAsTheTree: the flattened rank order walks (WalkRank)
// and lists (RankNums) the same numbers as the B-tree it was made from, from the start and strictly
// after every key (and after keys that are not in the order: before the
// first, between two, past the last), and stops when asked; after each
// commit (puts, a replace, deletes) the next order is walked from its
// tree until it is flattened again.
func TestRankFlatWalksAsTheTree(t *testing.T) {
	s, ix, err := Open(t.TempDir(), &store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	put := func(ctx context.Context, id string, score canon.Number) store.Ref {
		t.Helper()
		var sig *canon.Signals
		if score != "" {
			sig = &canon.Signals{Score: score}
		}
		ref, err := s.Put(ctx, store.Document{Body: []byte(`{"offer_id":"` + id + `"}`), Signals: sig})
		if err != nil {
			t.Fatal(err)
		}
		return ref
	}
	compare := func(step string) {
		t.Helper()
		var keys [][]byte
		err := ix.walkRankKeys(func(key []byte) (bool, error) {
			keys = append(keys, slices.Clone(key))
			return true, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		afters := [][]byte{nil, {store.IndexPrefix, famRank}, {store.IndexPrefix, famRank + 1}}
		for _, k := range keys {
			afters = append(afters, k, append(slices.Clone(k[:len(k)-1]), k[len(k)-1]+1)) // the key, and one just past it
		}
		for _, after := range afters {
			want := treeWalk(t, ix, after)
			if got := flatWalk(t, ix, after); !slices.Equal(got, want) {
				t.Fatalf("%s: flattened walk after %x = %v, the tree's %v", step, after, got, want)
			}
			if got, ok, err := ix.RankNums(after); err != nil || !ok || !slices.Equal(got, want) && len(got)+len(want) > 0 {
				t.Fatalf("%s: RankNums after %x = %v, %v, %v; the tree walks %v", step, after, got, ok, err, want)
			}
		}
		if len(keys) > 2 {
			var first []uint32
			err := ix.WalkRank(keys[0], func(num uint32) (bool, error) { first = append(first, num); return len(first) < 2, nil })
			if want := treeWalk(t, ix, keys[0])[:2]; err != nil || !slices.Equal(first, want) {
				t.Fatalf("%s: stopped flattened walk = %v, %v; want %v", step, first, err, want)
			}
		}
	}
	compare("empty")
	var refs []store.Ref
	for i, sc := range []canon.Number{"3", "", "10", "3", "-1", "0.5", ""} {
		refs = append(refs, put(ctx, "o"+strconv.Itoa(i), sc))
	}
	compare("after puts")
	put(store.WithPrincipal(ctx, "did:web:other.example"), "o1", "99") // the same id, another owner's document
	if err := s.Delete(ctx, refs[2]); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, refs[1]); err != nil {
		t.Fatal(err)
	}
	compare("after deletes")
	put(ctx, "late", "1")
	compare("after a put past the deletes")
}

// TestRankFlattensOnceWalked: an order is walked from its tree until
// walks have passed one key in rankFlatShare, then flattened; a commit
// publishes an order that is not.
func TestRankFlattensOnceWalked(t *testing.T) {
	s, ix, err := Open(t.TempDir(), &store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	var docs []store.Document
	for i := range 40 {
		docs = append(docs, store.Document{Body: []byte(`{"offer_id":"o` + strconv.Itoa(i) + `"}`)})
	}
	if _, err := s.PutBatch(ctx, docs); err != nil {
		t.Fatal(err)
	}
	flat := func() bool { sn, _ := ix.rank.tree(ix.r); return sn.flat.Load() != nil }
	step := func(n int) {
		t.Helper()
		seen := 0
		if err := ix.WalkRank(nil, func(uint32) (bool, error) { seen++; return seen < n, nil }); err != nil {
			t.Fatal(err)
		}
	}
	step(9) // 9 of the 10 keys that flatten 40 at one in four
	if flat() {
		t.Fatal("flattened after walks passed 9 of 40 keys")
	}
	step(1)
	step(1) // the walk after the tenth key walks the flattened order
	if !flat() {
		t.Fatal("not flattened after walks passed 10 of 40 keys")
	}
	if _, err := s.Put(ctx, store.Document{Body: []byte(`{"offer_id":"new"}`)}); err != nil {
		t.Fatal(err)
	}
	if flat() {
		t.Fatal("the order a commit published was flattened before any walk")
	}
}

// TestRankFlattenUnderCommits: walks on several goroutines, which
// flatten each committed order they walk enough, while commits publish
// new orders, each see one whole committed order (as many keys as some
// commit left, in an order no walk contradicts). Run it with -race.
func TestRankFlattenUnderCommits(t *testing.T) {
	s, ix, err := Open(t.TempDir(), &store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	defer func(n int) { rankFlatShare = n }(rankFlatShare)
	rankFlatShare = 1 // flattened once walks have passed every key: often, with walks on four goroutines
	ctx := context.Background()
	const commits, batch = 30, 10
	done := make(chan struct{})
	errs := make(chan error, 4)
	for g := range 4 {
		go func() {
			for {
				select {
				case <-done:
					errs <- nil
					return
				default:
				}
				var nums []uint32
				var err error
				if g%2 == 0 {
					err = ix.WalkRank(nil, func(num uint32) (bool, error) { nums = append(nums, num); return true, nil })
				} else {
					var flat bool
					if nums, flat, err = ix.RankNums(nil); !flat {
						continue
					}
				}
				if err == nil && len(nums)%batch != 0 {
					err = fmt.Errorf("a walk saw %d keys, not a whole number of commits of %d", len(nums), batch)
				}
				for i := 1; err == nil && i < len(nums); i++ {
					if nums[i] > nums[i-1] { // scores fall as numbers rise: the order is by number, descending
						err = fmt.Errorf("a walk saw %d before %d", nums[i-1], nums[i])
					}
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for c := range commits {
		var docs []store.Document
		for i := range batch {
			n := c*batch + i
			docs = append(docs, store.Document{Body: []byte(fmt.Sprintf(`{"offer_id":"o%d"}`, n)),
				Signals: &canon.Signals{Score: canon.Number(strconv.Itoa(n))}})
		}
		if _, err := s.PutBatch(ctx, docs); err != nil {
			t.Fatal(err)
		}
	}
	close(done)
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}
