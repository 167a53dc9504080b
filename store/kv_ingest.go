package store

import (
	"context"
	"fmt"

	"github.com/cockroachdb/pebble/v2/objstorage/objstorageprovider"
	"github.com/cockroachdb/pebble/v2/sstable"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// tableWriter writes one sstable for ingestion: keys in strictly
// ascending order, plain values only (no merge operands, no deletions),
// in the table format, compression, block size and bloom filters the
// store writes its own tables with.
type tableWriter struct {
	w     *sstable.Writer
	path  string
	bytes int64 // keys and values written, before compression
}

// loadCompression is the block compression of a load's tables in a
// store that compresses with zstd (Pebble's GoodCompression, level 3 in
// the bottom level): zstd level 1. Compressing the load's blocks was a
// fifth of a load's merge and table writing; measured on 50,000
// generated manifests, level 1 takes 0.72-0.83 CPU-s to compress them
// against level 3's 1.01, for 55.4 MB on disk against 54.5 (+1.5%).
var loadCompression = sstable.BalancedCompression

// loadIndexCompression is the block compression of a load's index
// tables in such a store: MinLZ. Posting lists are roaring bitmaps,
// already dense, and zstd spent its CPU on them for little. Measured on
// 200,000 generated manifests (aqlstore put, CPU-s, bytes on disk per
// document): zstd level 1 48.5 CPU-s, 1,096 B; MinLZ 46.9, 1,153 B; no
// compression 45.5, 1,497 B.
var loadIndexCompression = sstable.FastestCompression

// newTable creates the sstable at path; index says whether its keys are
// the index family's.
func (k *kv) newTable(path string, index bool) (*tableWriter, error) {
	f, err := k.opts.FS.Create(path, vfs.WriteCategoryUnspecified)
	if err != nil {
		return nil, err
	}
	format := k.db.FormatMajorVersion().MaxTableFormat()
	wo := k.opts.MakeWriterOptions(len(k.opts.Levels)-1, format)
	if wo.Compression == sstable.GoodCompression {
		wo.Compression = loadCompression
		if index {
			wo.Compression = loadIndexCompression
		}
	}
	return &tableWriter{w: sstable.NewWriter(objstorageprovider.NewFileWritable(f), wo), path: path}, nil
}

func (t *tableWriter) set(key, value []byte) error {
	t.bytes += int64(len(key) + len(value))
	return t.w.Set(key, value)
}

// close finishes the table and syncs it.
func (t *tableWriter) close() error { return t.w.Close() }

// ingest adds the tables at paths to the database in one atomic step:
// after a crash either every key of every table is in the store or none
// is. Their keys shadow older values of the same keys. The tables must
// not overlap each other; they may overlap what the store holds.
//
// The memtable is flushed first: when one table overlaps it, Pebble
// queues every table of the ingest behind it and flushes them all into
// level 0, from where a compaction rewrites them right after the load.
// Flushed, the memtable's few keys overlap only the tables of their own
// families (Loader.merge keeps families apart), and the others go
// straight to the lowest level they fit in.
func (k *kv) ingest(paths []string) error {
	if err := k.fault.refusal(); err != nil {
		return err
	}
	if err := k.db.Flush(); err != nil {
		return fmt.Errorf("ingest: flush: %w", err)
	}
	defer k.writing()() // ingested keys are writes to readers of writeEpoch
	if err := k.db.Ingest(context.Background(), paths); err != nil {
		return fmt.Errorf("ingest: %w", err)
	}
	return nil
}

// fs is the file system the database lives on.
func (k *kv) fs() vfs.FS { return k.opts.FS }
