package index

import (
	"os"

	"github.com/aqlstore/aqlstore/store"
	"pgregory.net/rapid"
)

// rapidStore opens an indexed store in a new directory for one rapid
// case, closed and removed when the case ends.
func rapidStore(t *rapid.T, name string) (*store.Store, *Index) {
	dir, err := os.MkdirTemp("", "aqlstore-"+name+"-*")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	s, ix, err := Open(dir, &store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, ix
}
