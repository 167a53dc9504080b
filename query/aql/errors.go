package aql

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Sentinel errors, checked with errors.Is. The concrete errors carry the
// detail: *InvalidError lists every problem of an intent, *ValidityError
// names the window and the instant.
var (
	// ErrInvalid means an intent is not JSON, or breaks the shape of
	// oap-intent.schema.json or a rule of RFC 0020 / the README. Nothing is
	// evaluated for such an intent (RFC 0020 A.3, R1).
	ErrInvalid = errors.New("aql: invalid intent")
	// ErrOutsideValidity means an intent was evaluated at an instant
	// outside its validity window.
	ErrOutsideValidity = errors.New("aql: outside the intent's validity window")
)

// Problem codes: short, stable, machine-readable names for what is wrong,
// so that callers (a CLI, the server's error envelope) can branch on them
// without parsing messages.
const (
	CodeSyntax          = "syntax"           // not JSON (canon.ErrSyntax, canon.ErrInvalidUTF8)
	CodeDuplicateName   = "duplicate_name"   // an object has two members with one name
	CodeLimit           = "limit"            // a size, depth or count limit of Options or canon.Limits
	CodeMissingField    = "missing_field"    // a required member is absent
	CodeExtraField      = "extra_field"      // a member the schema does not allow there
	CodeBadType         = "bad_type"         // a value of the wrong JSON type
	CodeBadPattern      = "bad_pattern"      // a string that does not match the schema's pattern
	CodeBadValue        = "bad_value"        // right type, wrong value: enum, range, sum, empty array
	CodeUnknownOperator = "unknown_operator" // an operator outside the closed set of RFC 0020 §3.2
	CodeBadPointer      = "bad_pointer"      // a path or projection pointer that does not parse
	CodeBadRegex        = "bad_regex"        // a matches value that is not an ECMA-262 regex
	CodeBadInterval     = "bad_interval"     // a within/outside value or validity window that is not an interval
	CodeOutsideValidity = "outside_validity" // evaluated before validity.from or after validity.to (ValidityError)
)

// Problem is one thing wrong with an intent.
type Problem struct {
	// Pointer is the JSON Pointer of the offending node in the intent, ""
	// for the root. For a missing member it is the pointer the member
	// would have, so the fix is "add a member there".
	Pointer string
	// Code is one of the Code* constants.
	Code string
	// Message says what is wrong and how to fix it.
	Message string
	// Schema is true when oap-intent.schema.json alone rejects the intent
	// for this reason too; false for the rules only RFC 0020's text,
	// the README or Options state (operand types per operator, regex
	// syntax, intervals, limits, the payment_constraints extension...).
	Schema bool
}

// String renders the problem as "at <pointer>: <message>", the root as "/"
// (the way OAP writes the whole document).
func (p Problem) String() string {
	ptr := p.Pointer
	if ptr == "" {
		ptr = "/"
	}
	return "at " + ptr + ": " + p.Message
}

// InvalidError lists every problem found in an intent, in the order the
// validator met them, so that one round trip shows a user all there is to
// fix. It matches ErrInvalid.
type InvalidError struct {
	Problems []Problem
	cause    error // canon's error when the intent did not decode
}

// Error puts each problem on its own line, after a header saying how many
// there are.
func (e *InvalidError) Error() string {
	if len(e.Problems) == 1 {
		return ErrInvalid.Error() + ": " + e.Problems[0].String()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d problems", ErrInvalid.Error(), len(e.Problems))
	for _, p := range e.Problems {
		b.WriteString("\n")
		b.WriteString(p.String())
	}
	return b.String()
}

// Unwrap makes every InvalidError match ErrInvalid, and an undecodable
// intent's error also match canon's sentinel (canon.ErrDuplicateName...).
func (e *InvalidError) Unwrap() []error {
	if e.cause == nil {
		return []error{ErrInvalid}
	}
	return []error{ErrInvalid, e.cause}
}

// ValidityError says that an intent was evaluated outside its window,
// naming both, so the user can tell a stale intent from a wrong clock.
type ValidityError struct {
	Validity Validity
	At       time.Time
}

// Error names the window, the instant, and the way out.
func (e *ValidityError) Error() string {
	side := "after"
	if e.early() {
		side = "before"
	}
	return fmt.Sprintf("aql: intent is valid from %s to %s; evaluated at %s is %s it (use --at to evaluate at another instant)",
		formatInstant(e.Validity.From), formatInstant(e.Validity.To), formatInstant(e.At), side)
}

// Problem is the refusal as a problem at the end of the window that was
// missed: /validity/from when evaluated before it, else /validity/to.
func (e *ValidityError) Problem() Problem {
	if e.early() {
		return Problem{Pointer: "/validity/from", Code: CodeOutsideValidity,
			Message: fmt.Sprintf("the intent is valid from %s, after the evaluation instant %s; send it again then, or issue it with an earlier validity.from",
				formatInstant(e.Validity.From), formatInstant(e.At))}
	}
	return Problem{Pointer: "/validity/to", Code: CodeOutsideValidity,
		Message: fmt.Sprintf("the intent expired at %s, before the evaluation instant %s; issue it again with a later validity.to",
			formatInstant(e.Validity.To), formatInstant(e.At))}
}

func (e *ValidityError) early() bool { return e.At.Before(e.Validity.From) }

// Unwrap makes every ValidityError match ErrOutsideValidity.
func (e *ValidityError) Unwrap() error { return ErrOutsideValidity }

func formatInstant(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
