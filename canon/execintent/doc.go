// Package execintent parses, validates and hashes ExecutionIntent.v1
// documents: the pre-execution authorization target of an autonomous
// tool call (../shared/spec/execution-intent-v1.md), which pins the exact
// request, its risk and spend bounds, the policy that authorizes it and
// its replay context.
//
// There are only a few things in execintent: Parse (bytes → *Intent,
// validated and hash-verified), ParseValue (the same for a decoded
// value), Hash and Seal (for building intents), and Error/ErrorList,
// whose Pointer names the offending node.
//
// Validation implements ExecutionIntent.v1.schema.json in Go — required
// members, additionalProperties: false, types, const, enums, lengths in
// code points, ^[0-9a-f]{64}$ patterns, integer minimums, date-time — and
// the tests hold it to the schema file with an independent validator.
// Beyond the schema, Parse rejects:
//
//   - intentHash ≠ the lowercase hex sha256 of the RFC 8785 bytes of the
//     intent without intentHash (ErrHashMismatch; the message shows both);
//   - expiresAt before createdAt (ErrExpiry; equal instants are allowed:
//     the brief rules out "before", and an intent expiring on creation is
//     harmless, as it is refused when used);
//   - U+0000 in intentId, tenantId, idempotencyKey or nonce, which are
//     key parts (ErrInvalid);
//   - integers beyond 2^53−1, which RFC 8785 would round, so the hash
//     would cover another number than the one written (ErrInvalid).
//
// The hash is over the object as given: unlike the settld server, no
// trimming or case folding happens first (SOURCE.md). Seal and Hash
// therefore never normalize strings either.
//
// # Keys
//
// Key is the intentId. ReplayKey (tenantId, idempotencyKey) and NonceKey
// (tenantId, nonce) are the replay keys the store keeps unique; both are
// scoped by tenant and joined with NUL.
//
// # JSON view
//
// The view for indexing and AQL is the document itself (Intent.View),
// with the schema's paths: /intentId, /tenantId, /agentId,
// /requestFingerprint/method, /requestFingerprint/path,
// /riskProfile/riskClass, /riskProfile/maxLossCents,
// /spendBounds/currency, /spendBounds/maxAmountCents,
// /policyBinding/policyId, /expiresAt, /createdAt, /metadata/...
// Money is in integer cents, so RFC 8785's number form loses nothing.
//
// Everything in execintent is safe for concurrent use.
package execintent
