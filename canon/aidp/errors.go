package aidp

import (
	"errors"
	"fmt"

	"github.com/aqlstore/aqlstore/canon"
)

// The error_code values of draft §18.3, plus UNSUPPORTED_MEDIA_TYPE from
// the HTTP binding (§22.10). A Problem Details message may carry any code;
// these are the ones this package produces or maps to an HTTP status.
const (
	CodeInvalidIdentity        = "INVALID_IDENTITY"
	CodeUntrustedIssuer        = "UNTRUSTED_ISSUER"
	CodeRevoked                = "REVOKED"
	CodeInvalidCapability      = "INVALID_CAPABILITY"
	CodeInvalidDelegationChain = "INVALID_DELEGATION_CHAIN"
	CodeConstraintViolation    = "CONSTRAINT_VIOLATION"
	CodeReplayDetected         = "REPLAY_DETECTED"
	CodeMalformedMessage       = "MALFORMED_MESSAGE"
	CodeUnsupportedVersion     = "UNSUPPORTED_VERSION"
	CodeUnsupportedMediaType   = "UNSUPPORTED_MEDIA_TYPE"
)

// Sentinel errors, one per code, checked with errors.Is. Every *Error
// unwraps to the sentinel of its Code, so errors.Is(err, ErrRevoked) holds
// for an *Error or an ErrorList carrying REVOKED.
var (
	// ErrInvalidIdentity: actor_ref does not resolve or validate (§22.16.2 step 6).
	ErrInvalidIdentity = errors.New("aidp: invalid identity")
	// ErrUntrustedIssuer: an issuer is not among the trust anchors (§11.6.8).
	ErrUntrustedIssuer = errors.New("aidp: untrusted issuer")
	// ErrRevoked: an identity or capability has been revoked (§6.3).
	ErrRevoked = errors.New("aidp: revoked")
	// ErrInvalidCapability: authority_ref does not resolve or validate.
	ErrInvalidCapability = errors.New("aidp: invalid capability")
	// ErrInvalidDelegationChain: the delegation chain is broken (§22.16.2 step 8).
	ErrInvalidDelegationChain = errors.New("aidp: invalid delegation chain")
	// ErrConstraintViolation: the constraints cannot be satisfied (§22.16.2 step 10).
	ErrConstraintViolation = errors.New("aidp: constraint violation")
	// ErrReplayDetected: an envelope_id was used before (§11.6.3).
	ErrReplayDetected = errors.New("aidp: replay detected")
	// ErrMalformedMessage: the message is not valid AIDP-JS (§22.16.2 steps 2 and 5).
	ErrMalformedMessage = errors.New("aidp: malformed message")
	// ErrUnsupportedVersion: aidp_version or the canon profile is not one
	// this implementation speaks.
	ErrUnsupportedVersion = errors.New("aidp: unsupported version")
	// ErrUnsupportedMediaType: the HTTP Content-Type is not an AIDP-JS type (§22.3).
	ErrUnsupportedMediaType = errors.New("aidp: unsupported media type")

	// ErrNotBound means an observation does not belong to the intent
	// envelope it was paired with (§22.15.5 anti-substitution). It is not
	// a wire code: the draft leaves the agent's response to policy.
	ErrNotBound = errors.New("aidp: observation not bound to envelope")
)

var sentinels = map[string]error{
	CodeInvalidIdentity:        ErrInvalidIdentity,
	CodeUntrustedIssuer:        ErrUntrustedIssuer,
	CodeRevoked:                ErrRevoked,
	CodeInvalidCapability:      ErrInvalidCapability,
	CodeInvalidDelegationChain: ErrInvalidDelegationChain,
	CodeConstraintViolation:    ErrConstraintViolation,
	CodeReplayDetected:         ErrReplayDetected,
	CodeMalformedMessage:       ErrMalformedMessage,
	CodeUnsupportedVersion:     ErrUnsupportedVersion,
	CodeUnsupportedMediaType:   ErrUnsupportedMediaType,
}

// Sentinel returns the sentinel error of an error code, or nil for a code
// this package does not define.
func Sentinel(code string) error { return sentinels[code] }

// Error is one problem with a message: the §18.3 error code a Problem
// Details reply would carry, the JSON Pointer of the offending node (for a
// missing member, where it should be; "" is the whole message) and what is
// wrong and how to fix it.
type Error struct {
	Code    string
	Pointer string
	Message string
}

// Error formats e as "aidp: CODE at /pointer: message".
func (e *Error) Error() string {
	p := e.Pointer
	if p == "" {
		p = "/"
	}
	return fmt.Sprintf("aidp: %s at %s: %s", e.Code, p, e.Message)
}

// Unwrap returns the sentinel of e.Code, so that errors.Is works by code.
func (e *Error) Unwrap() error { return sentinels[e.Code] }

// ErrorList is every problem found at the first validation stage that
// failed, in a fixed order (header, then the payload members in the
// order the draft lists them), so the same message always gives the same
// list. Parse never returns an empty list: no problem is a nil error.
type ErrorList []*Error

// Error formats one problem as *Error does, several one per line.
func (l ErrorList) Error() string {
	if len(l) == 0 {
		return "aidp: no errors"
	}
	return canon.JoinProblems("aidp", l)
}

// Unwrap returns the errors of the list, so errors.Is and errors.As look
// at each of them.
func (l ErrorList) Unwrap() []error { return canon.ProblemErrors(l) }

// Code returns the code a Problem Details reply to the list carries: the
// first problem's. All problems of one stage share a code except where a
// stage checks two concerns (the semantic stage: chain and constraints).
func (l ErrorList) Code() string {
	if len(l) == 0 {
		return ""
	}
	return l[0].Code
}

// orNil turns an empty list into a nil error, avoiding the typed-nil trap.
func (l ErrorList) orNil() error {
	if len(l) == 0 {
		return nil
	}
	return l
}
