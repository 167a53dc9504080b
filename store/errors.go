package store

import (
	"errors"
	"fmt"
)

// Sentinel errors, checked with errors.Is.
var (
	// ErrNotFound means no document visible to the reader matches.
	ErrNotFound = errors.New("store: not found")
	// ErrConflict means a natural key or content id is already used by a
	// different document; the error is a *ConflictError naming both.
	ErrConflict = errors.New("store: conflict")
	// ErrClosed means the store was closed.
	ErrClosed = errors.New("store: closed")
	// ErrCorrupt means stored bytes do not match what was written; the
	// message names the key and `aqlstore verify` reports all damage.
	ErrCorrupt = errors.New("store: corrupt")
	// ErrInvalid means an argument is malformed (an owner with a NUL byte, a
	// batch too large); the message says which.
	ErrInvalid = errors.New("store: invalid argument")
	// ErrBusy means writers kept moving the receipt chain while Export
	// read it; retrying later succeeds.
	ErrBusy = errors.New("store: busy")
	// ErrBadExport means an export does not verify: a receipt is out of
	// order, not canonical or not linked to its predecessor, a document
	// does not hash to its id, or the documents are not what the receipts
	// say is live. The message names the receipt or document.
	ErrBadExport = errors.New("store: export does not verify")
	// ErrLoaderMessage means a message kind (AIDP, PAIRL,
	// ExecutionIntent) was given to a Loader; PutBatch stores them, with
	// their replay and thread rules.
	ErrLoaderMessage = errors.New("store: a bulk load takes no message kinds; store them with PutBatch")
	// ErrLoadAborted means Close found a Loader open and aborted it:
	// nothing of the load is stored.
	ErrLoadAborted = errors.New("store: an open bulk load was aborted")
	// ErrNoStore means a store opened ReadOnly does not exist: nothing was
	// created.
	ErrNoStore = errors.New("store: no store")
	// ErrLocked means another process, or another Open in this one, has
	// the store open; the error is a *LockedError naming the directory
	// and, where the system says, the holder's pid.
	ErrLocked = errors.New("store: locked by another process")
)

// ConflictError names the natural key and both documents that claim it.
type ConflictError struct {
	Kind       string
	NaturalKey string
	Existing   string // content id of the stored document
	Incoming   string // content id of the refused document
	Reason     string // set when the conflict is not about a natural key
}

func (e *ConflictError) Error() string {
	if e.Reason != "" {
		return fmt.Sprintf("store: conflict: %s (stored %s, incoming %s)", e.Reason, e.Existing, e.Incoming)
	}
	return fmt.Sprintf("store: conflict: %s %q is already %s; refusing different content %s "+
		"(delete the stored document first to replace it)", e.Kind, e.NaturalKey, e.Existing, e.Incoming)
}

func (e *ConflictError) Unwrap() error { return ErrConflict }
