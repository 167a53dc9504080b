package cluster

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/aqlstore/aqlstore/index"
	"github.com/aqlstore/aqlstore/store"
)

// An export is input from a file: whatever its bytes, importing it ends
// in success or an error, never a panic, and an error that is not the
// store's refusal of a document says ErrBadExport.
func FuzzImportExport(f *testing.F) {
	f.Add([]byte(`{"aqlstore_shard_export":"1","shard":0,"shards":1,"seq":3}` + "\n" +
		`{"owner":"public","kind":"offer","id":"x","candidate_id":"o1","body":"eyJvZmZlcl9pZCI6Im8xIn0=","at":1}` + "\n" +
		`{"end":true,"documents":1}` + "\n"))
	f.Add([]byte(`{"aqlstore_shard_export":"1","shard":0,"shards":1,"seq":0}` + "\n" + `{"end":true,"documents":0}`))
	f.Add([]byte(`{"aqlstore_shard_export":"1","shard":0,"shards":1,"seq":1}` + "\n" +
		`{"owner":"did:web:a.example","kind":"candidate","id":"x","candidate_id":"c1","body":"e30=","grantees":["did:web:b.example"],"at":1}` + "\n"))
	f.Add([]byte("\n\n{}"))
	s, _, err := index.Open(f.TempDir(), nil)
	if err != nil {
		f.Fatal(err)
	}
	defer s.Close()
	r := &replica{n: &Node{o: Options{Shards: 1}}, s: s, order: orderBook{}}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := r.importExport(context.Background(), bufio.NewReader(bytes.NewReader(data)))
		if err != nil && !errors.Is(err, ErrBadExport) && !isStoreRefusal(err) {
			t.Fatalf("import: %v, want ErrBadExport or the store's refusal of a document", err)
		}
	})
}

// isStoreRefusal reports whether err is a store refusing a document or a
// grant (a valid line the store will not take), which names its line too.
func isStoreRefusal(err error) bool {
	var ce *store.ConflictError
	return errors.As(err, &ce) || errors.Is(err, store.ErrInvalid) || errors.Is(err, store.ErrNotFound) ||
		errors.Is(err, store.ErrConflict)
}
