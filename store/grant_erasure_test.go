package store_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/aqlstore/aqlstore/store"
)

// TestDeleteErasesGrantsFromDisk: a granted document's grant keys hold
// its natural key and the grantee's DID; deleting the document and
// compacting leaves neither on disk (erasure_test.go has the search).
func TestDeleteErasesGrantsFromDisk(t *testing.T) {
	dir := t.TempDir()
	s := erasureStore(t, dir)
	ctx := context.Background()
	alice := store.WithPrincipal(ctx, "did:web:alice.example")
	key, grantee := marker(t, "gk"), "did:web:"+marker(t, "gg")+".example"
	ref, err := s.Put(alice, store.Document{Body: []byte(fmt.Sprintf(`{"node_id":%q,"text":"granted"}`, key))})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(alice, store.Document{Body: []byte(`{"node_id":"kept","text":"stays"}`)}); err != nil {
		t.Fatal(err)
	}
	if err := s.Grant(alice, store.Ref{ID: ref.ID}, grantee); err != nil {
		t.Fatal(err)
	}
	if err := s.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	requireOnDisk(t, dir, []string{key, grantee})
	deleteWithReceipt(t, s, alice, ref)
	if err := s.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	var failed []string
	for _, h := range diskHits(t, dir, []string{key, grantee}) {
		failed = append(failed, h.String())
	}
	if len(failed) > 0 {
		t.Errorf("a deleted document's grants are still on disk after Compact:\n%s", strings.Join(failed, "\n"))
	}
	verifyAll(t, s)
}
