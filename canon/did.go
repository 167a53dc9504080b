package canon

import (
	"fmt"
	"strings"
)

// CheckDID reports whether s is a DID (W3C DID Core §3.1): "did:", a method
// name of lowercase letters and digits, ":", and a method-specific id. It
// checks the shape only, as the AQL intent schema's pattern does; it
// resolves nothing. The error says what a DID looks like.
func CheckDID(s string) error {
	method, id, ok := strings.Cut(strings.TrimPrefix(s, "did:"), ":")
	switch {
	case !strings.HasPrefix(s, "did:"):
		return didError(s, `it does not start with "did:"`)
	case !ok || method == "":
		return didError(s, "it has no method (did:METHOD:ID)")
	case strings.TrimLeft(method, "abcdefghijklmnopqrstuvwxyz0123456789") != "":
		return didError(s, fmt.Sprintf("its method %q is not lowercase letters and digits", method))
	case id == "":
		return didError(s, "its method-specific id is empty")
	case strings.ContainsAny(id, "\n\r\u2028\u2029"):
		return didError(s, "it contains a line break")
	}
	return nil
}

func didError(s, reason string) error {
	return &DIDError{DID: s, Reason: reason}
}

// DIDError is a string that is not a DID, with why.
type DIDError struct {
	DID    string
	Reason string
}

func (e *DIDError) Error() string {
	return fmt.Sprintf("%q is not a DID: %s; a DID looks like did:web:agent.example or did:key:z6Mk… (did:METHOD:ID)",
		e.DID, e.Reason)
}

// Unwrap makes errors.Is(err, ErrInvalidDID) hold.
func (e *DIDError) Unwrap() error { return ErrInvalidDID }
