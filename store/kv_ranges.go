package store

import "github.com/cockroachdb/pebble/v2"

// ranges reads key ranges one after another through one iterator. A
// lookup that reads many small ranges (a range query's buckets, level by
// level) moves it with SetBounds and a seek, where a new iterator per
// range would set up its merging iterator and position every level's
// tables again. The ranges see the database as of k.ranges, as one
// iterator does.
type ranges struct{ it *pebble.Iterator }

func (k *kv) ranges() (*ranges, error) {
	it, err := k.db.NewIter(nil)
	if err != nil {
		return nil, err
	}
	return &ranges{it: it}, nil
}

// visit runs fn over the keys in [start, end) until fn returns false or
// an error. key and value are Pebble's, valid during the call only. A
// read error names the key, or the range's start.
func (r *ranges) visit(start, end []byte, fn func(key, value []byte) (bool, error)) error {
	r.it.SetBounds(start, end) // copies the bounds
	for valid := r.it.First(); valid; valid = r.it.Next() {
		v, err := r.it.ValueAndErr()
		if err != nil {
			return readError(r.it.Key(), err)
		}
		if more, err := fn(r.it.Key(), v); err != nil || !more {
			return err
		}
	}
	return readError(start, r.it.Error())
}

func (r *ranges) close() error { return r.it.Close() }
