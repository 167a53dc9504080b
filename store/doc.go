// Package store is aqlstore's database: content-addressed documents in
// Pebble, with dense document numbers, natural keys, tenants and a
// hash-chained receipt for every mutation.
//
// There are only a few types in store: Store (an open database), Document
// (what Put takes), Ref (what names a stored document) and StoredDoc (what
// a reader gets back), plus Receipt and the reports of Stats and Verify.
// On the way in, a Document becomes a Parsed (checked for its kind, no
// store needed) and a Prepared (bound to this store: its owner checked,
// its postings extracted); an Indexer sees each as an IndexInput.
// Columns holds, in memory, what ranking and visibility need of every
// document (kind, owner, score, candidate id; columns.go), and Header is
// one document's share of it.
//
// Every mutation is one Pebble batch: a document's record (holding its
// body, unless the content is shared), keys and receipt commit together or
// not at all, and are synced to disk before Put or Delete returns (unless
// Options.NoSync). Identical content is stored once and reference counted. Each document has an owner (a tenant DID, or
// Public); a context carries the principal that reads (WithPrincipal), and a
// reader sees public documents, its own and those granted to it (grant.go),
// never another tenant's.
//
// Large inputs go through a Loader instead (loader.go): documents are
// checked as Put checks them, gathered in sorted runs spilled to a
// temporary directory inside the store (load.tmp), and ingested as
// sstables in one atomic step, with whole posting lists rather than merge
// operands. A Loader holds the writer lock until Commit or Abort; Close
// aborts one left open (ErrLoadAborted) rather than wait for it. PutBatch
// and Loader take documents prepared outside the writer
// lock (Prepare, safe for concurrent use): parsed, and their postings
// extracted when the Indexer is an IndexExtractor.
//
// The key layout is documented in keys.go; Pebble itself is touched only in
// kv.go and kv_ingest.go. Values returned by the Store are copies owned by
// the caller.
package store
