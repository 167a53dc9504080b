// Package corpus generates deterministic, seeded synthetic corpora of
// aqlstore's JSON document kinds for benchmarks and for `aqlstore gen`.
//
// There are five kinds (see Kinds): "manifest" (OAP tool manifests that
// validate against oap-manifest.schema.json v1.0), "offer" (commercial
// offers keyed by offer_id), "knowledge" (knowledge nodes keyed by node_id),
// "message" (generic agent messages keyed by message_id) and "candidate"
// (the OAP candidate shape {id, score, cost, quality, record} whose record
// is the offer of the same seed and index).
//
// The core types are Config, Generator and Predicate. A Generator streams
// Config.N documents as compact JSON with a fixed member order, in bounded
// memory; Document produces any single document directly.
//
// # Determinism
//
// Document i of a kind under a seed is a pure function of (kind, seed, i):
// its bytes do not depend on how many documents were generated before it,
// on the Go version's map order, or on the machine. Every document seeds its
// own PCG generator from (seed, i), so corpora can be generated in parallel
// shards and still concatenate to the same bytes. The bytes are part of the
// package's contract for a given module version; changing them is a
// deliberate, noted change because recorded benchmark results refer to them.
//
// # Selectivity
//
// Some fields are not random but controlled: within every block of
// BlockSize consecutive indices, a seeded permutation gives each document a
// rank in [0, BlockSize), and a controlled field takes its special value
// exactly when the rank falls in a fixed range. So a predicate on that field
// matches exactly Selectivity×BlockSize documents of every full block, and
// the matches are spread through the block rather than clustered. Predicates
// lists these predicates per kind; ExpectedCount gives their exact count in
// the first n documents without generating them. For "candidate" the
// predicate paths are relative to the record (PredicateRoot), which is what
// AQL constraints see once the candidate is stored.
//
// Generators are not safe for concurrent use; Document, Kinds, Predicates
// and ExpectedCount are.
package corpus
