package store

import (
	"errors"
	"fmt"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/canon/aidp"
)

// Sentinel errors of the message kinds, checked with errors.Is.
var (
	// ErrReplay means a replay-protected key (an AIDP envelope_id, an
	// ExecutionIntent's (tenantId, idempotencyKey) or nonce) already names
	// different content; the error is a *ReplayError. It also matches
	// ErrConflict, and for AIDP aidp.ErrReplayDetected.
	ErrReplay = errors.New("store: replay detected")
	// ErrUnbound means an AIDP observation names an envelope the store
	// does not hold (visible to the observation's owner) and the caller
	// chose to reject such observations (RejectUnbound).
	ErrUnbound = errors.New("store: observation for an unknown envelope")
	// ErrThread means a PAIRL message breaks a rule over the stored thread:
	// V4 (strict_refs: @parent/@deps must resolve), V7 (a cycle, an error
	// in strict mode) or V8 (spend over the governing @budget).
	ErrThread = errors.New("store: PAIRL thread rule broken")
)

// ReplayError names the replay-protected key and both documents.
type ReplayError struct {
	Kind     canon.Kind
	Key      string // what the key is: "envelope_id", "(tenantId, idempotencyKey)", "(tenantId, nonce)"
	Pointer  string // JSON Pointer of the member holding it
	Value    string // the key's value, parts joined with " / "
	Existing string // content id of the stored document
	Incoming string // content id of the refused document
}

func (e *ReplayError) Error() string {
	code := ""
	if e.Kind == canon.KindAIDPEnvelope {
		code = aidp.CodeReplayDetected + ": "
	}
	return fmt.Sprintf("store: %s%s %s %q (at %s) is already used by %s; refusing different content %s "+
		"(a retry must resend the identical document; new content needs a new %s)",
		code, e.Kind, e.Key, e.Value, e.Pointer, e.Existing, e.Incoming, e.Key)
}

// Unwrap returns ErrReplay, ErrConflict and, for AIDP, aidp.ErrReplayDetected.
func (e *ReplayError) Unwrap() []error {
	errs := []error{ErrReplay, ErrConflict}
	if e.Kind == canon.KindAIDPEnvelope || e.Kind == canon.KindAIDPObservation {
		errs = append(errs, aidp.ErrReplayDetected)
	}
	return errs
}

// MessageError is a message refused by a rule that needs the store: an
// unbound observation, a thread rule. Pointer or Line locate the
// offending node; Cause is the package error (an *aidp.Error, a
// *pairl.Error) when there is one.
type MessageError struct {
	Kind    canon.Kind
	Pointer string // JSON Pointer (JSON kinds), "" when Line is set
	Line    int    // PAIRL line, 0 when Pointer is set
	Key     string // the natural or referenced key involved
	Reason  string
	Fix     string
	Err     error // ErrUnbound, ErrThread, …
	Cause   error // may be nil
}

func (e *MessageError) Error() string {
	at := e.Pointer
	if e.Line > 0 {
		at = fmt.Sprintf("line %d", e.Line)
	}
	msg := fmt.Sprintf("store: %s", e.Kind)
	if e.Key != "" {
		msg += fmt.Sprintf(" %q", e.Key)
	}
	if at != "" {
		msg += " at " + at
	}
	msg += ": " + e.Reason
	if e.Fix != "" {
		msg += "; " + e.Fix
	}
	return msg
}

// Unwrap returns the sentinel and the cause.
func (e *MessageError) Unwrap() []error {
	if e.Cause != nil {
		return []error{e.Err, e.Cause}
	}
	return []error{e.Err}
}
