// Package eval is the exact evaluator of compiled AQL constraint trees
// (query/aql.Node) over decoded documents (the canon value model). The
// planner's candidate bitmaps may be lossy; every candidate is checked here,
// so this package alone decides what RFC 0020 Appendix A.1 means.
//
// There is one type, Evaluator, with two entry points that always agree:
//
//   - Match short-circuits and records nothing; it is the counting and
//     filtering path.
//   - Eval evaluates every leaf, in tree order, with no short-circuit, and
//     appends one aql.Evaluation per leaf: the constraint_evaluations of a
//     Decision Record.
//
// MatchRaw and EvalRaw are the same two entry points over a document's
// canonical bytes (a stored body) instead of its decoded tree, with the
// same answers and records as Match and Eval over the decoded bytes. Paths
// are resolved over the bytes (canon.RawWalker); scalar values are read in
// place and go through the same per-value tests, containers are decoded
// only when an operator needs one (eq, in, contains on an object, ...).
// MatchRaw allocates nothing for scalar values; EvalRaw's records hold
// decoded copies, so they outlive the bytes.
//
// An Evaluator keeps scratch state (decimals, the state of the leaf being
// scanned, the text of failure reasons) so that the hot path does not
// allocate per leaf per candidate: Match and Eval (into a slice with room)
// allocate nothing on paths without wildcards. Paths with `*` or `**`
// allocate inside canon.Pointer.Resolve's walker, not here. An Evaluator
// is reusable but NOT safe for concurrent use: use one per goroutine. The
// compiled tree is only read, so goroutines may share it.
//
// # Semantics
//
// A leaf's path resolves to a set V (canon.Pointer.Resolve, document order).
// exists holds iff (V non-empty) equals the leaf's boolean. Every other
// operator is existential: it holds iff some v in V satisfies op(v, value),
// so an empty V fails. The scan over V stops at the first witness.
//
//   - eq, ne: structural JSON equality. Numbers compare by numeric value
//     (1 == 1.0 == 1e0 == 10E-1), exactly, with apd; there is no coercion
//     across types (the string "1" is not the number 1). Objects are equal
//     when they have the same member names with equal values, arrays when
//     they are elementwise equal.
//   - lt, lte, gt, gte: when the leaf has a decimal operand (Leaf.Decimal)
//     and v is a number or a decimal string (^-?\d+(\.\d+)?$), they compare
//     as exact decimals; when the leaf has an instant operand (Leaf.IsTime)
//     and v is a timestamp, as instants. Any other pair is incomparable.
//   - in, not_in: v equals (as eq) some / no element of Leaf.Set.
//   - contains: a string v contains the string value; an array v and a
//     non-array value: some element equals value; an array v and an array
//     value: every element of value equals some element of v. Any other
//     pair is incomparable.
//   - matches: v must be a string; Leaf.Regex (aql.CompileRegex,
//     MatchTimeout set by the compiler) searches it unanchored, as
//     RegExp.test without flags does: over UTF-16 code units
//     (aql.MatchString), so "." matches half of an emoji.
//   - before, after: strict instant comparison; within, outside: v is
//     inside / outside Leaf.Interval, bounds included. v must be a
//     timestamp, else incomparable.
//   - all_of is AND, any_of is OR (an empty all_of holds, an empty any_of
//     does not), not is negation of its one child. A nil tree holds for
//     every document. Malformed nodes (an unknown kind, a Not without
//     exactly one child, a leaf without a Leaf) do not hold.
//
// Timestamps are read by aql.ParseInstant, the reading the compiler gives
// timestamp operands: RFC 3339 date-times (§5.6) with optional fractional
// seconds (nanoseconds; further digits truncated) and "Z" or ±hh:mm, "T"
// and "Z" in either case, calendar days checked, a leap second allowed at
// 23:59:60 UTC. They compare as UTC instants, so 2024-05-01T12:00:00+02:00
// equals 2024-05-01T10:00:00Z.
//
// Numbers and decimal strings are read as aql.ParseDecimal reads them,
// without allocating when they have at most 18 significant digits. A
// number whose exponent apd cannot hold (beyond ±100000) is incomparable
// in lt..gte and equal only to the same literal text in eq.
//
// # Reasons
//
// A failing Evaluation carries one of a small fixed vocabulary of reasons:
//
//   - "no value at path": the path resolved to nothing (any operator,
//     including exists:true).
//   - "path has a value": exists:false and the path resolved to a value.
//   - "regex timeout": no value matched and at least one match hit the
//     regex's MatchTimeout (the answer for that value is unknown, so the
//     leaf fails; it never hangs). MatchTimeout is also the leaf's
//     budget per document: once its matches have taken that long in all,
//     the values left are not matched and count as timed out.
//   - "regex limit": as "regex timeout", for regexp2's backtracking stack
//     limit.
//   - "incomparable": every resolved value was of a type or form the
//     operator cannot compare with the operand.
//   - "no value satisfies <op> <value>": some value was comparable and none
//     satisfied the operator; <value> is the compact JSON of the leaf's
//     value, cut after 64 bytes with "...".
//
// The first rule that applies, in this order, gives the reason.
//
// A leaf that passed carries a reason too when it is under a not that
// failed: "held under not, which requires it to fail" (the leaf holding
// is what failed the not). A not that holds takes that reason back from
// the leaves of a not nested in it.
//
// A timed-out match is a failed leaf, not an error, so a `not` above it
// holds: the record's reason says the answer was cut short.
//
// # Records
//
// An Evaluation's CandidateValue is the RFC 8785 form of the witness when
// the leaf passed, else of the first resolved value (HasCandidateValue is
// false when V is empty): bytes of its own, copied from a canonical
// document as they are, which a response writes without decoding them.
// Value is the leaf's value as the intent wrote it.
package eval
