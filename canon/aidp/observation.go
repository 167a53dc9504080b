package aidp

import (
	"time"
)

// Status is an observation's status (§18.2).
type Status string

// The observation statuses.
const (
	StatusAccepted          Status = "accepted"
	StatusRejected          Status = "rejected"
	StatusExecuted          Status = "executed"
	StatusFailed            Status = "failed"
	StatusPartiallyExecuted Status = "partially_executed"
)

var statuses = []string{string(StatusAccepted), string(StatusRejected), string(StatusExecuted),
	string(StatusFailed), string(StatusPartiallyExecuted)}

// Decision is an attestation's authorization decision (§18.2.1).
type Decision string

// The attestation decisions.
const (
	DecisionAuthorized          Decision = "authorized"
	DecisionNotAuthorized       Decision = "not_authorized"
	DecisionConstraintViolation Decision = "constraint_violation"
	DecisionInvalidChain        Decision = "invalid_chain"
	DecisionRevoked             Decision = "revoked"
	DecisionReplay              Decision = "replay"
)

var decisions = []string{string(DecisionAuthorized), string(DecisionNotAuthorized),
	string(DecisionConstraintViolation), string(DecisionInvalidChain), string(DecisionRevoked),
	string(DecisionReplay)}

// Observation is the payload of an observation (OB, §18.2). Raw is the
// payload as decoded (read-only).
type Observation struct {
	EnvelopeID  string
	ExecutionID string
	Timestamp   time.Time // UTC
	Status      Status
	Result      map[string]any // may be empty
	SideEffects []any          // may be empty; elements are not constrained by the draft
	Attestation Attestation
	Advice      *Advice // execution_advice; nil when absent
	Raw         map[string]any
}

// Attestation is the execution boundary's statement about the execution
// (§18.2.1). Closed: unknown members are rejected.
type Attestation struct {
	BoundaryID    string
	Issuer        string
	AttestProfile string
	Decision      Decision
	PolicyDigest  string         // hash or reference of the policy version used
	Evidence      map[string]any // optional
}

// Advice is the optional, non-binding execution_advice of an OB or PD
// (§18.2.x). It is open: the draft says it "MAY include" these members.
type Advice struct {
	Retriable     *bool
	RetryAfterSec *int64
	ReasonCode    string
}

// Key returns the observation's natural key, (envelope_id, execution_id)
// as one string: ObservationKey(EnvelopeID, ExecutionID).
func (ob *Observation) Key() string { return ObservationKey(ob.EnvelopeID, ob.ExecutionID) }

func parseObservation(p obj) *Observation {
	ob := &Observation{Raw: p.m}
	ob.EnvelopeID = p.id("envelope_id")
	ob.ExecutionID = p.id("execution_id")
	ob.Timestamp, _ = p.instant("timestamp", true)
	ob.Status = Status(p.enum("status", true, statuses...))
	ob.Result = p.object("result", true).m
	ob.SideEffects = p.array("side_effects", true)
	ob.Attestation = parseAttestation(p.object("attestation", true))
	ob.Advice = parseAdvice(p.object("execution_advice", false))
	return ob
}

func parseAttestation(o obj) Attestation {
	o.closed("boundary_id", "issuer", "attest_profile", "decision", "policy_digest", "evidence")
	return Attestation{BoundaryID: o.str("boundary_id", true), Issuer: o.str("issuer", true),
		AttestProfile: o.str("attest_profile", true), Decision: Decision(o.enum("decision", true, decisions...)),
		PolicyDigest: o.str("policy_digest", true), Evidence: o.object("evidence", false).m}
}

func parseAdvice(o obj) *Advice {
	if o.m == nil {
		return nil
	}
	return &Advice{Retriable: o.boolean("retriable"), RetryAfterSec: o.count("retry_after_sec"),
		ReasonCode: o.str("reason_code", false)}
}

// semantics rejects a fabricated success (§11.6.7): an observation that
// claims the action ran must carry an authorizing attestation.
func (ob *Observation) semantics() ErrorList {
	c := &checker{code: CodeMalformedMessage}
	ran := ob.Status == StatusExecuted || ob.Status == StatusPartiallyExecuted
	if ran && ob.Attestation.Decision != DecisionAuthorized {
		c.fail("/payload/status", "status %q claims execution but attestation.decision is %q, not %q",
			ob.Status, ob.Attestation.Decision, DecisionAuthorized)
	}
	return c.errs
}
