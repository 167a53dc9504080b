package store

import "errors"

// Sentinels of export and import. They belong in errors.go with the
// others; they live here only because this file was added beside it.
var (
	// ErrBusy means writers kept moving the receipt chain while Export
	// read it; retrying later succeeds.
	ErrBusy = errors.New("store: busy")
	// ErrBadExport means an export does not verify: a receipt is out of
	// order, not canonical or not linked to its predecessor, a document
	// does not hash to its id, or the documents are not what the receipts
	// say is live. The message names the receipt or document.
	ErrBadExport = errors.New("store: export does not verify")
)
