package index

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/aqlstore/aqlstore/store"
)

// addOnly hides Extract: a store indexes through Add alone.
type addOnly struct{ store.Indexer }

// variedDocs returns documents with nested objects, arrays, numbers,
// decimal strings, instants, long strings and text at a text path.
func variedDocs(n int) []store.Document {
	docs := make([]store.Document, n)
	for i := range docs {
		body := fmt.Sprintf(`{"offer_id":"o%d","description":"a fast %s tool number %d","price":%d.5,`+
			`"amount":"%d.25","at":"2025-0%d-10T18:51:27.%03dZ","tags":["t%d","t%d",{"deep":[%d,null,true]}],`+
			`"signals":{"score":%d},"long":"%s","k\u00e9y":{"x~y/z":false}}`,
			i, []string{"search", "image", "ledger"}[i%3], i, i*7, i, 1+i%9, i, i%4, i%5, i, i%10,
			bytes.Repeat([]byte{'z'}, 100+i%60))
		docs[i] = store.Document{Body: []byte(body)}
	}
	return docs
}

func indexKeys(t *testing.T, s *store.Store) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := s.IndexReader().Scan([]byte{store.IndexPrefix}, []byte{store.IndexPrefix + 1}, func(k, v []byte) error {
		if len(k) > 1 && (k[1] == famConfig) {
			return nil
		}
		if bm, err := store.DecodeBitmap(v); err == nil && !bm.IsEmpty() {
			out[string(k)] = bm.String()
		} else {
			out[string(k)] = string(v)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestExtractedPostingsEqualAdd puts the same documents through Add under
// the writer lock and through Extract on parallel workers plus
// AddExtracted: the index keys must be the same, path ids included.
func TestExtractedPostingsEqualAdd(t *testing.T) {
	ctx := context.Background()
	docs := variedDocs(300)
	var got []map[string]string
	for _, ixr := range []func(*Index) store.Indexer{
		func(ix *Index) store.Indexer { return addOnly{ix} },
		func(ix *Index) store.Indexer { return ix },
		func(ix *Index) store.Indexer { return loadExtracted{ix} },
	} {
		ix := New()
		ix.want = &Config{TextPaths: []string{"/description", "/tags/*"}}
		s, err := store.Open(t.TempDir(), &store.Options{NoSync: true, Indexer: ixr(ix)})
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < len(docs); i += 100 {
			if _, err := s.PutBatch(ctx, docs[i:i+100]); err != nil {
				t.Fatal(err)
			}
		}
		got = append(got, indexKeys(t, s))
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if len(got[0]) < 1000 {
		t.Fatalf("only %d index keys: the documents exercise too little", len(got[0]))
	}
	for i, how := range []string{"Extract", "Extract during a load"} {
		for k, v := range got[0] {
			if got[i+1][k] != v {
				t.Errorf("key %q: Add gives %s, %s gives %s", k, v, how, got[i+1][k])
			}
		}
		for k := range got[i+1] {
			if _, ok := got[0][k]; !ok {
				t.Errorf("key %q only after %s", k, how)
			}
		}
	}
}

// loadExtracted extracts as during a load, without range buckets: a
// document so extracted and added by a mutation after the load (one
// that waited for the writer lock) gets its buckets from the shards.
type loadExtracted struct{ *Index }

func (l loadExtracted) Extract(doc store.IndexInput) (any, error) { return l.extract(doc, true) }
