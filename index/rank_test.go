package index

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/store"
	"github.com/cockroachdb/apd/v3"
)

type ranked struct {
	score canon.Number
	id    string
	num   uint32
}

// rankCompare is the resolver's order, written out independently of the
// keys: score descending (no score last), candidate id, number.
func rankCompare(a, b ranked) int {
	switch {
	case a.score == "" && b.score != "":
		return 1
	case a.score != "" && b.score == "":
		return -1
	case a.score != "":
		da, _, _ := apd.NewFromString(string(a.score))
		db, _, _ := apd.NewFromString(string(b.score))
		if c := db.Cmp(da); c != 0 {
			return c
		}
	}
	if c := cmp.Compare(a.id, b.id); c != 0 {
		return c
	}
	return cmp.Compare(a.num, b.num)
}

func walkAll(t *testing.T, ix *Index, after []byte) []uint32 {
	t.Helper()
	var got []uint32
	if err := ix.WalkRank(after, func(num uint32) (bool, error) { got = append(got, num); return true, nil }); err != nil {
		t.Fatal(err)
	}
	return got
}

// TestRankOrderFollowsWrites: the rank keys a put writes and a delete
// removes walk in the resolver's order, survive a reopen, resume strictly
// after a key, and stop when asked; Check finds them consistent.
func TestRankOrderFollowsWrites(t *testing.T) {
	dir := t.TempDir()
	s, ix, err := Open(dir, &store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	scores := []canon.Number{"1.5", "", "10", "1.50", "-2", "0", "", "1e-30", "1.5", "-0.5", "1E+2"}
	ids := []string{"m", "a", "z", "b", "c", "d", "b", "e", "a", "f", "g\x00x"}
	var want []ranked
	var refs []store.Ref
	for i, sc := range scores {
		var sig *canon.Signals
		if sc != "" {
			sig = &canon.Signals{Score: sc}
		}
		body := `{"offer_id":` + string(canon.AppendValue(nil, ids[i])) + `,"i":` + strconv.Itoa(i) + `}`
		owner := store.WithPrincipal(ctx, "did:web:"+strconv.Itoa(i)+".example") // an id may repeat across owners
		ref, err := s.Put(owner, store.Document{Body: []byte(body), Signals: sig})
		if err != nil {
			t.Fatal(err)
		}
		refs = append(refs, ref)
		want = append(want, ranked{sc, ids[i], ref.Num})
	}
	if err := s.Delete(store.WithPrincipal(ctx, "did:web:2.example"), refs[2]); err != nil {
		t.Fatal(err)
	}
	want = slices.Delete(want, 2, 3)
	slices.SortFunc(want, rankCompare)
	var wantNums []uint32
	for _, w := range want {
		wantNums = append(wantNums, w.num)
	}
	if got := walkAll(t, ix, nil); !slices.Equal(got, wantNums) {
		t.Fatalf("rank walk = %v, want %v (%v)", got, wantNums, want)
	}
	after, err := AppendRankKey(nil, want[3].score, want[3].id, want[3].num)
	if err != nil {
		t.Fatal(err)
	}
	if got := walkAll(t, ix, after); !slices.Equal(got, wantNums[4:]) {
		t.Fatalf("rank walk after %v = %v, want %v", want[3], got, wantNums[4:])
	}
	var first []uint32
	err = ix.WalkRank(nil, func(num uint32) (bool, error) { first = append(first, num); return len(first) < 2, nil })
	if err != nil || !slices.Equal(first, wantNums[:2]) {
		t.Fatalf("stopped walk = %v, %v; want %v", first, err, wantNums[:2])
	}
	if rep, err := Check(ctx, s); err != nil || !rep.OK() {
		t.Fatalf("check: %v %+v", err, rep)
	}
	s.Close()
	s, ix, err = Open(dir, &store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := walkAll(t, ix, nil); !slices.Equal(got, wantNums) {
		t.Fatalf("rank walk after reopen = %v, want %v", got, wantNums)
	}
}

// rescoring indexes every document as if its score were 7: rank keys
// that disagree with the documents, for Check.
type rescoring struct{ *Index }

func (r rescoring) Add(num uint32, doc store.IndexInput) error {
	doc.Score = "7"
	return r.Index.Add(num, doc)
}

func (r rescoring) AddExtracted(num uint32, x any) error {
	c := *x.(*extracted)
	c.doc.Score = "7"
	return r.Index.AddExtracted(num, &c)
}

func TestCheckFindsWrongRankKeys(t *testing.T) {
	s, err := store.Open(t.TempDir(), &store.Options{NoSync: true, Indexer: rescoring{New()}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	put(t, s, ctx, `{"offer_id":"a","n":1}`)
	rep, err := Check(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(rep.Problems, "\n")
	if rep.Count != 2 || !strings.Contains(all, "matches no document") || !strings.Contains(all, "document 1 has no rank key") {
		t.Fatalf("check of a wrong rank key: %+v", rep)
	}
}

// TestRankTreeFollowsCommits: once a walk has built the in-memory rank
// order, each later commit (puts, a replace, deletes, a batch larger
// than the delta a commit applies, an aborted put) leaves it equal to
// the stored keys, and a walk that began before a commit keeps seeing
// the order as it was.
func TestRankTreeFollowsCommits(t *testing.T) {
	s, ix, err := Open(t.TempDir(), &store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	put := func(docs ...store.Document) []store.Ref {
		t.Helper()
		refs, err := s.PutBatch(ctx, docs)
		if err != nil {
			t.Fatal(err)
		}
		return refs
	}
	doc := func(id string, score canon.Number) store.Document {
		var sig *canon.Signals
		if score != "" {
			sig = &canon.Signals{Score: score}
		}
		return store.Document{Body: []byte(`{"offer_id":"` + id + `"}`), Signals: sig}
	}
	same := func(step string) {
		t.Helper()
		var stored []uint32
		err := ix.walkRankKeys(func(key []byte) (bool, error) {
			num, _ := rankNum(key)
			stored = append(stored, num)
			return true, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if got := walkAll(t, ix, nil); !slices.Equal(got, stored) {
			t.Fatalf("%s: in-memory rank walk = %v, stored keys say %v", step, got, stored)
		}
	}
	refs := put(doc("b", "2"), doc("a", ""), doc("c", "10"))
	same("first walk")
	before := walkAll(t, ix, nil)
	var during []uint32
	err = ix.WalkRank(nil, func(num uint32) (bool, error) {
		if len(during) == 0 { // a commit while this walk is under way
			put(doc("d", "100"), doc("e", "0.5"))
		}
		during = append(during, num)
		return true, nil
	})
	if err != nil || !slices.Equal(during, before) {
		t.Fatalf("a walk across a commit = %v, %v; want the order it began with, %v", during, err, before)
	}
	same("after puts")
	put(doc("b2", "7"))
	if err := s.Delete(ctx, refs[2]); err != nil {
		t.Fatal(err)
	}
	same("after a delete")
	defer func(n int) { rankDeltaMax = n }(rankDeltaMax)
	rankDeltaMax = 4
	var many []store.Document
	for i := range rankDeltaMax + 1 {
		many = append(many, doc("m"+strconv.Itoa(i), canon.Number(strconv.Itoa(i%3))))
	}
	put(many...)
	if ix.rank.snap.Load() != nil {
		t.Fatal("a commit past rankDeltaMax kept the in-memory order")
	}
	if err := ix.Warm(); err != nil || ix.rank.snap.Load() == nil {
		t.Fatalf("Warm = %v and left the in-memory order unbuilt", err)
	}
	same("after a large batch")
	put(doc("y", "1"), doc("x", "1"))
	same("after a commit under the limit")
	if _, err := s.Put(ctx, store.Document{Body: []byte(`{"offer_id":`)}); err == nil {
		t.Fatal("a malformed document was stored")
	}
	put(doc("z", "3"))
	same("after an aborted put")
}
