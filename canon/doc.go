// Package canon turns bytes into trusted values: it is the only way a
// document enters aqlstore.
//
// There are only a few things in canon:
//
//   - Decode: strict JSON decoding. Duplicate member names (compared after
//     escape decoding), invalid UTF-8, trailing data and documents beyond the
//     configured Limits are rejected with a *SyntaxError naming the line,
//     column and JSON Pointer of the problem. Numbers are kept exact, as
//     their literal text (Number).
//   - AppendCanonical: the one RFC 8785 (JCS) writer, for values (documents
//     built or decoded in Go, responses, signatures, digests), with
//     AppendNumber its one number formatter; AppendValue is its form for
//     values that have an RFC 8785 form by construction. RoundedNumbers
//     lists the numbers whose value that form changes.
//   - Canonical: RFC 8785 (JCS) canonical bytes, and ContentID, the sha256 of
//     those bytes, which is a document's identity everywhere in aqlstore.
//     Canonicalize, the put path, validates and writes them in one pass
//     over the input (onepass.go), reordering only objects whose members
//     are out of order; errors are explained by the token decoder.
//   - Pointer: the extended JSON Pointer (RFC 6901 plus `*` and `**`),
//     parsed once and resolved many times against decoded documents, or
//     against canonical bytes without decoding them (ResolveRaw, RawWalker;
//     Members shares one skim of a document's top level between several
//     pointers). raw.go navigates canonical bytes the same way.
//   - Kind and ParseDocument: the document kinds aqlstore knows, how a kind
//     is detected, and each kind's natural key.
//
// A decoded document is an `any` holding nil, bool, string, Number, []any
// or map[string]any. Object members have no order in that form; code that
// needs a deterministic order uses SortedKeys, which is the RFC 8785 order.
//
// Everything in canon is safe for concurrent use, except the reusable
// scratch types (RawWalker, Members), one per goroutine; the values it
// returns are owned by the caller.
package canon
