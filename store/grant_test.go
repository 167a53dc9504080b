package store

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"pgregory.net/rapid"

	"github.com/aqlstore/aqlstore/canon"
)

const (
	tenantA = "did:web:grant-a.example"
	tenantB = "did:web:grant-b.example"
	tenantC = "did:web:grant-c.example"
)

func as(did string) context.Context { return WithPrincipal(context.Background(), did) }

// reads is what one reader gets for one document through every read
// path: Get by content id and by number, Lookup, Scan, Fetch and
// Headers.
type reads struct{ byID, byNum, lookup, scan, fetch, headers bool }

func readsOf(t *testing.T, s *Store, reader string, ref Ref, kind canon.Kind, key string) reads {
	t.Helper()
	ctx := as(reader)
	var r reads
	found := func(doc *StoredDoc, err error) bool {
		t.Helper()
		if err != nil && !errors.Is(err, ErrNotFound) {
			t.Fatalf("as %s: %v", reader, err)
		}
		return err == nil && doc.Num == ref.Num
	}
	r.byID = found(s.Get(ctx, Ref{ID: ref.ID}))
	r.byNum = found(s.Get(ctx, Ref{Num: ref.Num}))
	if key != "" {
		r.lookup = found(s.Lookup(ctx, kind, key))
	}
	all := roaring.New()
	all.AddRange(1, uint64(ref.Num)+10)
	for name, seq := range map[*bool]func(func(*StoredDoc, error) bool){
		&r.scan: s.Scan(ctx, ""), &r.fetch: s.Fetch(ctx, all, false),
	} {
		for doc, err := range seq {
			if err != nil {
				t.Fatalf("as %s: %v", reader, err)
			}
			*name = *name || doc.Num == ref.Num
		}
	}
	for h, err := range s.Headers(ctx, all) {
		if err != nil {
			t.Fatalf("as %s: %v", reader, err)
		}
		r.headers = r.headers || h.Num == ref.Num
	}
	return r
}

var (
	readsNone = reads{}
	readsAll  = reads{true, true, true, true, true, true}
)

// TestGrantShowsDocumentToGranteeOnly: a grant shows the document to the
// grantee on every read path, and to nobody else; a revoke hides it again.
func TestGrantShowsDocumentToGranteeOnly(t *testing.T) {
	s := openTest(t, nil)
	ref, err := s.Put(as(tenantA), Document{Body: []byte(`{"offer_id": "o-secret", "price": "10.00"}`)})
	if err != nil {
		t.Fatal(err)
	}
	check := func(when string, want map[string]reads) {
		t.Helper()
		for reader, w := range want {
			if got := readsOf(t, s, reader, ref, canon.KindOffer, "o-secret"); got != w {
				t.Errorf("%s, as %s: %+v, want %+v", when, reader, got, w)
			}
		}
	}
	check("before the grant", map[string]reads{tenantA: readsAll, tenantB: readsNone, tenantC: readsNone, Public: readsNone})
	if err := s.Grant(as(tenantA), Ref{ID: ref.ID}, tenantB); err != nil {
		t.Fatal(err)
	}
	check("granted to B", map[string]reads{tenantA: readsAll, tenantB: readsAll, tenantC: readsNone, Public: readsNone})
	if doc, err := s.Get(as(tenantB), Ref{ID: ref.ID}); err != nil || doc.Owner != tenantA {
		t.Fatalf("B reads A's document as A's: %v %+v", err, doc)
	}
	if got, err := s.Grantees(as(tenantA), Ref{ID: ref.ID}); err != nil || !slices.Equal(got, []string{tenantB}) {
		t.Fatalf("grantees %v %v", got, err)
	}
	if err := s.Revoke(as(tenantA), Ref{ID: ref.ID}, tenantB); err != nil {
		t.Fatal(err)
	}
	check("revoked", map[string]reads{tenantA: readsAll, tenantB: readsNone, tenantC: readsNone, Public: readsNone})
	if got, err := s.Grantees(as(tenantA), Ref{ID: ref.ID}); err != nil || len(got) != 0 {
		t.Fatalf("grantees after the revoke %v %v", got, err)
	}
}

// TestGrantRefusals: every refusal is the sentinel the API documents,
// with a message that says what to do; none changes anything.
func TestGrantRefusals(t *testing.T) {
	s := openTest(t, nil)
	mine, err := s.Put(as(tenantA), Document{Body: []byte(`{"offer_id": "o-a"}`)})
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := s.Put(as(tenantC), Document{Body: []byte(`{"offer_id": "o-c"}`)})
	if err != nil {
		t.Fatal(err)
	}
	public, err := s.Put(context.Background(), Document{Body: []byte(`{"offer_id": "o-p"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Grant(as(tenantC), Ref{ID: theirs.ID}, tenantA); err != nil { // A now reads C's document
		t.Fatal(err)
	}
	missing := canon.Sum([]byte("nothing"))
	for _, c := range []struct {
		name    string
		ctx     context.Context
		ref     Ref
		grantee string
		want    error
		says    string
	}{
		{"as public", context.Background(), Ref{ID: public.ID}, tenantB, ErrInvalid, "act as that tenant"},
		{"to public", as(tenantA), Ref{ID: mine.ID}, Public, ErrInvalid, "put it as a public document"},
		{"to oneself", as(tenantA), Ref{ID: mine.ID}, tenantA, ErrInvalid, "owns the document already"},
		{"to nobody", as(tenantA), Ref{ID: mine.ID}, "", ErrInvalid, "name the tenant DID"},
		{"NUL in the grantee", as(tenantA), Ref{ID: mine.ID}, "did:web:x\x00y", ErrInvalid, "NUL byte at byte 9"},
		{"long grantee", as(tenantA), Ref{ID: mine.ID}, strings.Repeat("d", 513), ErrInvalid, "over the limit of 512"},
		{"no document named", as(tenantA), Ref{}, tenantB, ErrInvalid, "content id"},
		{"another tenant's, granted to the granter", as(tenantA), Ref{ID: theirs.ID}, tenantB, ErrNotFound, ""},
		{"another tenant's by number", as(tenantA), Ref{Num: theirs.Num}, tenantB, ErrNotFound, ""},
		{"a public one", as(tenantA), Ref{ID: public.ID}, tenantB, ErrNotFound, ""},
		{"a missing one", as(tenantA), Ref{ID: missing}, tenantB, ErrNotFound, ""},
		{"a number past the end", as(tenantA), Ref{Num: 999}, tenantB, ErrNotFound, ""},
		{"its number with another id", as(tenantA), Ref{Num: mine.Num, ID: theirs.ID}, tenantB, ErrNotFound, ""},
		{"another owner named", as(tenantA), Ref{ID: mine.ID, Owner: tenantC}, tenantB, ErrNotFound, ""},
	} {
		for op, f := range map[string]func(context.Context, Ref, string) error{"grant": s.Grant, "revoke": s.Revoke} {
			err := f(c.ctx, c.ref, c.grantee)
			if !errors.Is(err, c.want) || !strings.Contains(fmt.Sprint(err), c.says) {
				t.Errorf("%s %s: %v, want %v saying %q", op, c.name, err, c.want, c.says)
			}
		}
	}
	for _, reader := range []string{tenantB, Public} {
		for _, ref := range []Ref{mine, theirs, public} {
			r := readsOf(t, s, reader, ref, canon.KindOffer, "")
			if want := ref == public; r.byID != want || r.scan != want {
				t.Errorf("%s reads %d: %+v after refused grants", reader, ref.Num, r)
			}
		}
	}
	if _, err := s.Grantees(as(tenantA), Ref{ID: theirs.ID}); !errors.Is(err, ErrNotFound) {
		t.Errorf("grantees of another tenant's document: %v, want ErrNotFound", err)
	}
}

// TestGrantIsIdempotentAndDurable: granting twice is one grant, revoking
// what is not granted is nothing, and grants survive a reopen.
func TestGrantIsIdempotentAndDurable(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, &Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	ref, err := s.Put(as(tenantA), Document{Body: []byte(`{"node_id": "k-1", "text": "kept"}`)})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := s.Grant(as(tenantA), Ref{ID: ref.ID}, tenantB); err != nil {
			t.Fatal(err)
		}
		if err := s.Revoke(as(tenantA), Ref{ID: ref.ID}, tenantC); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err = Open(dir, &Options{NoSync: true}); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got, err := s.Grantees(as(tenantA), Ref{ID: ref.ID}); err != nil || !slices.Equal(got, []string{tenantB}) {
		t.Fatalf("grantees after a reopen: %v %v", got, err)
	}
	if doc, err := s.Lookup(as(tenantB), canon.KindKnowledge, "k-1"); err != nil || doc.Num != ref.Num {
		t.Fatalf("B after a reopen: %v %v", doc, err)
	}
	if bm, err := s.Granted(tenantB); err != nil || bm.GetCardinality() != 1 || !bm.Contains(ref.Num) {
		t.Fatalf("granted bitmap of B: %v %v", bm, err)
	}
	checkGrantKeys(t, s, map[uint32]map[string]bool{ref.Num: {tenantB: true}})
	verifyOK(t, s)
}

// TestDeleteDropsGrants: deleting a document deletes its grants in the
// same batch (no grant key is left, so its natural key leaves the disk
// too), and putting the same content again is a new document that nobody
// has been granted.
func TestDeleteDropsGrants(t *testing.T) {
	s := openTest(t, nil)
	body := []byte(`{"offer_id": "o-gone", "note": "erase-me"}`)
	ref, err := s.Put(as(tenantA), Document{Body: body})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range []string{tenantB, tenantC} {
		if err := s.Grant(as(tenantA), Ref{ID: ref.ID}, g); err != nil {
			t.Fatal(err)
		}
	}
	checkGrantKeys(t, s, map[uint32]map[string]bool{ref.Num: {tenantB: true, tenantC: true}})
	if err := s.Delete(as(tenantA), Ref{ID: ref.ID}); err != nil {
		t.Fatal(err)
	}
	checkGrantKeys(t, s, nil)
	again, err := s.Put(as(tenantA), Document{Body: body})
	if err != nil || again.Num == ref.Num {
		t.Fatalf("put again: %v %+v", err, again)
	}
	for _, g := range []string{tenantB, tenantC} {
		if r := readsOf(t, s, g, again, canon.KindOffer, "o-gone"); r != readsNone {
			t.Errorf("%s reads the document put again after the delete: %+v", g, r)
		}
	}
	verifyOK(t, s)
}

// TestGrantReadOrder: by content id and by natural key, a reader gets its
// own document first, then one granted to it, then the public one.
func TestGrantReadOrder(t *testing.T) {
	s := openTest(t, nil)
	put := func(owner, body string) Ref {
		t.Helper()
		ref, err := s.Put(WithPrincipal(context.Background(), owner), Document{Body: []byte(body)})
		if err != nil {
			t.Fatal(err)
		}
		return ref
	}
	same := `{"offer_id": "o-shared", "v": 1}`
	pub, a, b := put(Public, same), put(tenantA, same), put(tenantB, same)
	// By natural key, three different contents.
	kpub := put(Public, `{"offer_id": "o-key", "v": "public"}`)
	ka := put(tenantA, `{"offer_id": "o-key", "v": "a"}`)
	kb := put(tenantB, `{"offer_id": "o-key", "v": "b"}`)
	for _, r := range []Ref{a, ka} {
		if err := s.Grant(as(tenantA), Ref{ID: r.ID}, tenantB); err != nil {
			t.Fatal(err)
		}
	}
	steps := []struct {
		then          func()
		byID, byKey   Ref
		what, whoWins string
	}{
		{func() {}, b, kb, "own", "B's own"},
		{func() {
			for _, r := range []Ref{b, kb} {
				if err := s.Delete(as(tenantB), r); err != nil {
					t.Fatal(err)
				}
			}
		}, a, ka, "granted", "A's, granted"},
		{func() {
			for _, r := range []Ref{a, ka} {
				if err := s.Revoke(as(tenantA), Ref{ID: r.ID}, tenantB); err != nil {
					t.Fatal(err)
				}
			}
		}, pub, kpub, "public", "the public one"},
	}
	for _, st := range steps {
		st.then()
		doc, err := s.Get(as(tenantB), Ref{ID: same2id(same)})
		if err != nil || doc.Num != st.byID.Num {
			t.Errorf("%s: Get by id gave %v %v, want %s (%d)", st.what, docNum(doc), err, st.whoWins, st.byID.Num)
		}
		doc, err = s.Lookup(as(tenantB), canon.KindOffer, "o-key")
		if err != nil || doc.Num != st.byKey.Num {
			t.Errorf("%s: Lookup gave %v %v, want %s (%d)", st.what, docNum(doc), err, st.whoWins, st.byKey.Num)
		}
	}
}

func same2id(body string) canon.ContentID {
	p, err := ParseDocument([]byte(body), "", nil, nil)
	if err != nil {
		panic(err)
	}
	return p.ID()
}

func docNum(d *StoredDoc) any {
	if d == nil {
		return nil
	}
	return d.Num
}

// TestGrantCoversEveryCopy: identical candidate records under two
// candidate ids are one content id and two documents; a grant by content
// id covers both, a grant by number one.
func TestGrantCoversEveryCopy(t *testing.T) {
	s := openTest(t, nil)
	refs, err := s.PutBatch(as(tenantA), []Document{
		{Body: []byte(`{"id": "c-1", "record": {"name": "same"}, "score": 0.5}`)},
		{Body: []byte(`{"id": "c-2", "record": {"name": "same"}, "score": 0.5}`)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if refs[0].ID != refs[1].ID || refs[0].Num == refs[1].Num {
		t.Fatalf("refs %+v", refs)
	}
	if err := s.Grant(as(tenantA), Ref{Num: refs[1].Num}, tenantC); err != nil {
		t.Fatal(err)
	}
	if err := s.Grant(as(tenantA), Ref{ID: refs[0].ID}, tenantB); err != nil {
		t.Fatal(err)
	}
	for reader, want := range map[string][]bool{tenantB: {true, true}, tenantC: {false, true}} {
		for i, key := range []string{"c-1", "c-2"} {
			_, err := s.Lookup(as(reader), canon.KindCandidate, key)
			if got := err == nil; got != want[i] {
				t.Errorf("%s looks up %s: %v, want found=%t", reader, key, err, want[i])
			}
		}
	}
	if err := s.Revoke(as(tenantA), Ref{ID: refs[0].ID}, tenantC); err != nil {
		t.Fatal(err)
	}
	checkGrantKeys(t, s, map[uint32]map[string]bool{refs[0].Num: {tenantB: true}, refs[1].Num: {tenantB: true}})
}

// TestGrantedObservations: an AIDP observation granted to a tenant is in
// its ObservationsFor and its Inbox; nobody else's.
func TestGrantedObservations(t *testing.T) {
	s := openTest(t, nil)
	if _, err := s.Put(as(tenantA), Document{Body: ie(t, "env-g", nil)}); err != nil {
		t.Fatal(err)
	}
	obRef, err := s.Put(as(tenantA), Document{Body: ob(t, "env-g", "exec-1", "executed", "2026-01-31T10:00:00Z")})
	if err != nil {
		t.Fatal(err)
	}
	seen := func(reader string) (bool, bool) {
		t.Helper()
		obs, err := s.ObservationsFor(as(reader), "env-g", true)
		if err != nil && !errors.Is(err, ErrNotFound) {
			t.Fatal(err)
		}
		page, err := s.Inbox(as(reader), "", 100, nil)
		if err != nil {
			t.Fatal(err)
		}
		inInbox := slices.ContainsFunc(page.Docs, func(d *StoredDoc) bool { return d.Num == obRef.Num })
		return len(obs) == 1 && obs[0].Doc.Num == obRef.Num && obs[0].Audit != nil, inInbox
	}
	for _, r := range []string{tenantB, tenantC, Public} {
		if o, i := seen(r); o || i {
			t.Fatalf("%s sees A's observation before any grant: %t %t", r, o, i)
		}
	}
	if err := s.Grant(as(tenantA), Ref{ID: obRef.ID}, tenantB); err != nil {
		t.Fatal(err)
	}
	if o, i := seen(tenantB); !o || !i {
		t.Fatalf("B with a grant: observations %t, inbox %t", o, i)
	}
	for _, r := range []string{tenantC, Public} {
		if o, i := seen(r); o || i {
			t.Fatalf("%s sees the observation granted to B: %t %t", r, o, i)
		}
	}
	if err := s.Revoke(as(tenantA), Ref{ID: obRef.ID}, tenantB); err != nil {
		t.Fatal(err)
	}
	if o, i := seen(tenantB); o || i {
		t.Fatalf("B after the revoke: observations %t, inbox %t", o, i)
	}
}

// TestGrantCacheUnderConcurrency: readers load the granted bitmap while a
// writer grants and revokes; once the writer stops, every reader's
// answer is what the keys say (a bitmap read before a commit and cached
// after it would keep a revoked document visible to the planner).
func TestGrantCacheUnderConcurrency(t *testing.T) {
	s := openTest(t, nil)
	var refs []Ref
	for i := range 8 {
		refs = append(refs, mustPutAs(t, s, tenantA, fmt.Sprintf(`{"offer_id": "o-%d"}`, i)))
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := s.Granted(tenantB); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	want := map[uint32]bool{}
	for i := range 300 {
		ref := refs[i%len(refs)]
		grant := (i/len(refs))%2 == 0
		f := s.Revoke
		if grant {
			f = s.Grant
		}
		if err := f(as(tenantA), Ref{ID: ref.ID}, tenantB); err != nil {
			t.Fatal(err)
		}
		want[ref.Num] = grant
		got, err := s.Granted(tenantB)
		if err != nil {
			t.Fatal(err)
		}
		if got.Contains(ref.Num) != grant {
			t.Fatalf("step %d: Granted has %d = %t right after the change returned, want %t", i, ref.Num, got.Contains(ref.Num), grant)
		}
	}
	close(stop)
	wg.Wait()
	got, err := s.Granted(tenantB)
	if err != nil {
		t.Fatal(err)
	}
	for num, g := range want {
		if got.Contains(num) != g {
			t.Errorf("document %d: granted %t, want %t", num, got.Contains(num), g)
		}
	}
}

// TestGrantCacheDropsStaleLoads: a bitmap loaded before a grant changed
// is not cached after it (the reader that loaded it raced the change).
func TestGrantCacheDropsStaleLoads(t *testing.T) {
	var c grantCache
	stale := roaring.BitmapOf(7)
	bm, gen := c.get(tenantB)
	if bm != nil {
		t.Fatal("an empty cache answered")
	}
	c.invalidate() // a grant committed while the reader was loading
	c.put(tenantB, stale, gen)
	if bm, _ := c.get(tenantB); bm != nil {
		t.Fatalf("the stale load was cached: %v", bm)
	}
	_, gen = c.get(tenantB)
	c.put(tenantB, stale, gen)
	if bm, _ := c.get(tenantB); bm != stale {
		t.Fatalf("a current load was not cached: %v", bm)
	}
}

func mustPutAs(t testing.TB, s *Store, owner, body string) Ref {
	t.Helper()
	ref, err := s.Put(WithPrincipal(context.Background(), owner), Document{Body: []byte(body)})
	if err != nil {
		t.Fatalf("put %s: %v", body, err)
	}
	return ref
}

// grantT is what checkGrantKeys needs of a *testing.T or a *rapid.T.
type grantT interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
	Fatal(args ...any)
}

// checkGrantKeys requires the grant keys to be exactly those of want
// (document number → grantees): every family, each entry naming the
// document's id and natural key, and each grantee's bitmap.
func checkGrantKeys(t grantT, s *Store, want map[uint32]map[string]bool) {
	t.Helper()
	expect := map[string]bool{}
	bitmaps := map[string]*roaring.Bitmap{}
	for num, gs := range want {
		rec, found, err := readRecord(s.kv.get, num)
		if err != nil || !found {
			t.Fatalf("document %d: %v %t", num, err, found)
		}
		for g := range gs {
			if !gs[g] {
				continue
			}
			expect[string(appendGrantDocKey(nil, num, g))] = true
			expect[string(binary.BigEndian.AppendUint32(appendGrantIDPrefix(nil, g, rec.id), num))] = true
			if rec.naturalKey != "" {
				expect[string(binary.BigEndian.AppendUint32(appendGrantNaturalPrefix(nil, g, rec.kind, rec.naturalKey), num))] = true
			}
			if bitmaps[g] == nil {
				bitmaps[g] = roaring.New()
			}
			bitmaps[g].Add(num)
		}
	}
	for g := range bitmaps {
		expect[string(appendGrantBitmapKey(nil, g))] = true
	}
	var got []string
	start := []byte{prefixGrant}
	err := s.kv.scan(start, prefixEnd(start), func(key, value []byte) error {
		got = append(got, fmt.Sprintf("%q", key))
		if !expect[string(key)] {
			t.Errorf("grant key %q is not expected", key)
		}
		delete(expect, string(key))
		if key[1] == grantBitmap {
			bm, err := decodeBitmap(value)
			if err != nil {
				return err
			}
			if g := string(key[2:]); bitmaps[g] == nil || !bm.Equals(bitmaps[g]) {
				t.Errorf("bitmap of %s: %v, want %v", g, bm, bitmaps[g])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for k := range expect {
		t.Errorf("grant key %q is missing (have %v)", k, got)
	}
}

// TestGrantMatchesModel: random puts (identical content under several
// owners, candidates sharing a record), deletes, grants and revokes by
// content id and by number, and reopens; after every step each reader's
// Scan, Get by every content id, Lookup of every natural key and
// Granted bitmap match a model, and the grant keys are exactly the
// model's.
func TestGrantMatchesModel(t *testing.T) {
	tenants := []string{tenantA, tenantB, tenantC}
	readers := append([]string{Public}, tenants...)
	rapid.Check(t, func(rt *rapid.T) {
		dir, err := os.MkdirTemp("", "aqlstore-grant-*")
		if err != nil {
			rt.Fatal(err)
		}
		defer os.RemoveAll(dir)
		opts := &Options{NoSync: true, MemTableSize: 1 << 20, CacheSize: 1 << 20}
		s, err := Open(dir, opts)
		if err != nil {
			rt.Fatal(err)
		}
		defer func() { s.Close() }()
		m := &grantModel{docs: map[uint32]*modelDoc{}, grants: map[uint32]map[string]bool{}}
		for step := rapid.IntRange(1, 40).Draw(rt, "steps"); step > 0; step-- {
			switch op := rapid.IntRange(0, 9).Draw(rt, "op"); {
			case op < 4 || len(m.docs) == 0:
				owner := rapid.SampledFrom(readers).Draw(rt, "owner")
				body := drawGrantBody(rt)
				ref, err := s.Put(WithPrincipal(context.Background(), owner), Document{Body: []byte(body)})
				if err == nil && ref.Created {
					m.docs[ref.Num] = &modelDoc{ref: ref, live: true, key: naturalKeyOf(rt, body)}
				}
			case op < 5:
				d := m.pick(rt)
				err := s.Delete(WithPrincipal(context.Background(), d.ref.Owner), Ref{Num: d.ref.Num})
				m.expect(rt, "delete", err, d.live)
				if d.live {
					d.live = false
					delete(m.grants, d.ref.Num)
				}
			case op < 9:
				granter := rapid.SampledFrom(tenants).Draw(rt, "granter")
				grantee := rapid.SampledFrom(tenants).Draw(rt, "grantee")
				d := m.pick(rt)
				ref := Ref{ID: d.ref.ID}
				if rapid.Bool().Draw(rt, "by number") {
					ref = Ref{Num: d.ref.Num}
				}
				grant := op < 8
				f := s.Revoke
				if grant {
					f = s.Grant
				}
				err := f(as(granter), ref, grantee)
				targets := m.owned(granter, ref)
				if grantee == granter {
					if !errors.Is(err, ErrInvalid) {
						rt.Fatalf("grant to oneself: %v", err)
					}
					continue
				}
				m.expect(rt, "grant", err, len(targets) > 0)
				for _, num := range targets {
					if m.grants[num] == nil {
						m.grants[num] = map[string]bool{}
					}
					m.grants[num][grantee] = grant
				}
			default:
				if err := s.Close(); err != nil {
					rt.Fatal(err)
				}
				if s, err = Open(dir, opts); err != nil {
					rt.Fatal(err)
				}
			}
			m.check(rt, s, readers)
		}
		if rep, err := s.Verify(context.Background()); err != nil {
			rt.Fatal(err)
		} else if !rep.OK() {
			rt.Fatalf("verify: %v", rep.Problems)
		}
	})
}

type modelDoc struct {
	ref  Ref
	key  string
	live bool
}

type grantModel struct {
	docs   map[uint32]*modelDoc
	grants map[uint32]map[string]bool // live documents only
}

func (m *grantModel) pick(t *rapid.T) *modelDoc {
	nums := make([]uint32, 0, len(m.docs))
	for n := range m.docs {
		nums = append(nums, n)
	}
	slices.Sort(nums)
	return m.docs[rapid.SampledFrom(nums).Draw(t, "document")]
}

// owned lists the live documents of owner that ref names.
func (m *grantModel) owned(owner string, ref Ref) []uint32 {
	var out []uint32
	for n, d := range m.docs {
		if d.live && d.ref.Owner == owner && (ref.Num == n || (ref.Num == 0 && d.ref.ID == ref.ID)) {
			out = append(out, n)
		}
	}
	return out
}

func (m *grantModel) expect(t *rapid.T, what string, err error, ok bool) {
	if ok && err != nil || !ok && !errors.Is(err, ErrNotFound) {
		t.Fatalf("%s: %v, want success=%t (else ErrNotFound)", what, err, ok)
	}
}

func (m *grantModel) sees(reader string, d *modelDoc) bool {
	return d.live && (d.ref.Owner == Public || d.ref.Owner == reader || m.grants[d.ref.Num][reader])
}

// wantByID is the document Get by content id gives reader: its own (the
// lowest natural key), else granted (the lowest number), else public (the
// lowest natural key).
func (m *grantModel) wantByID(reader string, id canon.ContentID) uint32 {
	var own, granted, public []*modelDoc
	for _, d := range m.docs {
		switch {
		case !m.sees(reader, d) || d.ref.ID != id:
		case d.ref.Owner == reader:
			own = append(own, d)
		case d.ref.Owner == Public:
			public = append(public, d)
		default:
			granted = append(granted, d)
		}
	}
	byKey := func(ds []*modelDoc) { sort.Slice(ds, func(i, j int) bool { return ds[i].key < ds[j].key }) }
	byKey(own)
	byKey(public)
	sort.Slice(granted, func(i, j int) bool { return granted[i].ref.Num < granted[j].ref.Num })
	for _, ds := range [][]*modelDoc{own, granted, public} {
		if len(ds) > 0 {
			return ds[0].ref.Num
		}
	}
	return 0
}

// wantByKey is the document Lookup gives reader.
func (m *grantModel) wantByKey(reader string, kind canon.Kind, key string) uint32 {
	best, rank := uint32(0), 3
	for n, d := range m.docs {
		if !m.sees(reader, d) || d.ref.Kind != kind || d.key != key {
			continue
		}
		r := 1
		switch d.ref.Owner {
		case reader:
			r = 0
		case Public:
			r = 2
		}
		if r < rank || r == rank && n < best {
			best, rank = n, r
		}
	}
	return best
}

func (m *grantModel) check(t *rapid.T, s *Store, readers []string) {
	for _, reader := range readers {
		ctx := as(reader)
		var got, want []uint32
		for doc, err := range s.Scan(ctx, "") {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, doc.Num)
		}
		for n, d := range m.docs {
			if m.sees(reader, d) {
				want = append(want, n)
			}
		}
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("%s scans %v, want %v (grants %v)", reader, got, want, m.grants)
		}
		granted, err := s.Granted(reader)
		if err != nil {
			t.Fatal(err)
		}
		for n, d := range m.docs {
			if g := granted.Contains(n); d.live && g != m.grants[n][reader] {
				t.Fatalf("%s: Granted has %d = %t; model %v", reader, n, g, m.grants[n])
			}
		}
		for _, d := range m.docs {
			doc, err := s.Get(ctx, Ref{ID: d.ref.ID})
			if w := m.wantByID(reader, d.ref.ID); (err == nil) != (w != 0) || err == nil && doc.Num != w {
				t.Fatalf("%s gets %s: %v %v, want %d", reader, d.ref.ID, docNum(doc), err, w)
			}
			if d.key == "" {
				continue
			}
			doc, err = s.Lookup(ctx, d.ref.Kind, d.key)
			if w := m.wantByKey(reader, d.ref.Kind, d.key); (err == nil) != (w != 0) || err == nil && doc.Num != w {
				t.Fatalf("%s looks up %s %s: %v %v, want %d", reader, d.ref.Kind, d.key, docNum(doc), err, w)
			}
		}
	}
	want := map[uint32]map[string]bool{}
	for n, gs := range m.grants {
		for g, on := range gs {
			if on {
				if want[n] == nil {
					want[n] = map[string]bool{}
				}
				want[n][g] = true
			}
		}
	}
	checkGrantKeys(t, s, want)
}

// drawGrantBody draws an offer, a candidate or generic JSON from small
// pools, so that owners collide on natural keys and content.
func drawGrantBody(t *rapid.T) string {
	v := rapid.IntRange(0, 2).Draw(t, "variant")
	switch rapid.IntRange(0, 2).Draw(t, "kind") {
	case 0:
		return fmt.Sprintf(`{"offer_id": "o-%d", "v": %d}`, rapid.IntRange(0, 2).Draw(t, "key"), v)
	case 1:
		return fmt.Sprintf(`{"id": "c-%d", "record": {"v": %d}}`, rapid.IntRange(0, 2).Draw(t, "key"), v)
	}
	return fmt.Sprintf(`{"plain": %d}`, v)
}

func naturalKeyOf(t *rapid.T, body string) string {
	p, err := ParseDocument([]byte(body), "", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p.NaturalKey
}

// TestVerifyFindsGrantDamage: Verify names grant keys that disagree with
// each other or with the documents, each kind of damage once.
func TestVerifyFindsGrantDamage(t *testing.T) {
	const a, b, c = "did:web:a.example", "did:web:b.example", "did:web:c.example"
	cases := map[string]struct {
		damage func(wb *batch, ref Ref, rec record)
		want   string
	}{
		"grant key dropped": {func(wb *batch, ref Ref, _ record) { wb.del(appendGrantDocKey(nil, ref.Num, b)) },
			"grant bitmap of " + b + " holds document"},
		"bitmap emptied": {func(wb *batch, ref Ref, _ record) { wb.del(appendGrantBitmapKey(nil, b)) },
			"the grantee's bitmap lacks it"},
		"lookup key dropped": {func(wb *batch, ref Ref, rec record) {
			wb.del(binary.BigEndian.AppendUint32(appendGrantIDPrefix(nil, b, rec.id), ref.Num))
		}, "its lookup key"},
		"stray lookup key": {func(wb *batch, ref Ref, rec record) {
			wb.set(binary.BigEndian.AppendUint32(appendGrantIDPrefix(nil, c, rec.id), ref.Num), nil)
		}, "which is not granted to " + c},
		"grant of a missing document": {func(wb *batch, ref Ref, _ record) {
			wb.set(appendGrantDocKey(nil, ref.Num+100, b), nil)
		}, "the document does not exist"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := openTest(t, nil)
			ctx := WithPrincipal(context.Background(), a)
			ref := mustPut(t, s, ctx, `{"offer_id":"o-1"}`)
			if err := s.Grant(ctx, Ref{ID: ref.ID}, b); err != nil {
				t.Fatal(err)
			}
			verifyOK(t, s)
			rec, _, err := readRecord(s.kv.get, ref.Num)
			if err != nil {
				t.Fatal(err)
			}
			wb := s.kv.newBatch()
			tc.damage(wb, ref, rec)
			if err := s.kv.apply(wb, false); err != nil {
				t.Fatal(err)
			}
			wb.wait()
			rep, err := s.Verify(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if rep.OK() || !strings.Contains(strings.Join(rep.Problems, "\n"), tc.want) {
				t.Fatalf("Verify: %v, want a problem naming %q", rep.Problems, tc.want)
			}
		})
	}
}
