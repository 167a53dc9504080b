package store

import (
	"context"
	"iter"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/aqlstore/aqlstore/canon"
)

// Header is what the in-memory columns hold of one document (columns.go).
type Header struct {
	Num         uint32
	Kind        canon.Kind
	Owner       string
	Score       canon.Number // "" when the document has none
	CandidateID string       // its natural key where it has one, else its content id
}

// Headers yields the header of each document in nums (nil: none) that
// exists and that the context's principal may see, in ascending number,
// all as of one commit. It reads no record: a resolver ranks a large candidate set with
// it and reads the bodies of one page only. Only a document of another
// tenant that is granted to the reader costs a read, of its grant key.
func (s *Store) Headers(ctx context.Context, nums *roaring.Bitmap) iter.Seq2[Header, error] {
	return func(yield func(Header, error) bool) {
		if nums == nil {
			return
		}
		principal := s.readerOf(ctx)
		v, cols := s.snapshot()
		defer v.close()
		it := nums.Iterator()
		for it.HasNext() {
			if err := ctx.Err(); err != nil {
				yield(Header{}, err)
				return
			}
			num := it.Next()
			kind := cols.Kind(num)
			if kind == "" {
				continue // deleted since the candidates were computed
			}
			owner := cols.Owner(num)
			if ok, err := sees(v.get, principal, num, owner); err != nil || !ok {
				if err != nil {
					yield(Header{}, err)
					return
				}
				continue
			}
			h := Header{Num: num, Kind: kind, Owner: owner, Score: cols.Score(num), CandidateID: cols.CandidateID(num)}
			if !yield(h, nil) {
				return
			}
		}
	}
}

// snapshot returns a view of the database and the columns as of the same
// commit. Close the view when done.
func (s *Store) snapshot() (*view, *Columns) {
	s.pub.RLock()
	defer s.pub.RUnlock()
	return s.kv.newView(), s.cols.Load()
}
