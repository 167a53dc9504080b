package index

import (
	"github.com/aqlstore/aqlstore/store"
)

// Open opens (creating if needed) an indexed store in dir: the store with
// an Index maintained in every mutation. opts may be nil; its Indexer is
// replaced.
func Open(dir string, opts *store.Options) (*store.Store, *Index, error) {
	var o store.Options
	if opts != nil {
		o = *opts
	}
	ix := New()
	o.Indexer = ix
	s, err := store.Open(dir, &o)
	if err != nil {
		return nil, nil, err
	}
	return s, ix, nil
}
