package aqlstore

import (
	"context"
	"errors"
	"iter"

	"github.com/aqlstore/aqlstore/store"
)

// Change is one mutation in the change feed: a put, delete, grant or
// revoke, numbered by its receipt.
type Change struct {
	Seq   uint64 // the receipt's number: 1, 2, 3, … with no gaps in the store
	Op    string // "put", "delete", "grant" or "revoke"
	Kind  Kind
	Owner string
	ID    string // content id of the document (after a put, before a delete)
}

// errStop ends a receipt walk after changesPerRead receipts.
var errStop = errors.New("stop")

// Subscribe yields the changes after receipt seq after that the context's
// principal may see (public documents' and its own), then waits for new
// ones, until ctx ends or the DB closes: it then yields ctx.Err() or
// ErrClosed once and stops. Resume a feed by passing the last Seq
// received; pass 0 for the whole history.
func (db *DB) Subscribe(ctx context.Context, after uint64) iter.Seq2[Change, error] {
	return func(yield func(Change, error) bool) {
		ctx, err := db.context(ctx)
		if err != nil {
			yield(Change{}, err)
			return
		}
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		defer context.AfterFunc(db.done, cancel)()
		reader := store.Principal(ctx)
		for {
			changes, full, err := db.changesAfter(ctx, &after, reader)
			for _, c := range changes {
				if !yield(c, nil) {
					return
				}
			}
			if err == nil && !full {
				_, err = db.s.WaitChange(ctx, after)
			}
			if err != nil {
				if db.done.Err() != nil {
					err = ErrClosed
				}
				yield(Change{}, err)
				return
			}
		}
	}
}

// changesPerRead bounds the receipts one read collects: the consumer runs
// between reads, outside the DB's lock, so it may call the DB (even Close).
const changesPerRead = 256

// changesAfter reads up to changesPerRead receipts after *after, advancing
// *after, and returns those reader may see; full reports that it read
// changesPerRead (more may follow).
func (db *DB) changesAfter(ctx context.Context, after *uint64, reader string) (changes []Change, full bool, err error) {
	if err := db.enter(); err != nil {
		return nil, false, err
	}
	defer db.life.RUnlock()
	n := 0
	err = db.s.Receipts(ctx, *after+1, func(r *store.Receipt) error {
		*after = r.Seq
		if r.Owner == store.Public || r.Owner == reader {
			changes = append(changes, changeOf(r))
		}
		if n++; n == changesPerRead {
			return errStop
		}
		return nil
	})
	if errors.Is(err, errStop) {
		return changes, true, nil
	}
	return changes, false, err
}

func changeOf(r *store.Receipt) Change {
	id := r.HashAfter
	if id == "" {
		id = r.HashBefore
	}
	return Change{Seq: r.Seq, Op: r.Op, Kind: r.Kind, Owner: r.Owner, ID: id}
}
