package aqlstore

import (
	"errors"

	"github.com/aqlstore/aqlstore/store"
)

// Sentinel errors, checked with errors.Is. The store's own are the same
// values, so an error from any layer matches.
var (
	// ErrNotFound means no document visible to the reader matches: one
	// that exists but belongs to another tenant reads as absent.
	ErrNotFound = store.ErrNotFound
	// ErrConflict means a natural key is already used by different content
	// (a *store.ConflictError names both documents).
	ErrConflict = store.ErrConflict
	// ErrNoStore means a ReadOnly open found no store in the directory.
	ErrNoStore = store.ErrNoStore
	// ErrClosed means the DB was closed.
	ErrClosed = store.ErrClosed
	// ErrBadExport means an export does not verify: its signature, its
	// form, or its receipt chain and documents. The message names the
	// member at fault.
	ErrBadExport = store.ErrBadExport
	// ErrInvalidOptions means an Option is out of range; the message says
	// which.
	ErrInvalidOptions = errors.New("aqlstore: invalid options")
	// ErrInvalidPrincipal means a context's principal is not a DID.
	ErrInvalidPrincipal = errors.New("aqlstore: invalid principal")
)
