// Package bench is aqlstore's comparison harness: it loads one generated
// corpus into aqlstore and into the engines a user would pick instead
// (SQLite with and without expression indexes, PostgreSQL with GIN and
// btree expression indexes, bleve with a static mapping of the queried
// paths, DuckDB with a JSON column and extracted scalar columns), asks
// every engine the same questions,
// checks that every answer equals the expected count and aqlstore's own,
// and only then times them. The results are a Result, which Report turns
// into Markdown and Charts into PNG and SVG pictures.
//
// The pieces:
//
//   - Workload: one question, as an AQL constraint tree, as each SQL
//     dialect's best plain formulation and as the bleve query that
//     answers it exactly (or why none does: bleve then skips it), with its
//     expected result count.
//   - Backend: a database the corpus is loaded into once; it offers one or
//     more Engines (aqlstore offers the planner and the full scan, SQLite
//     its table before and after the expression indexes).
//   - Run: loads every backend, then runs the workloads one at a time on
//     every engine back to back, so that the figures of one workload are
//     measured within the same minute on this noisy machine.
package bench
