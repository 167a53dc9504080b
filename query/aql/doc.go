// Package aql is the Agent Query Language of RFC 0020 as aqlstore reads it:
// intents are decoded strictly, validated against the shape of
// oap-intent.schema.json plus the rules a schema cannot say, and compiled
// once into an Intent whose constraint tree (Node, Leaf) evaluates without
// re-parsing anything.
//
// Semantics are those of DESIGN.md: every operator but exists is
// existential over the values a path resolves to; `not` over an array means
// "none of"; a top-level constraints array means all_of.
package aql
