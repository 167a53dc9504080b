package store

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/aqlstore/aqlstore/canon"
)

// sharedBlobStore stores, in this order: public a, b, c; alice's copy of a
// (blob 1); public d; bob's copy of c (blob 3), then deletes public a, so
// that blob 1 lives on for alice alone.
func sharedBlobStore(t *testing.T) (*Store, map[uint32]string) {
	t.Helper()
	s := openTest(t, nil)
	pub := context.Background()
	alice := WithPrincipal(pub, "did:key:alice")
	bob := WithPrincipal(pub, "did:key:bob")
	want := map[uint32]string{}
	put := func(ctx context.Context, body string) Ref {
		ref := mustPut(t, s, ctx, body)
		want[ref.Num] = body
		return ref
	}
	a := put(pub, `{"node_id":"a"}`)
	put(pub, `{"node_id":"b"}`)
	put(pub, `{"node_id":"c"}`)
	put(alice, `{"node_id":"a"}`)
	put(pub, `{"node_id":"d"}`)
	put(bob, `{"node_id":"c"}`)
	if err := s.Delete(pub, a); err != nil {
		t.Fatal(err)
	}
	delete(want, a.Num)
	return s, want
}

// TestBodiesInNumberOrder reads documents whose blob was numbered by an
// earlier (even a deleted) document through every path that merges the
// record and blob key spaces.
func TestBodiesInNumberOrder(t *testing.T) {
	s, want := sharedBlobStore(t)
	ctx := context.Background()
	got := map[uint32]string{}
	err := s.EachDocument(ctx, func(num uint32, doc IndexInput) error {
		got[num] = string(doc.Canonical)
		return nil
	})
	if err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("EachDocument: %v\n got %v\nwant %v", err, got, want)
	}
	all := roaring.New()
	for num := range want {
		all.Add(num)
	}
	all.Add(1) // deleted: skipped
	for _, principal := range []string{"did:key:alice", "did:key:bob"} {
		pctx := WithPrincipal(ctx, principal)
		var scanned []string
		for doc, err := range s.Scan(pctx, "") {
			if err != nil {
				t.Fatal(err)
			}
			if want[doc.Num] != string(doc.Body) {
				t.Fatalf("%s: scan: document %d is %s, want %s", principal, doc.Num, doc.Body, want[doc.Num])
			}
			scanned = append(scanned, fmt.Sprint(doc.Num))
		}
		for _, sequential := range []bool{false, true} {
			var fetched []string
			for doc, err := range s.Fetch(pctx, all, sequential) {
				if err != nil {
					t.Fatal(err)
				}
				if want[doc.Num] != string(doc.Body) {
					t.Fatalf("%s: fetch: document %d is %s, want %s", principal, doc.Num, doc.Body, want[doc.Num])
				}
				fetched = append(fetched, fmt.Sprint(doc.Num))
			}
			if strings.Join(fetched, ",") != strings.Join(scanned, ",") {
				t.Fatalf("%s: fetch (sequential %v) %v, scan %v", principal, sequential, fetched, scanned)
			}
		}
		if principal == "did:key:alice" && strings.Join(scanned, ",") != "2,3,4,5" {
			t.Fatalf("alice scans %v", scanned)
		}
	}
	st, err := s.Stats(ctx)
	if err != nil || st.Blobs != 4 || st.Documents != 5 {
		t.Fatalf("stats %+v %v", st, err)
	}
	verifyOK(t, s)
}

// TestDeleteLastReferenceErasesBlob deletes every copy of a content and
// checks that no key or value of the store holds its bytes any more.
func TestDeleteLastReferenceErasesBlob(t *testing.T) {
	s, _ := sharedBlobStore(t)
	ctx := context.Background()
	alice := WithPrincipal(ctx, "did:key:alice")
	// Blob 1 outlived document 1; alice's copy is the last reference.
	if _, found, _ := s.kv.get(AppendBlobKey(nil, 1), nil); !found {
		t.Fatal("blob 1 gone while alice still uses it")
	}
	if err := s.Delete(alice, Ref{Num: 4}); err != nil {
		t.Fatal(err)
	}
	if err := s.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	err := s.kv.scan([]byte{0}, []byte{0xff}, func(key, value []byte) error {
		if bytes.Contains(value, []byte(`"a"`)) || (key[0] == prefixBlob && binary.BigEndian.Uint32(key[1:]) == 1) {
			return fmt.Errorf("key %q still holds the deleted content: %q", key, value)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	verifyOK(t, s)
}

// TestVerifyFindsBlobDamage removes a blob still in use and adds one that
// nothing names.
func TestVerifyFindsBlobDamage(t *testing.T) {
	s, _ := sharedBlobStore(t)
	b := s.kv.newBatch()
	_ = b.del(AppendBlobKey(nil, 1))
	_ = b.set(AppendBlobKey(nil, 99), encodeBlob(nil, []byte(`{"node_id":"z"}`), "none"))
	if err := s.kv.apply(b, false); err != nil {
		t.Fatal(err)
	}
	_ = b.wait()
	rep, err := s.Verify(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	joined := strings.Join(rep.Problems, "\n")
	id := canon.Sum([]byte(`{"node_id":"a"}`))
	if rep.Count != 2 || !strings.Contains(joined, "blob "+id.String()+" (number 1): missing, used by 1 documents") ||
		!strings.Contains(joined, "blob 99: no document or reference count names it") {
		t.Fatalf("damage not reported as expected:\n%s", joined)
	}
}

// TestOpenRefusesOldFormats opens stores written in the format that keyed
// blobs by content id (1) and in the one that kept every body in a blob
// of its own (2): each is refused, saying how to move it.
func TestOpenRefusesOldFormats(t *testing.T) {
	for _, ver := range []uint64{1, 2} {
		dir := t.TempDir()
		s, err := Open(dir, &Options{NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		b := s.kv.newBatch()
		_ = b.set(metaFormat, binary.AppendUvarint(nil, ver))
		if err := s.kv.apply(b, true); err != nil {
			t.Fatal(err)
		}
		_ = b.wait()
		s.Close()
		_, err = Open(dir, nil)
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("format %d", ver)) ||
			!strings.Contains(err.Error(), "export") || !strings.Contains(err.Error(), "import") {
			t.Fatalf("format %d store opened: %v", ver, err)
		}
		t.Logf("format %d: %v", ver, err)
	}
}

// TestUniqueBodyInRecord checks the layout of format 3: unique content
// lives in its document's record and nowhere else, so a read of the record
// alone yields the body; content stored again gets a shared blob, which
// outlives the document that numbered it.
func TestUniqueBodyInRecord(t *testing.T) {
	s := openTest(t, nil)
	pub := context.Background()
	alice := WithPrincipal(pub, "did:key:alice")
	a := mustPut(t, s, pub, `{"node_id":"a"}`)
	b := mustPut(t, s, pub, `{"node_id":"b"}`)
	if _, found, _ := s.kv.get(AppendBlobKey(nil, a.Num), nil); found {
		t.Fatalf("unique content of document %d has a blob key too", a.Num)
	}
	rec, found, err := readRecord(s.kv.get, b.Num)
	if err != nil || !found {
		t.Fatal(found, err)
	}
	body, err := readBody(func([]byte, []byte) ([]byte, bool, error) {
		t.Fatal("the body of unique content was read from another key")
		return nil, false, nil
	}, b.Num, &rec)
	if err != nil || string(body) != `{"node_id":"b"}` {
		t.Fatalf("inline body %q, %v", body, err)
	}
	shared := mustPut(t, s, alice, `{"node_id":"a"}`)
	if _, found, _ := s.kv.get(AppendBlobKey(nil, a.Num), nil); !found {
		t.Fatal("content with a second reference has no shared blob")
	}
	if err := s.Delete(pub, a); err != nil {
		t.Fatal(err)
	}
	doc, err := s.Get(alice, Ref{Num: shared.Num})
	if err != nil || string(doc.Body) != `{"node_id":"a"}` {
		t.Fatalf("shared copy after its first document was deleted: %v", err)
	}
	verifyOK(t, s)
	if err := s.Delete(alice, shared); err != nil {
		t.Fatal(err)
	}
	if _, found, _ := s.kv.get(AppendBlobKey(nil, a.Num), nil); found {
		t.Fatal("the shared blob outlived its last reference")
	}
	verifyOK(t, s)
}
