package corpus

import "errors"

var (
	// ErrUnknownKind is returned for a kind name that Kinds does not list.
	ErrUnknownKind = errors.New("corpus: unknown kind")
	// ErrNegative is returned for a negative document count or index.
	ErrNegative = errors.New("corpus: negative count or index")
)
