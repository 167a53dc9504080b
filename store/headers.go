package store

import (
	"context"
	"iter"

	"github.com/RoaringBitmap/roaring/v2"
)

// FetchHeaders is Fetch without the bodies: each visible document's
// reference, natural key and signals, in ascending number, read from its
// record alone. A resolver ranks a large candidate set with it and reads
// the bodies of one page only. Body and View are nil.
func (s *Store) FetchHeaders(ctx context.Context, nums *roaring.Bitmap) iter.Seq2[*Doc, error] {
	return func(yield func(*Doc, error) bool) {
		principal := s.readerOf(ctx)
		err := s.readView(func(v *view) error {
			return s.fetchPoints(ctx, v, nums, func(num uint32, rec *record) error {
				if ok, err := sees(v.get, principal, num, rec.owner); err != nil || !ok {
					return err
				}
				sig, err := rec.decodeSignals()
				if err != nil {
					return err
				}
				if !yield(&Doc{Ref: rec.ref(num), NaturalKey: rec.naturalKey, Signals: sig, Seq: rec.seq}, nil) {
					return errStopScan
				}
				return nil
			})
		})
		if err != nil && err != errStopScan {
			yield(nil, err)
		}
	}
}
