// Package aidp parses and validates the wire messages of the Agent
// Interaction & Delegation Protocol (draft-vandoulas-aidp-02) in its JSON
// family, AIDP-JS: intent envelopes (IE), observations (OB) and problem
// details (PD).
//
// There are only a few types in aidp: Message (a parsed, validated message
// and its canonical bytes), the three payloads Envelope, Observation and
// Problem, and Error/ErrorList, which carry the §18.3 error code a Problem
// Details reply would send and the JSON Pointer of the offending node.
// Parse runs the parsing, version, schema and state-free semantic steps of
// the §22.16.2 pipeline; identity, capability, revocation, replay and
// proof verification need outside state and are the caller's.
//
// # Natural keys
//
// An IE is keyed by its envelope_id (EnvelopeKey), an OB by the pair
// (envelope_id, execution_id) joined with NUL (ObservationKey), so all the
// observations of one envelope share the prefix EnvelopePrefix(id) — the
// pull-mode lookup of §22.7. A PD has no natural key. AuditDigest builds
// the §11.6.9 audit record of an execution and its sha256.
//
// # JSON view
//
// An AIDP-JS message is JSON, so its view for indexing and AQL is the
// message itself (Message.View), with numbers in canonical form and
// timestamps as the strings sent (AQL compares them as instants). Paths:
//
//	/aidp_version  /msg_type  /canon            header (§17.5)
//	/proof/alg  /proof/kid  /proof/sig          proof, when present
//	/payload/envelope_id                        IE, OB, PD (optional in PD)
//	/payload/timestamp                          IE, OB, PD
//
//	IE: /payload/actor_ref/{agent_id,issuer,identity_ref}
//	    /payload/authority_ref/{cap_id,issuer,cap_ref,rev_ref}
//	    /payload/intent_body/action
//	    /payload/intent_body/target/{resource,domain}
//	    /payload/intent_body/parameters/...
//	    /payload/constraints/{not_before,not_after,max_cost,max_uses,risk_tier,idempotency_key}
//	    /payload/delegation_chain/*/{cap_id,issuer,cap_ref,parent_cap_id,rev_ref,link_proof}
//	    /payload/observability_hooks/{delivery_mode,return_to/type,return_to/ref,required_fields/*,timeout_sec}
//
//	OB: /payload/execution_id  /payload/status  /payload/result/...
//	    /payload/side_effects/*
//	    /payload/attestation/{boundary_id,issuer,attest_profile,decision,policy_digest,evidence}
//	    /payload/execution_advice/{retriable,retry_after_sec,reason_code}
//
//	PD: /payload/error_code  /payload/error_message  /payload/details/...
//	    /payload/execution_advice/...
//
// For example, failed executions are {"path": "/payload/status",
// "operator": "eq", "value": "failed"}, and every message about one
// envelope is {"path": "/payload/envelope_id", "operator": "eq", ...}.
//
// # Caveats
//
// The draft is OCR'd and leaves some choices open; this package decides
// them as follows (testdata/README.md lists the fixes to its examples):
//
//   - Unknown members are rejected in actor_ref, authority_ref, the
//     delegation_chain links, attestation and proof, and in the unsigned
//     header; elsewhere (intent_body, constraints, observability_hooks,
//     execution_advice, details) they are allowed, as §13 extensions.
//   - envelope_id is any non-empty string (the draft's "string/UUID" is
//     read as a recommendation); ids that are key parts must not hold NUL.
//   - A PD's error_code is open (the draft's list is "recommended" and its
//     examples use ACCEPTED_ASYNC) but must be UPPER_SNAKE_CASE.
//   - An unsupported canon profile is UNSUPPORTED_VERSION, like an
//     unsupported aidp_version: both say "we do not speak this variant".
//   - Delegation chains are checked without relying on array order: one
//     unbroken path of parent_cap_id links, no cycles, no forks, and
//     authority_ref.cap_id on it.
//   - An OB requires proof unless Options.AllowUnsignedObservations.
//
// Everything in aidp is safe for concurrent use. Returned messages and
// their maps are shared and must be treated as read-only.
package aidp
