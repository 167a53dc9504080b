// Package query resolves AQL intents (RFC 0020) against a store: the
// Resolver of RFC 0020 §3.7 and Appendix A.3, embedded.
//
// Resolve runs the operational semantics in order: (R1) the intent's
// validity window and issuer signature, (R2) enumeration of the candidates
// of the category's kinds that the issuer may see, (R3) exact evaluation of
// every candidate with a Decision Record listing every leaf, then the
// quality floor, (R4) projection, where a missing include path rejects the
// candidate, (R5) ranking (score descending, candidate_id ascending),
// budget allocation with over_budget flags and the resolution policy, and
// (R6) an Ed25519 signature over the RFC 8785 form of the response.
//
// Until the index lands, enumeration is a full scan of the kinds the
// category maps to; the results are the contract the planner must keep.
// Resolve is safe for concurrent use.
package query
