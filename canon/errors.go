package canon

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Sentinel errors, checked with errors.Is. The concrete errors returned carry
// the position of the problem and wrap one of these.
var (
	// ErrSyntax means the input is not JSON.
	ErrSyntax = errors.New("canon: invalid JSON")
	// ErrDuplicateName means an object has two members with the same name.
	ErrDuplicateName = errors.New("canon: duplicate member name")
	// ErrInvalidUTF8 means the input is not valid UTF-8.
	ErrInvalidUTF8 = errors.New("canon: invalid UTF-8")
	// ErrLimit means the document crosses one of the Limits.
	ErrLimit = errors.New("canon: limit exceeded")
	// ErrNotCanonicalizable means the document is JSON but has no RFC 8785
	// form, e.g. a number outside the IEEE 754 double range.
	ErrNotCanonicalizable = errors.New("canon: cannot canonicalize")
	// ErrUnknownKind means a kind name is not one aqlstore knows.
	ErrUnknownKind = errors.New("canon: unknown kind")
	// ErrPointer means a JSON Pointer is malformed or over a limit; the
	// error is a *PointerError naming the segment.
	ErrPointer = errors.New("canon: invalid pointer")
	// ErrInvalidDocument means the document is well-formed JSON but breaks a
	// rule of its kind (a missing natural key, a wrongly typed signal).
	ErrInvalidDocument = errors.New("canon: invalid document")
	// ErrInvalidDID means a string given as a DID is not one; the error
	// is a *DIDError saying why.
	ErrInvalidDID = errors.New("canon: invalid DID")
)

// SyntaxError reports where a document is broken and how to fix it.
type SyntaxError struct {
	Offset  int64  // byte offset of the problem
	Line    int    // 1-based line
	Column  int    // 1-based column, in bytes
	Pointer string // JSON Pointer of the value being read, "" for the root
	Reason  string // what is wrong
	Fix     string // how to fix it, may be empty
	Err     error  // one of the sentinels above
}

func (e *SyntaxError) Error() string {
	msg := fmt.Sprintf("canon: line %d, column %d", e.Line, e.Column)
	if e.Pointer != "" {
		msg += fmt.Sprintf(" (at %s)", shortPointer(e.Pointer))
	}
	msg += ": " + e.Reason
	if e.Fix != "" {
		msg += "; " + e.Fix
	}
	return msg
}

func (e *SyntaxError) Unwrap() error { return e.Err }

// shortPointer cuts every segment of ptr longer than 64 bytes, on a rune
// boundary, and says how long it was: a member name of 65,000 bytes must
// not become a 65,000-byte message (the Pointer field keeps it whole).
func shortPointer(ptr string) string {
	const max = 64
	if len(ptr) <= max {
		return ptr
	}
	var b strings.Builder
	for i, seg := range strings.Split(ptr, "/") {
		if i > 0 {
			b.WriteByte('/')
		}
		if len(seg) <= max {
			b.WriteString(seg)
			continue
		}
		cut := max
		for cut > 0 && !utf8.RuneStart(seg[cut]) {
			cut--
		}
		fmt.Fprintf(&b, "%s...(%d bytes)", seg[:cut], len(seg))
	}
	return b.String()
}

// DocumentError reports a rule of a document kind that the document breaks.
type DocumentError struct {
	Kind    Kind   // the kind whose rule is broken
	Pointer string // JSON Pointer of the offending node
	Reason  string
	Fix     string // how to fix it, may be empty
	Err     error  // ErrInvalidDocument or ErrUnknownKind
}

func (e *DocumentError) Error() string {
	p := e.Pointer
	if p == "" {
		p = "/"
	}
	msg := fmt.Sprintf("canon: at %s: %s", p, e.Reason)
	if e.Kind != "" {
		msg = fmt.Sprintf("canon: %s at %s: %s", e.Kind, p, e.Reason)
	}
	if e.Fix != "" {
		msg += "; " + e.Fix
	}
	return msg
}

func (e *DocumentError) Unwrap() error { return e.Err }
