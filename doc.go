// Package aqlstore is the embedding API of aqlstore, an indexed store for
// agent data queried with AQL (RFC 0020): open a directory, put
// documents, read them back by content id or natural key, resolve intents
// into signed responses, follow the change feed.
//
// There are only a few types: DB (an open store with its indexes),
// Options (how to open it), Document (what Put takes), Ref (what names a
// stored document), Doc (what a reader gets back), Response (a signed
// IntentResponse) and Change (one entry of the change feed). Document,
// Ref, Doc, Response and Plan are the store's and the query engine's own
// types (packages store and query), under shorter names.
//
// Every document has an owner: a tenant DID, or "public". A context
// carries the principal that reads and writes (WithPrincipal; without one,
// Options.Principal, else public). A reader sees public documents, its own
// and those granted to it, never another tenant's: one it may not see is
// ErrNotFound, exactly like one that does not exist. Query reads as the
// intent's issuer when the intent's signature verifies.
//
// Put and PutBatch return when the documents, their keys, index postings
// and receipt are synced to disk; a batch commits whole or not at all.
// Query signs its response with an Ed25519 key that is created on the
// first query (Options.KeyFile, by default the file the aqlstore CLI
// uses, so both sign alike).
//
// A DB is safe for concurrent use by many goroutines; concurrent writers
// share fsyncs. Every byte slice a DB returns (Doc.Body, Doc.View) is a
// copy that belongs to the caller and stays valid after Close.
//
// Export and Import move a tenant's documents between stores in the signed
// form the bundled server's /storage/export sends.
//
// One process opens a store at a time (the directory is locked). The
// packages below (store, index, query) give finer control, such as query
// options per call and grants; DB.Store returns the store.
package aqlstore
