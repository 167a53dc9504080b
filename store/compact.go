package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cockroachdb/pebble/v2"
)

// Erasure. Deleting the last copy of a document must take its bytes off
// the disk once the store is compacted, not only out of reach of reads.
// Four things would otherwise keep them:
//
//   - Pebble recycles write-ahead logs: an obsolete WAL is kept, renamed
//     and overwritten from its start by later writes, so the batches it
//     held (document bytes included) stay in it until they happen to be
//     overwritten. eraseCleaner turns recycling off.
//   - A posting list is only ever merged, so the key of an emptied one
//     (which holds the string value it indexes) would outlive the last
//     document with that value. Compact deletes such keys first
//     (sweepPostings).
//   - An indexer can keep more than posting lists: the path dictionary of
//     package index holds every member name a document had. Compact lets
//     an IndexSweeper drop the entries no live document needs
//     (sweepIndex).
//   - Compaction cannot drop a deleted version that an open read can still
//     see, and Pebble deletes obsolete files in the background. Compact
//     waits for both.

// eraseCleaner deletes obsolete files, like Pebble's default cleaner, but
// declares that it needs their contents, which is what stops Pebble from
// recycling WAL files (it recycles only for cleaners that do not). The
// cost is a new WAL file per memtable instead of a reused one. Pebble
// exports neither that declaration nor the type Clean takes, so both come
// by embedding: DeleteCleaner's Clean and String sit shallower than
// ArchiveCleaner's and win; ArchiveCleaner adds only its marker method.
type eraseCleaner struct {
	pebble.DeleteCleaner
	needsContents
}

type needsContents struct{ pebble.ArchiveCleaner }

// isEmptyPosting reports whether v, an index value as reads see it (its
// merge operands applied), is a posting list with no documents. Such a
// value is small: a longer one is not decoded.
func isEmptyPosting(v []byte) bool {
	if len(v) > maxEmptyPosting {
		return false
	}
	set, clear, err := decodeOperand(v)
	return err == nil && set.GetCardinality() == 0 && clear.GetCardinality() == 0
}

// maxEmptyPosting bounds the size of an empty posting list's value: the
// roaring header of an empty set (8 bytes) and its length.
const maxEmptyPosting = 16

// sweepChunk is how many index keys one step of sweepPostings reads under
// the writer lock: writers wait for one step at a time, not the sweep.
const sweepChunk = 10_000

// sweepPostings deletes every index key whose posting list is empty.
// Postings are only ever merged (a delete adds an operand clearing the
// document's bits), so a list emptied by deletes keeps its key, which for
// an equality, trigram or short-string posting holds the deleted
// document's text, until something deletes it. Deleting it at the delete
// would mean reading every posting of the document there, and the hot
// ones (every document, a kind, an owner) carry one pending operand per
// delete since the last compaction: measured, 200 ms per delete on 5,000
// documents. Each step reads and deletes under the writer lock, so no
// mutation adds to a list between the read and the delete.
func (s *Store) sweepPostings(ctx context.Context) (int, error) {
	start, end := []byte{IndexPrefix}, []byte{IndexPrefix + 1}
	swept := 0
	for start != nil {
		if err := ctx.Err(); err != nil {
			return swept, err
		}
		next, n, err := s.sweepStep(start, end)
		swept += n
		if err != nil {
			return swept, err
		}
		start = next
	}
	return swept, nil
}

// errStepFull ends one step's scan.
var errStepFull = errors.New("store: sweep step full")

// sweepStep deletes the empty postings among the first sweepChunk index
// keys from start, and returns the key to go on from (nil at the end).
func (s *Store) sweepStep(start, end []byte) (next []byte, n int, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.checkOpen(); err != nil {
		return nil, 0, err
	}
	b := s.kv.newBatch()
	read := 0
	err = s.kv.scan(start, end, func(key, value []byte) error {
		if read == sweepChunk {
			next = key
			return errStepFull
		}
		read++
		if isEmptyPosting(value) {
			n++
			return b.del(key)
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStepFull) {
		b.close()
		return nil, 0, err
	}
	if n == 0 {
		b.close()
		return next, 0, nil
	}
	// Not synced: the deletions change nothing a reader sees, and a crash
	// that loses them leaves them to the next Compact.
	if err := s.kv.apply(b, false); err != nil {
		b.close()
		return nil, 0, err
	}
	return next, n, b.wait()
}

// sweepIndex lets an IndexSweeper delete what deleted documents left in
// its index beside the posting lists (package index: the member names of
// its path dictionary), one step per hold of the writer lock, as
// sweepPostings does. It runs after sweepPostings, so a step finds the
// postings deletes emptied already gone.
func (s *Store) sweepIndex(ctx context.Context) error {
	sw, ok := s.opts.Indexer.(IndexSweeper)
	if !ok {
		return nil
	}
	var from []byte
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		next, err := s.sweepIndexStep(sw, from)
		if err != nil || next == nil {
			return err
		}
		from = next
	}
}

// sweepIndexStep runs one step of an IndexSweeper and commits what it
// wrote; the Indexer learns through Done whether it did.
func (s *Store) sweepIndexStep(sw IndexSweeper, from []byte) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	b := s.kv.newBatch()
	next, err := sw.Sweep(s.IndexReader(), &IndexWriter{b: b}, from)
	if err == nil && !b.empty() {
		// Not synced, as sweepStep: a crash that loses the step leaves
		// its entries to the next Compact, and the write-ahead log keeps
		// it ahead of any later mutation that depends on it.
		err = s.kv.apply(b, false)
	}
	s.opts.Indexer.Done(err == nil)
	if err != nil {
		b.close()
		return nil, err
	}
	return next, b.wait()
}

// Compact rewrites the database so that the bytes of every document
// deleted before the call leave the disk: it deletes the index keys whose
// posting lists deletes emptied, waits for reads that began before the
// call (their views can still see deleted documents, so compaction would
// have to keep them), flushes, compacts the whole key space, and waits
// until Pebble has removed the files the compaction made obsolete. It can take a while on a large store; ctx bounds the waits.
// What the file system does with freed blocks is beyond it: a disk that
// must not keep them needs encryption or a secure erase underneath.
// Compact must not run concurrently with Close.
func (s *Store) Compact(ctx context.Context) error {
	s.mu.Lock()
	err := s.checkOpen()
	s.mu.Unlock()
	if err != nil {
		return err
	}
	if _, err := s.sweepPostings(ctx); err != nil {
		return fmt.Errorf("store: compact: sweep empty postings: %w", err)
	}
	if err := s.sweepIndex(ctx); err != nil {
		return fmt.Errorf("store: compact: sweep index: %w", err)
	}
	if err := s.kv.erase(ctx); err != nil {
		return fmt.Errorf("store: compact: %w", err)
	}
	return nil
}

// erase is Compact on the Pebble level.
func (k *kv) erase(ctx context.Context) error {
	// After a disk fault a flush can make Pebble abort the process (a
	// write-ahead log switch) or block (sstable writes failing).
	if err := k.fault.refusal(); err != nil {
		return err
	}
	now, err := k.seqNow()
	if err != nil {
		return err
	}
	err = k.waitFor(ctx, "reads that began before the compaction", func(m *pebble.Metrics) bool {
		return m.Snapshots.Count == 0 || uint64(m.Snapshots.EarliestSeqNum) >= now
	})
	if err != nil {
		return err
	}
	if err := k.db.Flush(); err != nil {
		return err
	}
	if err := k.db.Compact(ctx, []byte{0}, []byte{0xff}, true); err != nil {
		return err
	}
	return k.waitFor(ctx, "removal of obsolete files", func(m *pebble.Metrics) bool {
		return m.Table.ObsoleteCount == 0 && m.Table.ZombieCount == 0 &&
			m.BlobFiles.ObsoleteCount == 0 && m.BlobFiles.ZombieCount == 0
	})
}

// compactWaiting, when a test sets it, is told when Compact starts to wait.
var compactWaiting func(what string)

// seqNow returns a sequence number no committed write reaches: the one
// Pebble gives a batch holding only a log record, which takes none of its
// own. A view whose snapshot is at or above it sees every write committed
// before the call.
func (k *kv) seqNow() (uint64, error) {
	b := k.db.NewBatch()
	defer b.Close()
	if err := b.LogData(nil, nil); err != nil {
		return 0, err
	}
	if err := k.db.Apply(b, pebble.NoSync); err != nil {
		return 0, err
	}
	return uint64(b.SeqNum()), nil
}

// waitFor polls Pebble's metrics until done holds or ctx ends; Pebble
// offers no notification for either thing Compact waits for.
func (k *kv) waitFor(ctx context.Context, what string, done func(*pebble.Metrics) bool) error {
	delay := time.Millisecond
	for i := 0; !done(k.db.Metrics()); i++ {
		if i == 0 && compactWaiting != nil {
			compactWaiting(what)
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("waiting for %s: %w", what, ctx.Err())
		case <-t.C:
		}
		delay = min(2*delay, 50*time.Millisecond)
	}
	return nil
}
