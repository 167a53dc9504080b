package execintent

import (
	"errors"
	"fmt"

	"github.com/aqlstore/aqlstore/canon"
)

// Sentinel errors, checked with errors.Is. Every *Error wraps one.
var (
	// ErrSyntax: the input is not one strict JSON document (a duplicate
	// member name, invalid UTF-8, over the limits). The *Error also wraps
	// the canon error, so errors.Is(err, canon.ErrDuplicateName) works.
	ErrSyntax = errors.New("execintent: invalid JSON")
	// ErrSchema: the document breaks ExecutionIntent.v1.schema.json: a
	// missing or unknown member, a wrong type, enum, const, length,
	// pattern, minimum or date-time.
	ErrSchema = errors.New("execintent: schema violation")
	// ErrInvalid: the document passes the schema but breaks a rule the
	// store needs: a key part holding U+0000, an integer beyond 2^53−1
	// (RFC 8785 numbers are IEEE doubles, so its hash would cover another
	// value), a number with no RFC 8785 form.
	ErrInvalid = errors.New("execintent: invalid intent")
	// ErrHashMismatch: intentHash is not the hash of the intent.
	ErrHashMismatch = errors.New("execintent: intentHash mismatch")
	// ErrExpiry: expiresAt is before createdAt.
	ErrExpiry = errors.New("execintent: expiresAt before createdAt")
	// ErrUnsupportedValue: Hash or Seal was given a Go value with no JSON
	// form (a channel, NaN, a struct).
	ErrUnsupportedValue = errors.New("execintent: value has no JSON form")
)

// Error is one problem with an intent: the JSON Pointer of the offending
// node (for a missing member, where it should be; "" is the whole
// document), what is wrong, and the sentinel it falls under.
type Error struct {
	Pointer string
	Message string
	Err     error // one of the sentinels
	cause   error // the underlying error, when there is one
}

// Error formats e as "execintent: at /pointer: message".
func (e *Error) Error() string {
	p := e.Pointer
	if p == "" {
		p = "/"
	}
	return fmt.Sprintf("execintent: at %s: %s", p, e.Message)
}

// Unwrap returns the sentinel and, for syntax errors, the canon error.
func (e *Error) Unwrap() []error {
	if e.cause != nil {
		return []error{e.Err, e.cause}
	}
	return []error{e.Err}
}

// ErrorList is every problem found by the first validation stage that
// failed (syntax; schema and store rules; hash and time order).
type ErrorList []*Error

// Error formats one problem as *Error does, several one per line.
func (l ErrorList) Error() string {
	return canon.JoinProblems("execintent", l)
}

// Unwrap returns the errors of the list for errors.Is and errors.As.
func (l ErrorList) Unwrap() []error { return canon.ProblemErrors(l) }
