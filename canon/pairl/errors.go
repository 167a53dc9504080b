package pairl

import (
	"errors"
	"fmt"
)

// Sentinel errors, checked with errors.Is. The errors returned by Parse and
// Err are *Error values wrapping one of these.
var (
	// ErrTooLarge means the input is longer than Limits.MaxBytes.
	ErrTooLarge = errors.New("pairl: message too large")
	// ErrLineTooLong means one line (or one logical record spanning lines
	// inside a quoted value) is longer than Limits.MaxLineBytes.
	ErrLineTooLong = errors.New("pairl: line too long")
	// ErrTooManyRecords means the body holds more than Limits.MaxRecords
	// records.
	ErrTooManyRecords = errors.New("pairl: too many records")
	// ErrEncoding means the input is not UTF-8 text (§1).
	ErrEncoding = errors.New("pairl: invalid UTF-8")
	// ErrSyntax means the message was read but breaks a syntax rule that is
	// an error in the requested mode; the message returned alongside it is a
	// best-effort reading, for diagnostics only.
	ErrSyntax = errors.New("pairl: malformed message")
	// ErrInvalid means validation found at least one error (see Err).
	ErrInvalid = errors.New("pairl: invalid message")
	// ErrLimits means a Limits value is out of range.
	ErrLimits = errors.New("pairl: invalid limits")
)

// Error is a Problem as a Go error. It names the first error-severity
// problem; Count says how many there were in all, so a caller printing only
// the error still learns that the problem list holds more.
type Error struct {
	Problem
	Count int   // error-severity problems in the list this error came from
	Err   error // one of the sentinels above
}

// Error formats the problem as "pairl: line N: [code] description; fix: …".
func (e *Error) Error() string {
	s := "pairl: "
	if e.Line > 0 {
		s += fmt.Sprintf("line %d: ", e.Line)
	}
	s += "[" + e.Code + "] " + e.Description
	if e.Fix != "" {
		s += "; fix: " + e.Fix
	}
	if e.Count > 1 {
		s += fmt.Sprintf(" (and %d more)", e.Count-1)
	}
	return s
}

// Unwrap returns the sentinel, for errors.Is.
func (e *Error) Unwrap() error { return e.Err }

// fatal builds the error Parse returns when it cannot read the input at all.
func fatal(sentinel error, code string, line int, desc, fix string) *Error {
	return &Error{Problem: Problem{Code: code, Line: line, Description: desc,
		Fix: fix, Severity: SeverityError}, Count: 1, Err: sentinel}
}

// Err returns nil when ps holds no error-severity problem, and otherwise an
// *Error wrapping ErrInvalid that names the first one. It lets a caller
// treat a validation result as a single Go error.
func Err(ps []Problem) error { return errOf(ps, ErrInvalid) }

func errOf(ps []Problem, sentinel error) error {
	var first *Problem
	n := 0
	for i := range ps {
		if ps[i].Severity != SeverityError {
			continue
		}
		if first == nil {
			first = &ps[i]
		}
		n++
	}
	if first == nil {
		return nil
	}
	return &Error{Problem: *first, Count: n, Err: sentinel}
}
