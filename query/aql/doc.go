// Package aql is the Agent Query Language of RFC 0020 as aqlstore reads it:
// intents are decoded strictly, validated against the shape of
// oap-intent.schema.json plus the rules a schema cannot say, and compiled
// once into an Intent whose constraint tree (Node, Leaf) evaluates without
// re-parsing anything.
//
// Semantics are those of the README (AQL): every operator but exists is
// existential over the values a path resolves to; `not` over an array means
// "none of"; a top-level constraints array means all_of.
//
// There are only a few things here:
//
//   - Parse (and ParseValue for an already decoded document) turns bytes
//     into an *Intent or an *InvalidError listing every Problem found, each
//     with the JSON Pointer of the offending node, a short Code and a
//     message that says how to fix it. Nothing is evaluated for an invalid
//     intent (RFC 0020 A.3, R1).
//   - Options bound the work a hostile intent can cause: its size, the
//     nodes and depth of its tree, pointer and regex sizes, and the match
//     timeout set on every compiled regex.
//   - CompileRegex reads a matches pattern as JavaScript's new RegExp does
//     without flags, refusing syntax ECMA-262 rejects; MatchString and
//     MatchUnits search UTF-16 code units, as RegExp.test does.
//   - ParseInstant and ParseDecimal are the timestamp and exact-decimal
//     readings that evaluation, ranking and budgets share with parsing.
//   - Intent.CheckValidity checks the validity window against a clock the
//     caller chooses.
//
// What is accepted beyond the published schema, on purpose: a top-level
// constraints array, `not` over an array, and the payment_constraints
// block of RFC 0020 Appendix B.1 on commercial intents. What is refused
// beyond it: operands of the wrong type for their operator, patterns that
// are not ECMA-262 (.NET and PCRE syntax included), malformed pointers and intervals, a validity window that
// ends before it starts, ranked_top_k without an exact distribution, a
// subscription without max_event_rate_per_minute. Problem.Schema tells the
// two kinds of problem apart.
//
// A compiled Intent is immutable and safe for concurrent use; its
// Document is the decoded intent itself, not a copy.
package aql
