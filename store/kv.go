package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	iofs "io/fs"
	"log/slog"
	"sync/atomic"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// kv is the one place that touches Pebble. It maps pebble.ErrNotFound to a
// found flag and copies every value before its closer closes, so that no
// Pebble-owned byte slice escapes it.
type kv struct {
	db    *pebble.DB
	opts  *pebble.Options // as opened, with Pebble's defaults filled in: the Loader's tables follow them
	fault *faultState     // disk faults: mutations are refused after one (kv_fault.go)
	// writes counts the writes (applied batches, ingests) begun and
	// ended, one each, like a sequence lock: odd while one is under way.
	// Reads made while it stays even and unchanged saw the database as
	// it still is (writeEpoch).
	writes atomic.Uint64
}

// writeEpoch returns the write count; see kv.writes. Two equal even
// counts read before and after some reads prove that no write began,
// ran or became visible between them: Pebble publishes a batch before
// Apply returns, and the count ends only after that.
func (k *kv) writeEpoch() uint64 { return k.writes.Load() }

// quiet reports whether epoch, a write count read earlier, shows no
// write under way then: reads begun after it see every write before it.
func quiet(epoch uint64) bool { return epoch%2 == 0 }

// unchangedSince reports whether no write began since epoch was read,
// with none under way then: what reads begun after it saw is what the
// store holds now.
func (k *kv) unchangedSince(epoch uint64) bool { return quiet(epoch) && k.writeEpoch() == epoch }

// writing counts a write begun; the caller defers the func it returns,
// which counts it ended.
func (k *kv) writing() func() {
	k.writes.Add(1)
	return func() { k.writes.Add(1) }
}

// openKV opens (creating if needed) the Pebble database in dir. The
// defaults Pebble ships are tuned for a server with a large write stream to
// absorb; ours: a bigger memtable for bulk ingest, bloom filters because
// most reads are point lookups of keys that exist, and block compression
// chosen by Options.
func openKV(dir string, o *Options) (*kv, error) {
	fault := &faultState{noSync: o.NoSync, log: o.Logger}
	// Pebble counts every memtable against the block cache, and keeps two
	// full-size memtables once one was flushed (the one taking writes and
	// one kept for reuse): a cache of CacheSize alone, with the default
	// memtable of the same size, held no block at all, and every point
	// read went to the file. The cache is sized for both, so blocks get
	// CacheSize beside them.
	cache := pebble.NewCache(o.CacheSize + 2*int64(o.MemTableSize))
	defer cache.Unref()
	po := &pebble.Options{
		FS:                          o.FS,
		Cache:                       cache,
		MemTableSize:                o.MemTableSize,
		MemTableStopWritesThreshold: 4,
		L0CompactionThreshold:       4,
		L0StopWritesThreshold:       24,
		Logger:                      pebbleLogger{o.Logger},
		EventListener:               fault.events(o.Logger), // disk faults are errors, not fatal (kv_fault.go)
		// Without a recent format Pebble cannot write MinLZ and silently
		// falls back to Snappy for every block, zstd included: measured,
		// the newest format takes manifests from 1062 to 780 bytes per
		// document on disk (BenchmarkCompression).
		FormatMajorVersion: pebble.FormatNewest,
		Merger:             bitmapMerger,
		Cleaner:            eraseCleaner{}, // no WAL recycling: deleted bytes leave the disk (compact.go)
		ReadOnly:           o.ReadOnly,
	}
	if po.FS == nil {
		po.FS = vfs.Default
	}
	po.FS = watchWAL{FS: po.FS, f: fault} // a failed WAL write refuses the next commit (kv_fault.go)
	for i := range po.Levels {
		po.Levels[i].FilterPolicy = bloom.FilterPolicy(10)
		po.Levels[i].BlockSize = o.BlockSize
	}
	switch o.BlockCompression {
	case "none":
		po.ApplyCompressionSettings(func() pebble.DBCompressionSettings { return pebble.DBCompressionNone })
	case "snappy":
		po.ApplyCompressionSettings(func() pebble.DBCompressionSettings { return pebble.DBCompressionFastest })
	case "balanced":
		po.ApplyCompressionSettings(func() pebble.DBCompressionSettings { return pebble.DBCompressionBalanced })
	case "zstd":
		po.ApplyCompressionSettings(func() pebble.DBCompressionSettings { return pebble.DBCompressionGood })
	}
	db, err := pebble.Open(dir, po)
	if err != nil {
		return nil, fmt.Errorf("open pebble in %s: %w", dir, err)
	}
	fault.opened.Store(true)
	po = po.Clone()
	po.EnsureDefaults()
	return &kv{db: db, opts: po, fault: fault}, nil
}

// exists reports whether dir holds a Pebble database, reading only.
func exists(dir string, fs vfs.FS) (bool, error) {
	if fs == nil {
		fs = vfs.Default
	}
	if _, err := fs.Stat(dir); errors.Is(err, iofs.ErrNotExist) {
		return false, nil
	}
	desc, err := pebble.Peek(dir, fs)
	if err != nil {
		return false, err
	}
	return desc.Exists, nil
}

// close closes Pebble, unless a fault left its commit pipeline locked:
// Pebble's Close would then block forever (kv_fault.go).
func (k *kv) close() error {
	if k.fault.wedged() {
		return k.fault.refusal()
	}
	return k.fault.closeError(k.db.Close())
}

// get returns a copy of the value of key, appended to dst.
func get(r interface {
	Get([]byte) ([]byte, ioCloser, error)
}, key, dst []byte) ([]byte, bool, error) {
	v, closer, err := r.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return dst, false, nil
	}
	if err != nil {
		return dst, false, readError(key, err)
	}
	dst = append(dst, v...)
	return dst, true, closer.Close()
}

type ioCloser = interface{ Close() error }

// dbReader adapts *pebble.DB to the get helper.
type dbReader struct{ db *pebble.DB }

func (r dbReader) Get(key []byte) ([]byte, ioCloser, error) { return r.db.Get(key) }

// batchReader adapts an indexed *pebble.Batch (reads see its own writes).
type batchReader struct{ b *pebble.Batch }

func (r batchReader) Get(key []byte) ([]byte, ioCloser, error) { return r.b.Get(key) }

// get reads key from the committed database.
func (k *kv) get(key, dst []byte) ([]byte, bool, error) { return get(dbReader{k.db}, key, dst) }

// batch is a set of writes that commit together or not at all. Reads
// through it see its own writes.
type batch struct {
	b     *pebble.Batch
	async bool // applied with ApplyNoSyncWait: wait must SyncWait
	k     *kv  // whose fault state wait records a failed sync in
	stuck bool // a commit of it panicked: Pebble may still hold it, never recycle it
}

func (k *kv) newBatch() *batch { return &batch{b: k.db.NewIndexedBatch(), k: k} }

func (b *batch) get(key, dst []byte) ([]byte, bool, error) { return get(batchReader{b.b}, key, dst) }
func (b *batch) set(key, value []byte) error               { return b.b.Set(key, value, nil) }
func (b *batch) del(key []byte) error                      { return b.b.Delete(key, nil) }

// setRecord implements docSink: the batch stores the record whole.
func (b *batch) setRecord(key, value []byte, _ int) error { return b.set(key, value) }

func (b *batch) close() {
	if !b.stuck {
		_ = b.b.Close()
	}
}
func (b *batch) empty() bool { return b.b.Empty() }

// sealed returns a batch that holds b's writes and is not indexed for
// reads, and closes b. A mutation seals its batch once it reads no more:
// the writes that follow (a commit's postings, tens of thousands for a
// batch of documents) then cost an append each, where an indexed batch
// inserts each into a skiplist of its own. On error b is returned,
// still open.
func (b *batch) sealed() (*batch, error) {
	nb := b.k.db.NewBatchWithSize(b.b.Len())
	if err := nb.Apply(b.b, nil); err != nil {
		_ = nb.Close()
		return b, err
	}
	b.close()
	return &batch{b: nb, k: b.k}, nil
}

// apply applies b in commit order without waiting for the WAL sync; the
// caller must call b.wait before acknowledging. Applying under the writer
// lock and waiting outside it lets concurrent writers share one fsync.
// After a fault every apply is refused (kv_fault.go).
func (k *kv) apply(b *batch, sync bool) (err error) {
	if err := k.fault.refusal(); err != nil {
		return err
	}
	defer k.writing()()
	defer k.recoverCommit(b, &err)
	if !sync {
		return k.db.Apply(b.b, pebble.NoSync)
	}
	b.async = true
	return k.db.ApplyNoSyncWait(b.b, pebble.Sync)
}

// wait blocks until an applied batch is durable, then releases it.
func (b *batch) wait() error {
	var err error
	if b.async {
		err = b.b.SyncWait()
	}
	b.close()
	if err != nil {
		return b.k.fault.record("write-ahead log write or sync", err, false)
	}
	return err
}

// scan calls fn for every key in [start, end) with copies of key and value;
// fn may keep them. It stops at the first error fn returns, and returns it.
func (k *kv) scan(start, end []byte, fn func(key, value []byte) error) error {
	it, err := k.db.NewIter(&pebble.IterOptions{LowerBound: start, UpperBound: end})
	if err != nil {
		return err
	}
	return eachCopy(it, start, fn)
}

// visit is view.visit on the committed database.
func (k *kv) visit(start, end []byte, fn func(key, value []byte) (bool, error)) error {
	it, err := k.db.NewIter(&pebble.IterOptions{LowerBound: start, UpperBound: end})
	if err != nil {
		return err
	}
	return walk(it, start, fn)
}

// keys runs fn over the keys in [start, end) until fn returns false or an
// error. fn sees each key copied into one buffer, which the next key
// overwrites: a walk that keeps few of many keys allocates nothing per key.
func (k *kv) keys(start, end []byte, fn func(key []byte) (bool, error)) error {
	it, err := k.db.NewIter(&pebble.IterOptions{LowerBound: start, UpperBound: end})
	if err != nil {
		return err
	}
	var buf []byte
	return walk(it, start, func(key, _ []byte) (bool, error) {
		buf = append(buf[:0], key...)
		return fn(buf)
	})
}

// eachCopy runs fn over the iterator's keys with copies of key and value,
// and closes it. A read error names the key, or the scan's start.
func eachCopy(it *pebble.Iterator, start []byte, fn func(key, value []byte) error) error {
	return walk(it, start, func(key, value []byte) (bool, error) {
		return true, fn(append([]byte(nil), key...), append([]byte(nil), value...))
	})
}

// walk runs fn over the iterator's keys until fn returns false or an
// error, and closes it. key and value are Pebble's, valid during the call
// only. A read error names the key, or the walk's start.
func walk(it *pebble.Iterator, start []byte, fn func(key, value []byte) (bool, error)) error {
	for valid := it.First(); valid; valid = it.Next() {
		v, err := it.ValueAndErr()
		if err != nil {
			err = readError(it.Key(), err)
			_ = it.Close()
			return err
		}
		if more, err := fn(it.Key(), v); err != nil || !more {
			_ = it.Close()
			return err
		}
	}
	return readError(start, it.Close())
}

// readAll reads every key and value of the database in key order,
// through the block cache, and tells fn their sizes (no Pebble-owned
// byte reaches it); it stops when fn says so or fails.
func (k *kv) readAll(fn func(keyLen, valueLen int) (bool, error)) error {
	it, err := k.db.NewIter(nil)
	if err != nil {
		return err
	}
	return walk(it, nil, func(key, value []byte) (bool, error) { return fn(len(key), len(value)) })
}

// cacheBytes is the block cache's current size.
func (k *kv) cacheBytes() int64 { return k.db.Metrics().BlockCache.Size }

// scan calls fn for every key in [start, end) as the batch sees it (the
// committed database plus the batch's own writes), with copies of key and
// value.
func (b *batch) scan(start, end []byte, fn func(key, value []byte) error) error {
	it, err := b.b.NewIter(&pebble.IterOptions{LowerBound: start, UpperBound: end})
	if err != nil {
		return err
	}
	return eachCopy(it, start, fn)
}

// view is a consistent read-only view of the committed database (a Pebble
// snapshot): reads through it see the same instant, however many
// iterators they use. Close it when done.
type view struct{ snap *pebble.Snapshot }

func (k *kv) newView() *view { return &view{snap: k.db.NewSnapshot()} }

func (v *view) close() { _ = v.snap.Close() }

// get reads key as of the view.
func (v *view) get(key, dst []byte) ([]byte, bool, error) { return get(snapReader{v.snap}, key, dst) }

// snapReader adapts *pebble.Snapshot to the get helper.
type snapReader struct{ s *pebble.Snapshot }

func (r snapReader) Get(key []byte) ([]byte, ioCloser, error) { return r.s.Get(key) }

// scan is kv.scan as of the view.
func (v *view) scan(start, end []byte, fn func(key, value []byte) error) error {
	it, err := v.snap.NewIter(&pebble.IterOptions{LowerBound: start, UpperBound: end})
	if err != nil {
		return err
	}
	return eachCopy(it, start, fn)
}

// visit runs fn over the keys in [start, end) as of the view until fn
// returns false or an error. key and value are Pebble's, valid during the
// call only: fn copies what it keeps. A walk that keeps few of many large
// values (a sequential fetch passing bodies it does not want) copies none
// of the others.
func (v *view) visit(start, end []byte, fn func(key, value []byte) (bool, error)) error {
	it, err := v.snap.NewIter(&pebble.IterOptions{LowerBound: start, UpperBound: end})
	if err != nil {
		return err
	}
	return walk(it, start, fn)
}

// cursor reads keys of [start, end) in ascending order through one
// iterator, for callers whose keys come in ascending order: a forward
// seek from where the iterator stands costs about a step, where a Get
// starts again from the top of every level.
type cursor struct {
	it  *pebble.Iterator
	end []byte // the upper bound, kept when seek moves the lower one
}

// cursor opens a cursor over [start, end) as of the view; close it before
// the view.
func (v *view) cursor(start, end []byte) (*cursor, error) {
	it, err := v.snap.NewIter(&pebble.IterOptions{LowerBound: start, UpperBound: end})
	if err != nil {
		return nil, err
	}
	return &cursor{it: it, end: end}, nil
}

// seek appends the value of key to dst when key exists. Keys sought in
// ascending order are read sequentially; a key below the last one sought
// is read too, at the cost of a seek.
//
// Each seek first moves the iterator's lower bound to key. A SeekGE
// that follows a SeekGE to a smaller key otherwise takes Pebble's
// TrySeekUsingNext path: up to four Next steps from where the iterator
// stands before it seeks, and a step off the end of the current block
// loads and decompresses the next one, wherever the key is. Candidates
// a few records apart or more (a 16 KiB block holds about five
// manifests) paid for that block and then for their own: profiled on
// 1,000,000 manifests, eq_1pct and eq_10pct (10,000 and 100,000
// candidates), 42–48% of the data blocks the fetch loaded came from
// those steps (skipForward), none of them holding a candidate. With a
// lower bound that only rises, Pebble seeks within the block it holds
// when the key is there and through the index otherwise
// (TestCursorSeekReadsNoExtraBlock).
func (c *cursor) seek(key, dst []byte) ([]byte, bool, error) {
	v, found, err := c.lend(key)
	if !found {
		return dst, false, err
	}
	return append(dst, v...), true, nil
}

// lend is seek without the copy: the value returned is Pebble's, valid
// until the cursor's next seek or its close. A caller that keeps any of
// it copies it first.
func (c *cursor) lend(key []byte) ([]byte, bool, error) {
	if c.end != nil && bytes.Compare(key, c.end) >= 0 {
		return nil, false, nil // past the cursor's range; a lower bound there would pass the upper
	}
	c.it.SetBounds(key, c.end)
	if !c.it.SeekGE(key) || !bytes.Equal(c.it.Key(), key) {
		return nil, false, readError(key, c.it.Error())
	}
	v, err := c.it.ValueAndErr()
	if err != nil {
		return nil, false, readError(key, err)
	}
	return v, true, nil
}

func (c *cursor) close() error { return c.it.Close() }

// size is the batch's encoded size in bytes.
func (b *batch) size() int { return b.b.Len() }

// compact compacts the whole key space; deleted bytes leave the disk.
func (k *kv) compact() error { return k.compactRange(context.Background(), []byte{0}, []byte{0xff}) }

// compactRange flushes the memtable and compacts the keys in [lo, hi):
// merge operands there are merged into one value per key.
func (k *kv) compactRange(ctx context.Context, lo, hi []byte) error {
	if err := k.fault.refusal(); err != nil {
		return err // after a WAL fault, Flush's WAL switch would abort the process (kv_fault.go)
	}
	if err := k.db.Flush(); err != nil {
		return err
	}
	return k.db.Compact(ctx, lo, hi, true)
}

// diskBytes is the size of the database's files on disk.
func (k *kv) diskBytes() uint64 {
	m := k.db.Metrics()
	return m.DiskSpaceUsage()
}

// pebbleLogger keeps Pebble's informational chatter off stderr, which
// belongs to the CLI's output, and sends its errors to the store's logger.
// Fatalf must not return (Pebble would carry on after it, at some call
// sites reporting a failed commit as a success): it logs and panics, which
// on Pebble's background goroutines ends the process (kv_fault.go says
// when and why).
type pebbleLogger struct{ log *slog.Logger }

func (pebbleLogger) Infof(string, ...interface{}) {}
func (l pebbleLogger) Errorf(format string, args ...interface{}) {
	l.log.Error("pebble: " + fmt.Sprintf(format, args...))
}
func (l pebbleLogger) Fatalf(format string, args ...interface{}) {
	f := &pebbleFatal{msg: fmt.Sprintf(format, args...)}
	l.log.Error(f.Error())
	panic(f)
}
