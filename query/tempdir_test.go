package query

import (
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
