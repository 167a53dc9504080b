package aidp

import (
	"errors"
	"fmt"
	"slices"

	"github.com/aqlstore/aqlstore/canon"
)

// AuditDigest builds the audit record of §11.6.9 for an execution: the
// envelope_id, the execution_id, the actor_ref and authority_ref the
// envelope carried, and a digest of its intent_body, "sha256:" + the
// lowercase hex sha256 of the RFC 8785 bytes of intent_body:
//
//	{"actor_ref":{…},"authority_ref":{…},"envelope_id":"…",
//	 "execution_id":"…","intent_body_digest":"sha256:…"}
//
// The record is returned in canon's value model (strings and maps only),
// with its digest: the sha256 of its RFC 8785 bytes. ie and ob must come
// from Parse; an ob of another envelope is ErrNotBound.
func AuditDigest(ie *Envelope, ob *Observation) (map[string]any, canon.ContentID, error) {
	if ie == nil || ob == nil {
		return nil, canon.ContentID{}, errors.New("aidp: audit digest: need an envelope and an observation")
	}
	if ob.EnvelopeID != ie.EnvelopeID {
		return nil, canon.ContentID{}, fmt.Errorf("audit digest: observation is for envelope %q, not %q: %w",
			ob.EnvelopeID, ie.EnvelopeID, ErrNotBound)
	}
	body, err := IntentDigest(ie)
	if err != nil {
		return nil, canon.ContentID{}, err
	}
	a, r := ie.ActorRef, ie.AuthorityRef
	rec := map[string]any{
		"envelope_id":  ie.EnvelopeID,
		"execution_id": ob.ExecutionID,
		"actor_ref":    map[string]any{"agent_id": a.AgentID, "issuer": a.Issuer, "identity_ref": a.IdentityRef},
		"authority_ref": map[string]any{"cap_id": r.CapID, "issuer": r.Issuer, "cap_ref": r.CapRef,
			"rev_ref": r.RevRef},
		"intent_body_digest": "sha256:" + body.String(),
	}
	// Only strings: AppendValue's output is already the RFC 8785 form.
	return rec, canon.Sum(canon.AppendValue(nil, rec)), nil
}

// IntentDigest returns the sha256 of the RFC 8785 bytes of the envelope's
// intent_body: the digest §11.6.9 puts in audit records.
func IntentDigest(ie *Envelope) (canon.ContentID, error) {
	c, err := canon.Canonicalize(nil, canon.AppendValue(nil, ie.IntentBody.Raw), nil)
	if err != nil {
		return canon.ContentID{}, fmt.Errorf("aidp: intent_body digest: %w", err)
	}
	return canon.Sum(c), nil
}

// Bind checks an observation against the envelope it answers, as an agent
// runtime must before accepting it (§22.15.5): the envelope_id must match
// (else ErrNotBound), and every member the envelope's
// observability_hooks.required_fields names must be in the observation's
// payload (else MALFORMED_MESSAGE, which §22.15.6 answers with 400).
func Bind(ie *Envelope, ob *Observation) error {
	if ob.EnvelopeID != ie.EnvelopeID {
		return fmt.Errorf("aidp: observation for envelope %q does not answer %q: %w",
			ob.EnvelopeID, ie.EnvelopeID, ErrNotBound)
	}
	c := &checker{code: CodeMalformedMessage}
	p := obj{c: c, ptr: "/payload", m: ob.Raw}
	for i, f := range ie.ObservabilityHooks.RequiredFields {
		if _, ok := ob.Raw[f]; !ok && !slices.Contains(ie.ObservabilityHooks.RequiredFields[:i], f) {
			c.fail(p.at(f), "observability_hooks.required_fields names %q, which the observation lacks", f)
		}
	}
	return c.errs.orNil()
}
