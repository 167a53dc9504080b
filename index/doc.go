// Package index keeps aqlstore's roaring-bitmap path indexes: for every
// normalized path (array indices folded to *), which documents have a
// value there, which have each scalar value, which fall in a numeric or
// instant range, and which contain each trigram of their short strings.
// The AQL planner (package query) turns a constraint tree into unions and
// intersections of these bitmaps; every candidate is then checked exactly.
// Beside the bitmaps, a rank order (rank.go) lists every document as
// responses rank them, so a page can be read without sorting every
// candidate; its score part is AppendDecimalKey's exact decimal order.
// The first walk after open copies the rank keys into an in-memory
// B-tree, which each commit then updates (rankTree): 88 bytes of heap
// per document for the benchmark's manifests (43-byte keys), against a
// Pebble iterator step per key walked.
//
// There are only a few types here: Index (a store.Indexer, plus the
// lookups the planner uses), Path (a normalized path) and the key layout
// in keys.go. Postings are written in the same Pebble batch as their
// document, as merge operands (see store/bitmap.go), or by a store.Loader
// as whole posting lists in ingested sstables, and persisted: Open loads
// the path dictionary, never the documents. Index is a
// store.IndexExtractor: a document's postings are extracted (Extract) on
// the caller's goroutine, outside the writer lock, and get their path ids
// under it (AddExtracted).
//
// An Index is safe for concurrent use: lookups run while a mutation
// indexes, and see only committed paths. The bitmaps lookups return are
// read-only: one may be the index's cached posting list, shared by every
// query that reads it; Clone it to modify it.
package index
