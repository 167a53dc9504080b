// Package faultfs injects disk faults into the file system a store's
// Pebble database uses (store.Options.FS), for tests: write errors, fsync
// errors, a full disk and corrupt reads, switched on and off while the
// store runs, and counted.
//
// Errors come through Pebble's own errorfs wrapper; corrupt reads through
// a file wrapper that flips one bit of what ReadAt returns, which errorfs
// cannot do. The errors are what the operating system returns
// (*os.PathError with EIO or ENOSPC), so that a test sees the messages a
// user would. An FS is safe for concurrent use.
package faultfs

import (
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"
)

// Kind is a kind of fault.
type Kind int

// The faults an FS injects.
const (
	None        Kind = iota
	WriteError       // Write, WriteAt and Create fail with EIO
	SyncError        // Sync, SyncData and SyncTo fail with EIO
	NoSpace          // Write, WriteAt, Create and Preallocate fail with ENOSPC
	ReadError        // Read and ReadAt fail with EIO
	Corrupt          // ReadAt succeeds with one bit of what it read flipped
	CreateError      // Create (and reuse of a recycled file) fails with EIO; writes to open files go on
)

var kindNames = [...]string{"none", "write error", "fsync error", "no space", "read error", "corrupt read", "create error"}

func (k Kind) String() string {
	if k < 0 || int(k) >= len(kindNames) {
		return "unknown"
	}
	return kindNames[k]
}

// FS is a vfs.FS that injects the fault it is set to into the files whose
// base names match its patterns.
type FS struct {
	vfs.FS
	mu       sync.Mutex
	kind     Kind
	patterns []string
	counts   [len(kindNames)]atomic.Int64
}

// New wraps base (vfs.Default for a real directory).
func New(base vfs.FS) *FS {
	f := &FS{}
	f.FS = errorfs.Wrap(corruptFS{FS: base, f: f}, injector{f})
	return f
}

// Set injects kind from now on into every operation of that kind on files
// whose base name matches one of patterns (filepath.Match: "*.log" for
// the write-ahead log, "*.sst" for tables, "MANIFEST-*"); no pattern
// means every file.
func (f *FS) Set(kind Kind, patterns ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.kind, f.patterns = kind, patterns
}

// Clear stops injecting: the disk is healthy again.
func (f *FS) Clear() { f.Set(None) }

// Count returns how many faults of kind have been injected so far.
func (f *FS) Count(kind Kind) int64 { return f.counts[kind].Load() }

// active reports whether kind applies to path now, and counts it.
func (f *FS) active(kind Kind, path string) bool {
	f.mu.Lock()
	on := f.kind == kind && f.matches(path)
	f.mu.Unlock()
	if on {
		f.counts[kind].Add(1)
	}
	return on
}

func (f *FS) matches(path string) bool {
	if len(f.patterns) == 0 {
		return true
	}
	base := filepath.Base(path)
	for _, p := range f.patterns {
		if ok, _ := filepath.Match(p, base); ok {
			return true
		}
	}
	return false
}

// injector decides, for errorfs, which operations fail.
type injector struct{ f *FS }

func (injector) String() string { return "faultfs" }

func (i injector) MaybeError(op errorfs.Op) error {
	switch op.Kind {
	case errorfs.OpFileWrite, errorfs.OpFileWriteAt, errorfs.OpCreate:
		name := "write"
		if op.Kind == errorfs.OpCreate {
			name = "open"
		}
		if i.f.active(WriteError, op.Path) {
			return &os.PathError{Op: name, Path: op.Path, Err: syscall.EIO}
		}
		if i.f.active(NoSpace, op.Path) {
			return &os.PathError{Op: name, Path: op.Path, Err: syscall.ENOSPC}
		}
		if op.Kind == errorfs.OpCreate && i.f.active(CreateError, op.Path) {
			return &os.PathError{Op: name, Path: op.Path, Err: syscall.EIO}
		}
	case errorfs.OpReuseForWrite: // a recycled WAL instead of a new one
		if i.f.active(CreateError, op.Path) {
			return &os.PathError{Op: "open", Path: op.Path, Err: syscall.EIO}
		}
	case errorfs.OpFilePreallocate:
		if i.f.active(NoSpace, op.Path) {
			return &os.PathError{Op: "fallocate", Path: op.Path, Err: syscall.ENOSPC}
		}
	case errorfs.OpFileSync, errorfs.OpFileSyncData, errorfs.OpFileSyncTo:
		if i.f.active(SyncError, op.Path) {
			return &os.PathError{Op: "fsync", Path: op.Path, Err: syscall.EIO}
		}
	case errorfs.OpFileRead, errorfs.OpFileReadAt:
		if i.f.active(ReadError, op.Path) {
			return &os.PathError{Op: "read", Path: op.Path, Err: syscall.EIO}
		}
	}
	return nil
}

// corruptFS hands out files whose reads it may corrupt.
type corruptFS struct {
	vfs.FS
	f *FS
}

func (c corruptFS) Open(name string, opts ...vfs.OpenOption) (vfs.File, error) {
	file, err := c.FS.Open(name, opts...)
	if err != nil {
		return nil, err
	}
	return &corruptFile{File: file, name: name, f: c.f}, nil
}

// Unwrap returns the wrapped FS (Pebble's vfs.Root follows it).
func (c corruptFS) Unwrap() vfs.FS { return c.FS }

type corruptFile struct {
	vfs.File
	name string
	f    *FS
}

// ReadAt flips one bit in the middle of what it read: a block's checksum
// must catch it.
func (c *corruptFile) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.File.ReadAt(p, off)
	if n > 0 && c.f.active(Corrupt, c.name) {
		p[n/2] ^= 0x10
	}
	return n, err
}
