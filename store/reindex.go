package store

import (
	"context"
	"fmt"

	"github.com/aqlstore/aqlstore/canon"
)

// EachDocument calls fn with every document's number and body, whoever
// owns it. It is for maintenance (reindex, check), never for readers: it
// bypasses visibility.
func (s *Store) EachDocument(ctx context.Context, fn func(num uint32, doc IndexInput) error) error {
	return s.read(func(v *view, bs *bodies) error {
		return s.scanRecords(ctx, v, "", func(num uint32, rec *record) error {
			body, err := bs.body(num, rec)
			if err != nil {
				return err
			}
			doc, err := rec.indexed(body)
			if err != nil {
				return fmt.Errorf("document %d: %w", num, err)
			}
			return fn(num, doc)
		})
	})
}

// Reindex rebuilds every index key of the store in dir from its documents
// with ix, in batches of batchDocs, calling progress after each batch. The
// old index keys are deleted first; the store is not open elsewhere. Use
// it after an upgrade changes the index format, or to index a store
// written without one. The rebuilt index is compacted before Reindex
// returns: its batches wrote merge operands, which a lookup would
// otherwise merge on every read until compactions got to them, so the
// store answers as a bulk-loaded one does.
func Reindex(ctx context.Context, dir string, opts *Options, ix Indexer, batchDocs int, progress func(done int)) error {
	var o Options
	if opts != nil {
		o = *opts
	}
	o.Indexer = nil
	o.EnsureDefaults()
	k, err := openKV(dir, &o)
	if err != nil {
		return fmt.Errorf("store: reindex: %w", err)
	}
	s := &Store{dir: dir, opts: o, kv: k, changed: make(chan struct{})}
	defer s.Close()
	if err := s.loadMeta(); err != nil {
		return err
	}
	if err := s.checkPaths(ctx); err != nil {
		return fmt.Errorf("store: reindex: %w", err)
	}
	if kp, ok := ix.(IndexKeeper); ok {
		if err := kp.Keep(s.IndexReader()); err != nil {
			return err
		}
	}
	if err := s.dropIndex(); err != nil {
		return err
	}
	if err := ix.Load(s.IndexReader()); err != nil {
		return err
	}
	if err := s.rebuild(ctx, ix, max(batchDocs, 1), progress); err != nil {
		return err
	}
	if err := s.kv.compactRange(ctx, []byte{IndexPrefix}, []byte{IndexPrefix + 1}); err != nil {
		return fmt.Errorf("store: reindex: compact the index: %w", err)
	}
	return nil
}

// checkPaths stops at the first document past the path limits: one put
// under wider limits (or before there were path limits) would add index
// keys without bound. It runs before the old index is dropped, so the
// store stays open to delete the document, indexed as it was.
func (s *Store) checkPaths(ctx context.Context) error {
	return s.EachDocument(ctx, func(num uint32, doc IndexInput) error {
		if err := canon.CheckPaths(doc.JSON(), &s.opts.Limits); err != nil {
			return fmt.Errorf("document %d (%s %s): %w; delete it, or raise the store's path limits (Options.Limits) to index it",
				num, doc.Kind, canon.Sum(doc.Canonical), err)
		}
		return nil
	})
}

// dropIndex deletes every index key and the index marker in one batch.
func (s *Store) dropIndex() error {
	b := s.kv.newBatch()
	if err := b.b.DeleteRange([]byte{IndexPrefix}, []byte{IndexPrefix + 1}, nil); err != nil {
		return err
	}
	_ = b.del(metaIndex)
	if err := s.kv.apply(b, true); err != nil {
		b.close()
		return err
	}
	return b.wait()
}

// rebuild indexes every document, batchDocs per synced batch, and marks
// the store indexed with the last batch.
func (s *Store) rebuild(ctx context.Context, ix Indexer, batchDocs int, progress func(int)) error {
	done, pending := 0, 0
	flush := func(last bool) error {
		b := s.kv.newBatch()
		if err := ix.Flush(&IndexWriter{b: b}); err != nil {
			b.close()
			return err
		}
		if last {
			_ = b.set(metaIndex, []byte(ix.Version()))
		}
		if err := s.kv.apply(b, true); err != nil {
			b.close()
			ix.Done(false)
			return err
		}
		ix.Done(true)
		done, pending = done+pending, 0
		if progress != nil {
			progress(done)
		}
		return b.wait()
	}
	err := s.EachDocument(ctx, func(num uint32, doc IndexInput) error {
		if err := ix.Add(num, doc); err != nil {
			return err
		}
		if pending++; pending >= batchDocs {
			return flush(false)
		}
		return nil
	})
	if err != nil {
		ix.Done(false)
		return err
	}
	return flush(true)
}
