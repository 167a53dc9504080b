package store

import (
	"errors"
	"fmt"
)

// ErrDiskFault means the disk failed a write or an fsync under a
// mutation, or Pebble stopped after one. The error is a *FaultError that
// says what failed and what to do.
var ErrDiskFault = errors.New("store: disk fault")

// FaultError is a failed write to the database files (kv_fault.go tells
// what Pebble does with each). After a failed write-ahead log write or
// fsync the store refuses every mutation (Refused), because Pebble cannot
// say which later writes would be durable: the way back is to close the
// store and open it again once the disk is healthy. Writes acknowledged
// before the fault are in the log and survive (unless NoSync); the
// mutation that met the fault may or may not be there after the reopen,
// and putting the same document again is idempotent. After a failed
// flush or compaction (Transient) mutations are refused only until Pebble
// writes an sstable again. A FaultError matches ErrDiskFault and the file
// system's error under errors.Is.
type FaultError struct {
	Op      string // what failed, e.g. "write-ahead log write or sync"
	Err     error  // the file system's error; errors.Is(err, syscall.ENOSPC) tells a full disk
	Refused bool   // the mutation was refused because of an earlier fault
	Wedged  bool   // Pebble stopped inside its commit pipeline: only a new process can open the store again
	// Transient: a flush or compaction failed; the refusal lifts by itself
	// once Pebble, which keeps retrying, writes an sstable again.
	Transient bool
	// NoSync: the store was opened with Options.NoSync, so writes it
	// acknowledged since the last sync may be lost.
	NoSync bool
}

func (e *FaultError) Error() string {
	if e.Transient {
		return fmt.Sprintf("disk fault: writes are refused while %s fails (%v): free disk space or repair the disk; "+
			"writes resume by themselves once Pebble, which keeps retrying, succeeds", e.Op, e.Err)
	}
	what := "close the store and open it again once the disk is healthy"
	if e.Wedged {
		what = "Pebble stopped its commit pipeline, so the store cannot be closed cleanly: " +
			"restart the process to open the store again"
	}
	kept := "acknowledged writes are kept"
	if e.NoSync {
		kept = "the store runs without syncs (NoSync): writes acknowledged since the last sync may be lost"
	}
	if e.Refused {
		return fmt.Sprintf("disk fault: writes are refused since %s failed (%v): %s; %s", e.Op, e.Err, what, kept)
	}
	return fmt.Sprintf("disk fault: %s failed: %v; this mutation may or may not be stored (repeating it is safe); "+
		"the store now refuses writes: %s", e.Op, e.Err, what)
}

// Unwrap lets errors.Is find both ErrDiskFault and the file system's error.
func (e *FaultError) Unwrap() []error { return []error{ErrDiskFault, e.Err} }
