package server

import "errors"

// Sentinel errors, checked with errors.Is.
var (
	// ErrConfig means a Config is incomplete or inconsistent; the message
	// names the field.
	ErrConfig = errors.New("server: bad configuration")
	// ErrNoAuth means the server was asked to listen on an address other
	// than loopback without authentication configured.
	ErrNoAuth = errors.New("server: refusing to listen beyond loopback without authentication")
	// ErrAuthFile means an auth file is malformed; the message names the
	// entry.
	ErrAuthFile = errors.New("server: bad auth file")
)
