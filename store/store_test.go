package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/aqlstore/aqlstore/canon"
)

func openTest(t testing.TB, opts *Options) *Store {
	t.Helper()
	if opts == nil {
		opts = &Options{NoSync: true}
	}
	s, err := Open(t.TempDir(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func mustPut(t testing.TB, s *Store, ctx context.Context, body string) Ref {
	t.Helper()
	ref, err := s.Put(ctx, Document{Body: []byte(body)})
	if err != nil {
		t.Fatalf("put %s: %v", body, err)
	}
	return ref
}

func verifyOK(t testing.TB, s *Store) *VerifyReport {
	t.Helper()
	rep, err := s.Verify(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() {
		t.Fatalf("verify: %d problems: %s", rep.Count, strings.Join(rep.Problems, "; "))
	}
	return rep
}

func TestPutGetCanonical(t *testing.T) {
	s := openTest(t, nil)
	ctx := context.Background()
	ref := mustPut(t, s, ctx, `{ "offer_id": "o-1", "price": {"currency":"EUR", "amount":"10.00"} }`)
	if ref.Kind != canon.KindOffer || ref.Owner != Public || ref.Num != 1 {
		t.Fatalf("ref %+v", ref)
	}
	doc, err := s.Get(ctx, Ref{ID: ref.ID})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"offer_id":"o-1","price":{"amount":"10.00","currency":"EUR"}}`
	if string(doc.Body) != want || doc.ID != canon.Sum([]byte(want)) {
		t.Fatalf("body %s id %s", doc.Body, doc.ID)
	}
	byKey, err := s.Lookup(ctx, canon.KindOffer, "o-1")
	if err != nil || byKey.Num != ref.Num {
		t.Fatalf("lookup: %v %+v", err, byKey)
	}
	if _, err := s.Get(ctx, Ref{Num: 99}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing doc: %v", err)
	}
}

// repeats reports whether again is first's document, found already
// stored by an idempotent put rather than created.
func repeats(again, first Ref) bool {
	first.Created = false
	return again == first
}

// TestConcurrentIdenticalPuts: of identical puts racing, exactly one is
// told it created the document.
func TestConcurrentIdenticalPuts(t *testing.T) {
	s := openTest(t, nil)
	ctx := context.Background()
	const n = 8
	refs := make([]Ref, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			refs[i], errs[i] = s.Put(ctx, Document{Body: []byte(`{"offer_id":"o-race","v":1}`)})
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	created := 0
	for _, r := range refs {
		if r.Created {
			created++
		}
		if r.ID != refs[0].ID || r.Num != refs[0].Num {
			t.Fatalf("identical puts stored two documents: %+v %+v", refs[0], r)
		}
	}
	if created != 1 {
		t.Fatalf("%d of %d identical racing puts said they created the document, want 1", created, n)
	}
}

func TestIdempotentAndConflict(t *testing.T) {
	s := openTest(t, nil)
	ctx := context.Background()
	a := mustPut(t, s, ctx, `{"offer_id":"o-1","v":1}`)
	again := mustPut(t, s, ctx, `{"v":1, "offer_id":"o-1"}`)
	if !a.Created || !repeats(again, a) {
		t.Fatalf("identical put gave %+v then %+v; want the same document, created the first time only", a, again)
	}
	_, err := s.Put(ctx, Document{Body: []byte(`{"offer_id":"o-1","v":2}`)})
	var ce *ConflictError
	if !errors.As(err, &ce) || !errors.Is(err, ErrConflict) {
		t.Fatalf("want conflict, got %v", err)
	}
	if ce.Existing != a.ID.String() || !strings.Contains(err.Error(), ce.Incoming) {
		t.Errorf("conflict does not name both ids: %v", err)
	}
	st, _ := s.Stats(ctx)
	if st.Documents != 1 || st.Receipts != 1 {
		t.Errorf("idempotent put or conflict wrote something: %+v", st)
	}
	verifyOK(t, s)
}

func TestTenantsAndSharedBlobs(t *testing.T) {
	s := openTest(t, nil)
	alice := WithPrincipal(context.Background(), "did:key:alice")
	bob := WithPrincipal(context.Background(), "did:key:bob")
	body := `{"message_id":"m-1","text":"hello"}`
	ra := mustPut(t, s, alice, body)
	rb := mustPut(t, s, bob, body)
	if ra.ID != rb.ID || ra.Num == rb.Num || ra.Owner != "did:key:alice" {
		t.Fatalf("refs %+v %+v", ra, rb)
	}
	st, _ := s.Stats(context.Background())
	if st.Blobs != 1 || st.Documents != 2 {
		t.Fatalf("identical content not shared: %+v", st)
	}
	// Nobody else sees them; each sees their own.
	if _, err := s.Get(context.Background(), Ref{ID: ra.ID}); !errors.Is(err, ErrNotFound) {
		t.Errorf("public reader saw a private doc: %v", err)
	}
	if d, err := s.Get(bob, Ref{Num: ra.Num}); !errors.Is(err, ErrNotFound) {
		t.Errorf("bob read alice's doc: %v %+v", err, d)
	}
	if d, err := s.Get(bob, Ref{ID: ra.ID}); err != nil || d.Num != rb.Num {
		t.Errorf("bob's own copy: %v %+v", err, d)
	}
	if _, err := s.Lookup(bob, canon.KindMessage, "m-1"); err != nil {
		t.Errorf("bob lookup: %v", err)
	}
	// Deleting alice's copy keeps bob's bytes; deleting the last removes them.
	if err := s.Delete(bob, Ref{Num: ra.Num}); !errors.Is(err, ErrNotFound) {
		t.Errorf("bob deleted alice's doc: %v", err)
	}
	if err := s.Delete(alice, Ref{ID: ra.ID}); err != nil {
		t.Fatal(err)
	}
	if d, err := s.Get(bob, Ref{ID: rb.ID}); err != nil || string(d.Body) != `{"message_id":"m-1","text":"hello"}` {
		t.Fatalf("bob's copy after alice's delete: %v", err)
	}
	if err := s.Delete(bob, rb); err != nil {
		t.Fatal(err)
	}
	st, _ = s.Stats(context.Background())
	if st.Blobs != 0 || st.Documents != 0 || st.Receipts != 4 {
		t.Fatalf("after deleting both: %+v", st)
	}
	verifyOK(t, s)
}

func TestBatchIsAtomic(t *testing.T) {
	s := openTest(t, nil)
	ctx := context.Background()
	mustPut(t, s, ctx, `{"offer_id":"taken","v":1}`)
	bad := [][]Document{
		{{Body: []byte(`{"offer_id":"a"}`)}, {Body: []byte(`{"a":1,"a":2}`)}},
		{{Body: []byte(`{"offer_id":"b"}`)}, {Body: []byte(`{"offer_id":"taken","v":2}`)}},
		{{Body: []byte(`{"offer_id":"c"}`)}, {Body: []byte(`{"offer_id":"c","other":true}`)}},
		{{Body: []byte(`{"offer_id":"d"}`)}, {Body: []byte(`[` + strings.Repeat("[", 100) + strings.Repeat("]", 101))}},
		{{Body: []byte(`{"offer_id":"e"}`)}, {Body: []byte(`{"x":1}`), Kind: "bogus"}},
		{{Body: []byte(`{"offer_id":"f"}`)}, {Body: []byte("\"\xff\"")}},
	}
	for i, docs := range bad {
		_, err := s.PutBatch(ctx, docs)
		var be *BatchError
		if !errors.As(err, &be) || be.Index != 1 {
			t.Errorf("batch %d: want an error on document 1, got %v", i, err)
		}
	}
	st, _ := s.Stats(ctx)
	if st.Documents != 1 || st.Receipts != 1 || st.NextNumber != 2 {
		t.Fatalf("a failed batch left something behind: %+v", st)
	}
	verifyOK(t, s)
}

func TestReopenKeepsCountersAndChain(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	s, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		mustPut(t, s, ctx, fmt.Sprintf(`{"node_id":"n-%d"}`, i))
	}
	s.Close()
	s, err = Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ref := mustPut(t, s, ctx, `{"node_id":"n-5"}`)
	if ref.Num != 6 {
		t.Fatalf("numbering restarted: %+v", ref)
	}
	rep := verifyOK(t, s)
	if rep.Receipts != 6 || rep.Documents != 6 {
		t.Fatalf("report %+v", rep)
	}
}

func TestScanByKind(t *testing.T) {
	s := openTest(t, nil)
	ctx := context.Background()
	alice := WithPrincipal(ctx, "did:key:alice")
	mustPut(t, s, ctx, `{"offer_id":"o-1"}`)
	mustPut(t, s, ctx, `{"node_id":"k-1"}`)
	mustPut(t, s, alice, `{"offer_id":"o-2"}`)
	mustPut(t, s, ctx, `{"offer_id":"o-3"}`)
	count := func(ctx context.Context, kind canon.Kind) (n int, keys string) {
		for d, err := range s.Scan(ctx, kind) {
			if err != nil {
				t.Fatal(err)
			}
			n++
			keys += d.NaturalKey + ","
		}
		return n, keys
	}
	if n, keys := count(ctx, canon.KindOffer); n != 2 || keys != "o-1,o-3," {
		t.Errorf("public offers: %d %s", n, keys)
	}
	if n, keys := count(alice, canon.KindOffer); n != 3 || keys != "o-1,o-2,o-3," {
		t.Errorf("alice's offers: %d %s", n, keys)
	}
	if n, _ := count(ctx, ""); n != 3 {
		t.Errorf("all public: %d", n)
	}
	for range s.Scan(ctx, "") {
		break // stopping early must not panic
	}
	scanKinds := func(ctx context.Context, kinds ...canon.Kind) (keys string) {
		for d, err := range s.ScanKinds(ctx, kinds) {
			if err != nil {
				t.Fatal(err)
			}
			keys += d.NaturalKey + ","
		}
		return keys
	}
	if keys := scanKinds(alice, canon.KindOffer, canon.KindKnowledge); keys != "o-1,k-1,o-2,o-3," {
		t.Errorf("alice's offers and knowledge: %s", keys)
	}
	if keys := scanKinds(ctx, canon.KindKnowledge); keys != "k-1," {
		t.Errorf("public knowledge: %s", keys)
	}
	if keys := scanKinds(ctx); keys != "" {
		t.Errorf("no kinds: %s", keys)
	}
}

func TestConcurrentPutsKeepChain(t *testing.T) {
	s := openTest(t, &Options{})
	ctx := context.Background()
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 25; i++ {
				body := fmt.Sprintf(`{"message_id":"m-%d-%d"}`, w, i)
				if _, err := s.Put(ctx, Document{Body: []byte(body)}); err != nil {
					t.Error(err)
				}
				// Every writer also races on one shared natural key.
				s.Put(ctx, Document{Body: []byte(fmt.Sprintf(`{"message_id":"shared","w":%d}`, w))})
			}
		}(w)
	}
	wg.Wait()
	rep := verifyOK(t, s)
	if rep.Documents != 201 || rep.Receipts != 201 {
		t.Fatalf("want 201 documents and receipts, got %+v", rep)
	}
}

func TestVerifyFindsDamage(t *testing.T) {
	s := openTest(t, nil)
	ctx := context.Background()
	ref := mustPut(t, s, ctx, `{"offer_id":"o-1"}`)
	mustPut(t, s, ctx, `{"offer_id":"o-2"}`)
	b := s.kv.newBatch()
	b.set(AppendBlobKey(nil, ref.Num), encodeBlob(nil, []byte(`{"offer_id":"o-X"}`), "none"))
	b.set(AppendReceiptKey(nil, 1), []byte(`{"seq":1}`))
	if err := s.kv.apply(b, false); err != nil {
		t.Fatal(err)
	}
	b.wait()
	rep, err := s.Verify(ctx)
	if err != nil {
		t.Fatal(err)
	}
	joined := strings.Join(rep.Problems, "\n")
	if rep.OK() || !strings.Contains(joined, "blob "+ref.ID.String()) || !strings.Contains(joined, "receipt ") {
		t.Fatalf("damage not reported: %s", joined)
	}
	if _, err := s.Get(ctx, ref); err != nil {
		t.Logf("get after damage: %v", err)
	}
}

func TestOptionsValidate(t *testing.T) {
	if _, err := Open(t.TempDir(), &Options{BlobCompression: "lz4"}); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "lz4") {
		t.Fatalf("bad option: %v", err)
	}
	// Sizes Pebble would panic on (a 1-byte memtable, a 2 GiB block) or
	// refuse in its own words are refused, naming the option.
	for _, o := range []Options{{MemTableSize: 1}, {MemTableSize: 4 << 30}, {BlockSize: 2 << 30}} {
		o.NoSync = true
		s, err := Open(t.TempDir(), &o)
		if err == nil {
			s.Close()
		}
		if !errors.Is(err, ErrInvalid) || (!strings.Contains(err.Error(), "MemTableSize") && !strings.Contains(err.Error(), "BlockSize")) {
			t.Errorf("MemTableSize %d, BlockSize %d: %v, want ErrInvalid naming the option", o.MemTableSize, o.BlockSize, err)
		}
	}
	s := openTest(t, &Options{BlobCompression: "zstd", NoSync: true})
	ref := mustPut(t, s, context.Background(), `{"node_id":"z","text":"`+strings.Repeat("compressible ", 50)+`"}`)
	d, err := s.Get(context.Background(), ref)
	if err != nil || !strings.Contains(string(d.Body), "compressible compressible") {
		t.Fatalf("zstd round trip: %v", err)
	}
	if _, err := s.Put(context.Background(), Document{Body: []byte(`{}`), Owner: "a\x00b"}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("NUL owner: %v", err)
	}
}

func TestWaitChange(t *testing.T) {
	s := openTest(t, nil)
	ctx := context.Background()
	done := make(chan uint64)
	go func() {
		head, err := s.WaitChange(ctx, 0)
		if err != nil {
			t.Error(err)
		}
		done <- head
	}()
	mustPut(t, s, ctx, `{"offer_id":"w"}`)
	if head := <-done; head != 1 || s.Head() != 1 {
		t.Fatalf("head %d", head)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.WaitChange(cctx, 1); err == nil {
		t.Fatal("cancelled wait returned no error")
	}
}

func TestCandidatesSharingARecord(t *testing.T) {
	s := openTest(t, nil)
	ctx := context.Background()
	a := mustPut(t, s, ctx, `{"id":"seller-a:1","score":0.9,"record":{"sku":"shoe"}}`)
	b := mustPut(t, s, ctx, `{"id":"seller-b:7","score":0.5,"record":{"sku":"shoe"}}`)
	if a.ID != b.ID || a.Num == b.Num {
		t.Fatalf("identical records under two ids collapsed: %+v %+v", a, b)
	}
	if again := mustPut(t, s, ctx, `{"id":"seller-a:1","score":0.9,"record":{"sku":"shoe"}}`); !repeats(again, a) {
		t.Fatalf("identical candidate not idempotent: %+v", again)
	}
	_, err := s.Put(ctx, Document{Body: []byte(`{"id":"seller-a:1","score":0.1,"record":{"sku":"shoe"}}`)})
	if !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), "signals") {
		t.Fatalf("changed signals: %v", err)
	}
	if err := s.Delete(ctx, Ref{ID: a.ID}); err != nil {
		t.Fatal(err)
	}
	if d, err := s.Get(ctx, Ref{ID: a.ID}); err != nil || d.Num != b.Num {
		t.Fatalf("the other candidate after delete: %v %+v", err, d)
	}
	st, _ := s.Stats(ctx)
	if st.Blobs != 1 || st.Documents != 1 {
		t.Fatalf("stats %+v", st)
	}
	verifyOK(t, s)
}
