package store

import (
	"fmt"
	"io"
	"log/slog"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// Options configure a Store. A nil *Options means the defaults; a zero field
// means its default (see EnsureDefaults).
type Options struct {
	// Limits bound every document Put accepts.
	Limits canon.Limits
	// Messages configure the message kinds (PAIRL mode and strict_refs,
	// unsigned AIDP observations) for documents Put parses itself.
	Messages MessageOptions
	// NoSync skips the fsync before a mutation returns. Only for tests and
	// throwaway stores: a crash may then lose acknowledged writes.
	NoSync bool
	// BlobCompression is how document bytes are compressed inside their
	// blob: "none" (default; Pebble's block compression then sees many
	// similar documents at once) or "zstd" (one zstd frame per document).
	// The measurements behind the default are in BenchmarkCompression.
	BlobCompression string
	// BlockCompression is Pebble's block compression: "zstd" (default;
	// Pebble's DBCompressionGood, zstd level 3 in the bottom level; a
	// bulk load's tables get level 1, loadCompression, and its index
	// tables MinLZ, loadIndexCompression),
	// "balanced" (zstd level 1 there), "snappy" (MinLZ on the current
	// format) or "none". Measured on 100,000 manifests with 16 KiB blocks
	// and the default cache (BenchmarkResolve, three paired runs): zstd
	// stores 1,090 bytes per document, balanced 1,107, snappy 1,440;
	// eq_1pct (1,000 records read) costs the same CPU under each, and
	// eq_10pct (10,000, most of them cache misses) about 630 CPU-ms with
	// zstd against 510 with snappy. zstd stays the default: snappy buys
	// a fifth of the miss-bound query for a third more disk, and a larger
	// cache buys half of it (256 MiB: 317 CPU-ms) at no disk cost.
	BlockCompression string
	// BlockSize is Pebble's target sstable block size in bytes (default
	// 16 KiB, at most 64 MiB). A point read of a document that is not in
	// the cache decompresses a whole block, yet measured as above, smaller blocks
	// cost more CPU per query, not less (more blocks and index entries
	// per candidate; eq_10pct 490-580 CPU-ms at 16 KiB, 580-815 at 4 KiB)
	// and more disk (4 KiB: 1,489 bytes per document with zstd, 8 KiB:
	// 1,279). BenchmarkColdRead measures the cold-cache side.
	BlockSize int
	// CacheSize is Pebble's block cache in bytes (default 64 MiB), beside
	// the memtables, which Pebble counts against its cache (kv.go). The
	// block layout barely moves the cost of a query whose candidates miss
	// the cache; the cache does: give a store whose records outgrow it
	// more (eq_10pct at 100,000 manifests: see the README). On 1,000,000
	// manifests (BenchmarkResolve, a warm repeated query), eq_1pct's
	// 10,000 candidates fit 256 MiB and cost 110-115 CPU-ms; eq_10pct's
	// 100,000 do not: 3.7 CPU-s with 256 MiB, 1.1 with 1.5 GiB, for
	// 0.8 GB more resident memory. The default stays small because an
	// embedder's process is not the store's alone; `aqlstore serve`
	// takes a quarter of the memory unless told otherwise.
	CacheSize int64
	// MemTableSize is Pebble's memtable in bytes (default 64 MiB; Pebble's
	// own 4 MiB default stalls bulk ingest), at least 64 KiB and under
	// 4 GiB.
	MemTableSize uint64
	// MaxBatchBytes bounds one PutBatch's encoded size (default 256 MiB).
	MaxBatchBytes int
	// Logger receives background errors (default: discard).
	Logger *slog.Logger
	// Indexer, when set, maintains secondary indexes in every mutation's
	// batch (package index provides one; index.Open wires it).
	Indexer Indexer
	// FS is the file system Pebble uses (default: the OS). Tests inject
	// faults through it.
	FS vfs.FS
	// ReadOnly opens an existing store without writing to its directory
	// (Pebble's ReadOnly): no store is created (Open returns ErrNoStore),
	// mutations fail, and a directory the process may not write works.
	ReadOnly bool
}

// EnsureDefaults fills zero fields with their defaults and returns o.
func (o *Options) EnsureDefaults() *Options {
	o.Limits.EnsureDefaults()
	if o.BlobCompression == "" {
		o.BlobCompression = "none"
	}
	if o.BlockCompression == "" {
		o.BlockCompression = "zstd"
	}
	if o.BlockSize == 0 {
		o.BlockSize = 16 << 10
	}
	if o.CacheSize == 0 {
		o.CacheSize = 64 << 20
	}
	if o.MemTableSize == 0 {
		o.MemTableSize = 64 << 20
	}
	if o.MaxBatchBytes == 0 {
		o.MaxBatchBytes = 256 << 20
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return o
}

// Validate reports the first option that is out of range.
func (o *Options) Validate() error {
	switch o.BlobCompression {
	case "zstd", "none":
	default:
		return fmt.Errorf("%w: BlobCompression %q: want zstd or none", ErrInvalid, o.BlobCompression)
	}
	switch o.BlockCompression {
	case "snappy", "balanced", "zstd", "none":
	default:
		return fmt.Errorf("%w: BlockCompression %q: want snappy, balanced, zstd or none", ErrInvalid, o.BlockCompression)
	}
	if o.CacheSize < 0 || o.MaxBatchBytes < 0 || o.BlockSize < 0 {
		return fmt.Errorf("%w: BlockSize, CacheSize and MaxBatchBytes must not be negative", ErrInvalid)
	}
	// Pebble panics on a memtable too small to hold its own skiplist and on
	// a block past its restart offsets' range, and refuses a memtable of
	// 4 GiB or more: refused here, with the range to choose from.
	if o.MemTableSize != 0 && (o.MemTableSize < minMemTableSize || o.MemTableSize >= maxMemTableSize) {
		return fmt.Errorf("%w: MemTableSize %d: want at least 64 KiB and under 4 GiB (default 64 MiB)", ErrInvalid, o.MemTableSize)
	}
	if o.BlockSize > maxBlockSize {
		return fmt.Errorf("%w: BlockSize %d: want at most 64 MiB (default 16 KiB)", ErrInvalid, o.BlockSize)
	}
	return nil
}

// The ranges Validate allows for the engine's sizes.
const (
	minMemTableSize = 64 << 10
	maxMemTableSize = 4 << 30
	maxBlockSize    = 64 << 20
)
