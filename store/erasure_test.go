package store_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/sstable"
	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/index"
	"github.com/aqlstore/aqlstore/store"
)

// These tests show that deleting the last copy of a document removes its
// bytes from the store's files once the store is compacted, that the
// deletion leaves a receipt and a chain that verifies, and that exports
// survive a round trip and refuse tampering. They use package index, so
// they live in the external test package.

// marker returns a string no other test writes: a prefix and 16 random
// bytes in hex.
func marker(t *testing.T, prefix string) string {
	t.Helper()
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	return prefix + hex.EncodeToString(b[:])
}

// hit is one place where a marker was found on disk.
type hit struct {
	file   string // relative to the store's directory
	key    []byte // the sstable key holding it; nil for a raw-bytes hit
	marker string
}

func (h hit) String() string {
	if h.key == nil {
		return fmt.Sprintf("%s (raw bytes) holds %q", h.file, h.marker)
	}
	return fmt.Sprintf("%s: key %q holds %q", h.file, h.key, h.marker)
}

// diskHits lists every place under dir where one of markers occurs: in the
// raw bytes of every file (WAL, recycled WAL, MANIFEST, OPTIONS, sstables,
// blob files), and in every key and value of every sstable as Pebble's
// sstable reader decodes them, tombstones and merge operands included.
// The raw search alone would miss keys, which sstables store prefix
// compressed.
func diskHits(t *testing.T, dir string, markers []string) []hit {
	t.Helper()
	// Pebble may still be writing or removing a file (a background
	// compaction): a file that vanishes or cannot be read yet makes the
	// search start again, for up to a minute.
	deadline := time.Now().Add(time.Minute)
	for {
		hits, err := searchDir(dir, markers)
		if err == nil {
			return hits
		}
		if time.Now().After(deadline) {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func searchDir(dir string, markers []string) ([]hit, error) {
	var hits []hit
	find := func(file string, key, b []byte) {
		for _, m := range markers {
			if bytes.Contains(b, []byte(m)) {
				hits = append(hits, hit{file: file, key: key, marker: m})
			}
		}
	}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		find(rel, nil, b)
		if strings.HasSuffix(path, ".sst") {
			return sstableHits(path, rel, find)
		}
		return nil
	})
	return hits, err
}

// sstableHits searches every point key and value of the sstable at path.
func sstableHits(path, rel string, find func(file string, key, b []byte)) error {
	f, err := vfs.Default.Open(path)
	if err != nil {
		return err
	}
	readable, err := sstable.NewSimpleReadable(f)
	if err != nil {
		_ = f.Close()
		return err
	}
	// The merger only has to be known by name: reading raw entries merges
	// nothing.
	const merger = "aqlstore.bitmap.v1"
	mergers := sstable.Mergers{merger: &pebble.Merger{Name: merger, Merge: pebble.DefaultMerger.Merge}}
	r, err := sstable.NewReader(context.Background(), readable, sstable.ReaderOptions{Mergers: mergers})
	if err != nil {
		_ = readable.Close()
		return fmt.Errorf("%s: %w", rel, err)
	}
	defer r.Close()
	it, err := r.NewIter(sstable.NoTransforms, nil, nil, sstable.AssertNoBlobHandles)
	if err != nil {
		return err
	}
	defer it.Close()
	for kv := it.First(); kv != nil; kv = it.Next() {
		v, _, err := kv.Value(nil)
		if err != nil {
			return err
		}
		key := append([]byte(nil), kv.K.UserKey...)
		find(rel, key, key)
		find(rel, key, v)
	}
	return it.Error()
}

// erasureStore opens an indexed store in dir with uncompressed blocks, so
// that a raw search of its files sees values as they were written.
func erasureStore(t *testing.T, dir string) *store.Store {
	t.Helper()
	s, _, err := index.Open(dir, &store.Options{BlockCompression: "none", MemTableSize: 1 << 20, CacheSize: 1 << 20,
		Messages: store.MessageOptions{AllowUnsignedObservations: true}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// requireOnDisk fails unless every marker is found under dir: the search
// must be able to see what it later reports gone.
func requireOnDisk(t *testing.T, dir string, markers []string) {
	t.Helper()
	seen := map[string]bool{}
	for _, h := range diskHits(t, dir, markers) {
		seen[h.marker] = true
	}
	for _, m := range markers {
		if !seen[m] {
			t.Fatalf("the search does not find %q on disk while the document is stored", m)
		}
	}
}

// TestDeleteErasesBytesFromDisk stores documents of several kinds holding
// unique markers (a natural key, a member name, a short string with
// equality and trigram postings, a long string in the blob alone, an AIDP
// envelope and observation, a PAIRL message), flushes them to an sstable,
// deletes them, compacts, and searches every file of the store. Each
// delete must leave a receipt, and the chain and indexes must verify.
func TestDeleteErasesBytesFromDisk(t *testing.T) {
	dir := t.TempDir()
	s := erasureStore(t, dir)
	ctx := context.Background()
	alice := store.WithPrincipal(ctx, "did:web:alice.example")
	bob := store.WithPrincipal(ctx, "did:web:bob.example")
	for i := range 20 { // other documents, which must survive
		if _, err := s.Put(bob, store.Document{Body: []byte(fmt.Sprintf(`{"node_id":"bob-%d","text":"kept %d"}`, i, i))}); err != nil {
			t.Fatal(err)
		}
	}
	key := marker(t, "ek")
	member := marker(t, "em")[:24] // a member name: a path of the index
	short := marker(t, "es")[:30]  // short enough for equality and trigram postings
	long := marker(t, "el") + strings.Repeat(" and more", 30)
	env, exec, memo := marker(t, "ee"), marker(t, "ex"), marker(t, "eo")[:20]
	mid, text := marker(t, "ep"), marker(t, "et")
	bodies := [][]byte{
		[]byte(fmt.Sprintf(`{"node_id":%q,%q:%q,"text":%q}`, key, member, short, long)),
		store.AIDPFixture(t, "ie-19.1.json", map[string]any{"envelope_id": env,
			"intent_body": map[string]any{"parameters": map[string]any{"memo": memo}}}),
		store.AIDPFixture(t, "ob-19.2.json", map[string]any{"envelope_id": env, "execution_id": exec}),
		[]byte("@v 1\n@mid ref:msg:" + mid + "\n@ts 2026-01-31T10:00:00Z\n\n" + text + "\n"),
	}
	var refs []store.Ref
	for _, b := range bodies {
		ref, err := s.Put(alice, store.Document{Body: b})
		if err != nil {
			t.Fatalf("put %s: %v", b, err)
		}
		refs = append(refs, ref)
	}
	markers := []string{key, member, short, long[:34], env, exec, memo, mid, text}
	// Flush them into an sstable (and the WAL), where the search must see
	// every marker.
	if err := s.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	requireOnDisk(t, dir, markers)
	for i := len(refs) - 1; i >= 0; i-- { // the observation before its envelope
		deleteWithReceipt(t, s, alice, refs[i])
	}
	if err := s.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	var failed []string
	for _, h := range diskHits(t, dir, markers) {
		failed = append(failed, h.String())
	}
	if len(failed) > 0 {
		t.Errorf("deleted bytes still on disk after Compact:\n%s", strings.Join(failed, "\n"))
	}
	verifyAll(t, s)
	if n := countDocs(t, s, bob); n != 20 {
		t.Fatalf("bob has %d documents after alice's deletes, want 20", n)
	}
}

// deleteWithReceipt deletes ref and checks the receipt the delete appended.
func deleteWithReceipt(t *testing.T, s *store.Store, ctx context.Context, ref store.Ref) {
	t.Helper()
	head := s.Head()
	if err := s.Delete(ctx, ref); err != nil {
		t.Fatalf("delete %+v: %v", ref, err)
	}
	var got []*store.Receipt
	if err := s.Receipts(ctx, head+1, func(r *store.Receipt) error { got = append(got, r); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("the delete of %d appended %d receipts, want 1", ref.Num, len(got))
	}
	r := got[0]
	if r.Op != "delete" || r.Num != ref.Num || r.Owner != ref.Owner || r.Kind != ref.Kind ||
		r.HashBefore != ref.ID.String() || r.HashAfter != "" || r.Principal != store.Principal(ctx) {
		t.Fatalf("receipt of the delete of %+v: %+v", ref, r)
	}
}

// verifyAll checks the receipt chain and blobs (store.Verify) and the
// indexes against the documents (index.Check).
func verifyAll(t *testing.T, s *store.Store) {
	t.Helper()
	rep, err := s.Verify(context.Background())
	if err != nil || !rep.OK() {
		t.Fatalf("verify: %v %v", err, rep.Problems)
	}
	crep, err := index.Check(context.Background(), s)
	if err != nil || !crep.OK() {
		t.Fatalf("index check: %v %v", err, crep.Problems)
	}
}

func countDocs(t *testing.T, s *store.Store, ctx context.Context) int {
	t.Helper()
	n := 0
	for _, err := range s.Scan(ctx, "") {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	return n
}

// TestEraseWaitsForTheLastCopy stores identical content for two tenants:
// deleting one copy must keep the bytes (the other tenant still reads
// them), deleting the last must erase them.
func TestEraseWaitsForTheLastCopy(t *testing.T) {
	dir := t.TempDir()
	s := erasureStore(t, dir)
	ctx := context.Background()
	alice := store.WithPrincipal(ctx, "did:web:alice.example")
	bob := store.WithPrincipal(ctx, "did:web:bob.example")
	long := marker(t, "shared") + strings.Repeat(" text", 40)
	body := []byte(fmt.Sprintf(`{"node_id":"shared","text":%q}`, long))
	a, err := s.Put(alice, store.Document{Body: body})
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Put(bob, store.Document{Body: body})
	if err != nil {
		t.Fatal(err)
	}
	markers := []string{long[:40]}
	deleteWithReceipt(t, s, alice, a)
	if err := s.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	requireOnDisk(t, dir, markers)
	if doc, err := s.Get(bob, b); err != nil || !bytes.Contains(doc.Body, []byte(long)) {
		t.Fatalf("bob's copy after alice's delete: %v", err)
	}
	deleteWithReceipt(t, s, bob, b)
	if err := s.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	if hits := diskHits(t, dir, markers); len(hits) > 0 {
		t.Fatalf("the last copy's bytes are still on disk: %v", hits)
	}
	verifyAll(t, s)
}

const (
	tenantA = "did:web:a.example"
	tenantB = "did:web:b.example"
)

// exportSource is a store where tenant A keeps documents of every kind
// (an offer, a knowledge node, a candidate with signals, generic JSON, an
// AIDP envelope and its observation, an ExecutionIntent, a PAIRL message),
// deletes some, and tenant B writes in between, so that the store's chain
// interleaves their receipts.
func exportSource(t *testing.T) (*store.Store, *store.Export) {
	t.Helper()
	s, err := store.Open(t.TempDir(), &store.Options{NoSync: true, Messages: store.MessageOptions{AllowUnsignedObservations: true}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ctx := context.Background()
	a, b := store.WithPrincipal(ctx, tenantA), store.WithPrincipal(ctx, tenantB)
	put := func(ctx context.Context, body []byte) store.Ref {
		t.Helper()
		ref, err := s.Put(ctx, store.Document{Body: body})
		if err != nil {
			t.Fatalf("put %s: %v", body, err)
		}
		return ref
	}
	put(a, []byte(`{"offer_id":"a-1","price":{"amount":"10.00","currency":"EUR"}}`))
	put(b, []byte(`{"offer_id":"b-1","secret":true}`))
	gone := put(a, []byte(`{"node_id":"a-gone","text":"deleted before the export"}`))
	put(a, []byte(`{"node_id":"a-k","text":"kept"}`))
	put(a, []byte(`{"id":"a-cand","score":0.5,"cost":{"amount":"2.50","currency":"EUR"},"quality":{"uptime":"99.9"},"record":{"name":"x"}}`))
	put(b, []byte(`{"node_id":"b-k"}`))
	put(a, []byte(`{"free":"json","n":[1,2.5,"3"]}`))
	put(a, store.AIDPFixture(t, "ie-19.1.json", map[string]any{"envelope_id": "env-export-1"}))
	put(a, store.AIDPFixture(t, "ob-19.2.json", map[string]any{"envelope_id": "env-export-1", "execution_id": "exec-export-1"}))
	put(a, store.ExecIntentFixture(t, "ei-export-1", "idem-export-1", "nonce-export-1", 500))
	put(a, []byte("@v 1\n@mid ref:msg:export-1\n@ts 2026-01-31T10:00:00Z\n\nhello from the export\n"))
	if err := s.Delete(a, gone); err != nil {
		t.Fatal(err)
	}
	put(b, []byte(`{"offer_id":"b-2"}`))
	e, err := s.Export(ctx, tenantA)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.VerifyExport(e); err != nil {
		t.Fatal(err)
	}
	kinds := map[canon.Kind]bool{}
	for _, d := range e.Documents {
		kinds[d.Kind] = true
	}
	want := []canon.Kind{canon.KindOffer, canon.KindKnowledge, canon.KindCandidate, canon.KindJSON,
		canon.KindAIDPEnvelope, canon.KindAIDPObservation, canon.KindExecutionIntent, canon.KindPAIRL}
	if len(e.Documents) != len(want) || len(kinds) != len(want) {
		t.Fatalf("the export holds %d documents of kinds %v, want one each of %v", len(e.Documents), kinds, want)
	}
	return s, e
}

// docKey names a document across stores, whose numbers differ.
func docKey(d store.ExportedDocument) string {
	return string(d.Kind) + " " + d.NaturalKey + " " + d.ID.String()
}

// sameDocuments fails unless got holds exactly want's documents, byte for
// byte, with the same kinds, natural keys and signals.
func sameDocuments(t *testing.T, got, want *store.Export) {
	t.Helper()
	byKey := map[string]store.ExportedDocument{}
	for _, d := range got.Documents {
		byKey[docKey(d)] = d
	}
	if len(got.Documents) != len(want.Documents) || len(byKey) != len(want.Documents) {
		t.Fatalf("%d documents (%d distinct), want %d", len(got.Documents), len(byKey), len(want.Documents))
	}
	for _, w := range want.Documents {
		g, ok := byKey[docKey(w)]
		switch {
		case !ok:
			t.Fatalf("document %s is missing", docKey(w))
		case !bytes.Equal(g.Body, w.Body):
			t.Fatalf("document %s: body %q, want %q", docKey(w), g.Body, w.Body)
		case (g.Signals == nil) != (w.Signals == nil) ||
			g.Signals != nil && !bytes.Equal(canonValue(g.Signals.Value()), canonValue(w.Signals.Value())):
			t.Fatalf("document %s: signals %+v, want %+v", docKey(w), g.Signals, w.Signals)
		}
	}
}

func canonValue(v any) []byte { return canon.AppendValue(nil, v) }

// checkImportReceipts checks the receipts an import appended to dst's
// chain (as dst's export of the owner shows them): one put per document,
// each naming the document as stored, then the migration receipt naming
// the source chain's last receipt and the export's digest.
func checkImportReceipts(t *testing.T, dstExport, src *store.Export, digest string) {
	t.Helper()
	puts := map[uint64]store.ExportedReceipt{}
	var last store.ExportedReceipt
	for _, r := range dstExport.Receipts {
		if r.Op == "put" {
			puts[r.Seq] = r
		}
		last = r
	}
	for _, d := range dstExport.Documents {
		r, ok := puts[d.Seq]
		if !ok || r.Doc != d.Seq || r.Kind != d.Kind || r.HashAfter != d.ID.String() || r.Owner != src.Owner {
			t.Fatalf("document %s: its receipt %d is %+v", docKey(d), d.Seq, r.OwnerReceipt)
		}
	}
	srcLast := src.Receipts[len(src.Receipts)-1].Bytes
	sum := sha256.Sum256(srcLast)
	if last.Op != store.OpImport || last.HashBefore != hex.EncodeToString(sum[:]) || last.HashAfter != digest {
		t.Fatalf("migration receipt %+v: want op import, hash_before the source's last receipt, hash_after %s", last.OwnerReceipt, digest)
	}
}

// TestExportImportPreservesEveryRecord moves tenant A's records through
// two imports (source → B → C) and compares every document and receipt
// at each step; each destination's chain verifies and names where its
// records came from.
func TestExportImportPreservesEveryRecord(t *testing.T) {
	src, e := exportSource(t)
	// The export carries A's owner chain: A's receipts of the store's
	// chain, in order, renumbered from 1 and linked to each other. The
	// store's chain links through its own bytes.
	srcReceipts := ownerChainOf(t, src, tenantA)
	if len(srcReceipts) != len(e.Receipts) {
		t.Fatalf("%d of A's receipts in the store's chain, the export has %d", len(srcReceipts), len(e.Receipts))
	}
	for i, r := range e.Receipts {
		if !bytes.Equal(r.Bytes, srcReceipts[i]) {
			t.Fatalf("export receipt %d: %s, want %s", r.Seq, r.Bytes, srcReceipts[i])
		}
		for _, other := range []string{tenantB, `"num"`} {
			if bytes.Contains(r.Bytes, []byte(other)) {
				t.Fatalf("export receipt %d shows %s: %s", r.Seq, other, r.Bytes)
			}
		}
	}
	prev := e
	for step := range 2 {
		dst, err := store.Open(t.TempDir(), &store.Options{NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		defer dst.Close()
		ctx := store.WithPrincipal(context.Background(), tenantA)
		digest := strings.Repeat(fmt.Sprintf("%02x", step+1), 32)
		rep, err := dst.Import(ctx, prev, tenantA, store.Migration{ExportDigest: digest})
		if err != nil {
			t.Fatalf("import %d: %v", step, err)
		}
		if len(rep.Refs) != len(e.Documents) {
			t.Fatalf("import %d stored %d documents, want %d", step, len(rep.Refs), len(e.Documents))
		}
		if v, err := dst.Verify(context.Background()); err != nil || !v.OK() {
			t.Fatalf("verify after import %d: %v %v", step, err, v.Problems)
		}
		next, err := dst.Export(context.Background(), tenantA)
		if err != nil {
			t.Fatal(err)
		}
		if err := store.VerifyExport(next); err != nil {
			t.Fatalf("re-export %d: %v", step, err)
		}
		sameDocuments(t, next, e)
		checkImportReceipts(t, next, prev, digest)
		prev = next
	}
}

// receiptBytes is the RFC 8785 form a store receipt is stored and hashed
// in, written out here from its fields (README: receipts), independently
// of the store's encoder.
func receiptBytes(r *store.Receipt) []byte {
	m := map[string]any{"seq": canon.Number(strconv.FormatUint(r.Seq, 10)), "principal": r.Principal,
		"op": r.Op, "kind": string(r.Kind), "owner": r.Owner, "num": canon.Number(strconv.FormatUint(uint64(r.Num), 10)),
		"hash_before": r.HashBefore, "hash_after": r.HashAfter, "prev": r.Prev}
	if r.Grantee != "" {
		m["grantee"] = r.Grantee
	}
	return canonValue(m)
}

// ownerReceiptBytes is the RFC 8785 form of an owner receipt (README:
// receipts), written out independently of the store's encoder.
func ownerReceiptBytes(r *store.OwnerReceipt) []byte {
	m := map[string]any{"seq": canon.Number(strconv.FormatUint(r.Seq, 10)), "principal": r.Principal,
		"op": r.Op, "kind": string(r.Kind), "owner": r.Owner, "doc": canon.Number(strconv.FormatUint(r.Doc, 10)),
		"hash_before": r.HashBefore, "hash_after": r.HashAfter, "prev": r.Prev}
	if r.Grantee != "" {
		m["grantee"] = r.Grantee
	}
	return canonValue(m)
}

// ownerChainOf checks that the store's chain links through its bytes and
// derives owner's chain from it, as README describes: owner's receipts in
// order, numbered from 1, each naming its document by the seq of the put
// that stored it and linked to the previous one by sha256.
func ownerChainOf(t *testing.T, s *store.Store, owner string) [][]byte {
	t.Helper()
	var chain [][]byte
	storePrev, prev := strings.Repeat("0", 64), strings.Repeat("0", 64)
	docs := map[uint32]uint64{}
	err := s.Receipts(context.Background(), 1, func(r *store.Receipt) error {
		b := receiptBytes(r)
		if r.Prev != storePrev {
			return fmt.Errorf("store receipt %d: prev %s, want %s", r.Seq, r.Prev, storePrev)
		}
		sum := sha256.Sum256(b)
		storePrev = hex.EncodeToString(sum[:])
		if r.Owner != owner {
			return nil
		}
		o := store.OwnerReceipt{Seq: uint64(len(chain) + 1), Principal: r.Principal, Op: r.Op, Kind: r.Kind, Owner: r.Owner,
			HashBefore: r.HashBefore, HashAfter: r.HashAfter, Prev: prev, Grantee: r.Grantee}
		switch r.Op {
		case "put":
			o.Doc, docs[r.Num] = o.Seq, o.Seq
		case "delete", store.OpGrant, store.OpRevoke:
			o.Doc = docs[r.Num]
		}
		ob := ownerReceiptBytes(&o)
		sum = sha256.Sum256(ob)
		prev = hex.EncodeToString(sum[:])
		chain = append(chain, ob)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return chain
}

// flipByte changes the byte at i of b to another printable one.
func flipByte(b []byte, i int) []byte {
	out := bytes.Clone(b)
	if out[i] == 'x' {
		out[i] = 'y'
	} else {
		out[i] = 'x'
	}
	return out
}

// receiptIndex returns the position of receipt seq in e.
func receiptIndex(t *testing.T, e *store.Export, seq uint64) int {
	t.Helper()
	for i, r := range e.Receipts {
		if r.Seq == seq {
			return i
		}
	}
	t.Fatalf("no receipt %d in the export", seq)
	return -1
}

// rewrite replaces receipt seq by edit's version of it, with bytes that
// are its canonical form (a forger's consistent edit).
func rewrite(t *testing.T, e *store.Export, seq uint64, edit func(r *store.OwnerReceipt)) {
	t.Helper()
	i := receiptIndex(t, e, seq)
	r := e.Receipts[i].OwnerReceipt
	edit(&r)
	er, err := store.ExportReceipt(ownerReceiptBytes(&r))
	if err != nil {
		t.Fatal(err)
	}
	e.Receipts[i] = er
}

func drop(t *testing.T, e *store.Export, seqs ...uint64) {
	t.Helper()
	for _, seq := range seqs {
		i := receiptIndex(t, e, seq)
		e.Receipts = append(e.Receipts[:i:i], e.Receipts[i+1:]...)
	}
}

// TestVerifyExportNamesFirstBadEntry tampers with an export in the ways
// a copy in transit can be changed and checks that VerifyExport (which
// Import runs first) refuses each, naming the first entry at fault and
// what is wrong with it. A's owner chain is: 1 put a-1, 2 put a-gone,
// 3 put a-k, 4 put a-cand, 5 put json, 6 put IE, 7 put OB,
// 8 put ExecutionIntent, 9 put PAIRL, 10 delete a-gone (document 2); the
// documents, in the export's order, are those put by 1, 3, 4, 5, 6, 7, 8
// and 9.
func TestVerifyExportNamesFirstBadEntry(t *testing.T) {
	cases := []struct {
		name   string
		tamper func(t *testing.T, e *store.Export)
		want   string
	}{
		{"a byte of a document's body", func(t *testing.T, e *store.Export) {
			e.Documents[2].Body = flipByte(e.Documents[2].Body, 10)
		}, "document 4: body hashes to"},
		{"bytes of two documents' bodies", func(t *testing.T, e *store.Export) {
			e.Documents[5].Body = flipByte(e.Documents[5].Body, 10)
			e.Documents[1].Body = flipByte(e.Documents[1].Body, 10)
		}, "document 3: body hashes to"},
		{"a byte of a receipt", func(t *testing.T, e *store.Export) {
			i := receiptIndex(t, e, 4)
			e.Receipts[i].Bytes = flipByte(e.Receipts[i].Bytes, bytes.Index(e.Receipts[i].Bytes, []byte(`"put"`))+1)
		}, "receipt 4: bytes are not the receipt's canonical form"},
		{"a receipt rewritten, its successor adjacent", func(t *testing.T, e *store.Export) {
			rewrite(t, e, 5, func(r *store.OwnerReceipt) { r.Principal = "did:web:mallory.example" })
		}, "receipt 6: prev"},
		{"a receipt's content id rewritten", func(t *testing.T, e *store.Export) {
			rewrite(t, e, 9, func(r *store.OwnerReceipt) { r.HashAfter = strings.Repeat("ab", 32) })
		}, "receipt 10: prev"},
		{"the last receipt's content id rewritten", func(t *testing.T, e *store.Export) {
			rewrite(t, e, 10, func(r *store.OwnerReceipt) { r.HashBefore = strings.Repeat("ab", 32) })
		}, "receipt 10 deletes document 2"},
		{"the last receipt names another document", func(t *testing.T, e *store.Export) {
			rewrite(t, e, 10, func(r *store.OwnerReceipt) { r.Doc = 3 })
		}, "receipt 10 deletes document 3"},
		{"a put naming another document", func(t *testing.T, e *store.Export) {
			rewrite(t, e, 1, func(r *store.OwnerReceipt) { r.Doc = 2 })
		}, "receipt 2: prev"},
		{"the put of a live document dropped", func(t *testing.T, e *store.Export) { drop(t, e, 3) },
			"receipt 3: seq is 4"},
		{"the put of a deleted document dropped", func(t *testing.T, e *store.Export) { drop(t, e, 2) },
			"receipt 2: seq is 3"},
		{"a delete dropped", func(t *testing.T, e *store.Export) { drop(t, e, 10) },
			"document 2 ("},
		{"two receipts swapped", func(t *testing.T, e *store.Export) {
			i := receiptIndex(t, e, 4)
			e.Receipts[i], e.Receipts[i+1] = e.Receipts[i+1], e.Receipts[i]
		}, "receipt 4: seq is 5"},
		{"a receipt moved to the end", func(t *testing.T, e *store.Export) {
			i := receiptIndex(t, e, 1)
			e.Receipts = append(e.Receipts[i+1:], e.Receipts[i])
		}, "receipt 1: seq is 2"},
		{"a receipt given to another owner", func(t *testing.T, e *store.Export) {
			rewrite(t, e, 7, func(r *store.OwnerReceipt) { r.Owner = tenantB })
		}, `receipt 7: owner "did:web:b.example" is not the export's owner`},
		{"a document named by another receipt", func(t *testing.T, e *store.Export) { e.Documents[0].Seq = 2 },
			"document 2 ("},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, e := exportSource(t)
			c.tamper(t, e)
			err := store.VerifyExport(e)
			if !errors.Is(err, store.ErrBadExport) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("VerifyExport = %v\nwant ErrBadExport naming %q", err, c.want)
			}
			t.Logf("refused: %v", err)
			dst, oerr := store.Open(t.TempDir(), &store.Options{NoSync: true})
			if oerr != nil {
				t.Fatal(oerr)
			}
			defer dst.Close()
			ctx := store.WithPrincipal(context.Background(), tenantA)
			if _, ierr := dst.Import(ctx, e, tenantA, store.Migration{}); ierr == nil || ierr.Error() != err.Error() {
				t.Fatalf("Import = %v, want the refusal %v", ierr, err)
			}
			if n := countDocs(t, dst, ctx); n != 0 || dst.Head() != 0 {
				t.Fatalf("a refused import stored %d documents, %d receipts", n, dst.Head())
			}
		})
	}
}
