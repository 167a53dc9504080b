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
// With an index (Options.Index), enumeration is the planner's (plan.go):
// each constraint node gives a candidate bitmap and an exact flag, and
// only the candidates are fetched, in document-number order. Without one,
// it is a full scan of the kinds the category maps to; that answer is the
// contract the planner keeps (plan_diff_test.go holds the two equal, page
// by page, rejections included: what the plan excluded is rejected, and
// the first of it read and judged for the list, rejected.go). Candidates
// are judged on their stored canonical bytes (match.go: eval.EvalRaw,
// project.AppendMembers, which copies the payload's bytes), never decoded
// to a tree; an exact plan's candidates are evaluated once, for their
// records. An exact plan ranks its candidates from their records and
// judges one page (lazy.go). The response and its decision records are
// written straight to RFC 8785 bytes (response.go) and signed as written.
// Stream plans through the index as Resolve does. Resolve is safe for
// concurrent use.
package query
