package query

import (
	"context"
	"os"

	"pgregory.net/rapid"

	"github.com/aqlstore/aqlstore/index"
	"github.com/aqlstore/aqlstore/store"
)

// tempDir makes a directory for one rapid check (rapid.T has no TempDir);
// the check removes it.
func tempDir() (string, error) { return os.MkdirTemp("", "aqlstore-diff-*") }

// diffStore is the small indexed store one rapid check of the
// differential tests builds: its directory and options, so the check can
// reopen it.
type diffStore struct {
	dir  string
	opts *store.Options
}

// openDiffStore opens a fresh diffStore; remove deletes its directory.
func openDiffStore(t *rapid.T) (d diffStore, s *store.Store, ix *index.Index) {
	dir, err := tempDir()
	if err != nil {
		t.Fatal(err)
	}
	d = diffStore{dir: dir, opts: &store.Options{NoSync: true, MemTableSize: 1 << 20, CacheSize: 1 << 20}}
	// Some stores keep trigrams at random text paths, so that contains
	// and matches are planned both ways (index.Config).
	var text []string
	for range rapid.IntRange(0, 2).Draw(t, "text paths") {
		text = append(text, rapid.SampledFrom([]string{"/**", genPath(t)}).Draw(t, "text path"))
	}
	if len(text) > 0 {
		if err := index.Configure(context.Background(), dir, d.opts, index.Config{TextPaths: text}, 100, nil); err != nil {
			d.remove()
			t.Fatal(err)
		}
	}
	if s, ix, err = index.Open(dir, d.opts); err != nil {
		d.remove()
		t.Fatal(err)
	}
	return d, s, ix
}

func (d diffStore) remove() { os.RemoveAll(d.dir) }

// reopen closes s and opens the store again.
func (d diffStore) reopen(t *rapid.T, s *store.Store) (*store.Store, *index.Index) {
	s.Close()
	s, ix, err := index.Open(d.dir, d.opts)
	if err != nil {
		t.Fatal(err)
	}
	return s, ix
}
