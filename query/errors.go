package query

import "errors"

// Sentinel errors.
var (
	// ErrRefused means the intent was refused before any candidate was
	// touched: its issuer's key resolved and the signature did not verify
	// (R1). The error names the reason.
	ErrRefused = errors.New("query: intent refused")
	// ErrBadCursor means a next_cursor was altered, or was issued for
	// another intent or by another resolver.
	ErrBadCursor = errors.New("query: invalid cursor")
	// ErrNoSigner means Options.Signer is nil: responses must be signed.
	ErrNoSigner = errors.New("query: no signer")
	// ErrInvalidOptions means an Options field is outside what a
	// response may say (a resolver_role the schema does not list).
	ErrInvalidOptions = errors.New("query: invalid options")
)
