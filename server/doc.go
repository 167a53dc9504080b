// Package server is aqlstore's bundled HTTP server: an RFC 0020 Resolver
// (POST /oap/intent, with server-sent events for subscriptions and large
// full_set answers) and the storage operations of an RFC 0023 Storage
// Substrate (put, get, delete, query, subscribe, export, import) over one
// store.Store.
//
// There are only a few types here: Config (what to serve and how), Server
// (the handlers, their middleware and the http.Server around them), and
// Auth (bearer tokens mapped to tenant DIDs, read from a JSON file by
// LoadAuth). README.md in this directory lists every endpoint with a curl
// example.
//
// As an OAP tool it answers POST /oap/invoke, the request envelope of
// OAP-CORE §6, for the actions describe and resolve_intent
// (handle_invoke.go), and keeps each call's signed, hash-chained receipt
// in memory per tenant (receipts.go) for GET /oap/audit.
//
// It also speaks the pull mode of the AIDP HTTP binding (draft §22,
// aidp.go): POST /v1/aidp/intents and POST /v1/aidp/observations store
// an intent envelope or an observation (201 new, 200 identical again),
// GET /v1/aidp/observations/{envelope_id} returns the latest observation
// (?mode=all: every one) and GET /v1/aidp/inbox pages through the
// observations and problem details the caller may read. All four need an
// authenticated caller (§22.5). AIDP refusals carry the §18.3 error_code
// and JSON Pointer with the §22.10 status (400, 403, 409 for
// REPLAY_DETECTED and for an observation whose envelope is not stored,
// 415), as a problem document, or as an AIDP PD message when the client
// accepts application/aidp+json (aidp_problem.go).
//
// What every response shares: errors are RFC 9457 problem documents
// (application/problem+json) signed with the resolver's key like every
// other document the server writes; intent errors are the signed error
// document of query.ErrorDocument with the problem members added; every
// response carries Cache-Control: no-store. A caller is its bearer token's
// tenant DID, else anonymous (the public principal); requests are rate
// limited per caller (per client IP when anonymous). What runs at once is
// bounded too (concurrency.go): intents being resolved (MaxQueries, 503;
// MaxQueriesPerCaller, 429), each within QueryTimeout, regex time
// included, and stopped when its client leaves; and subscription streams
// per caller (MaxSubscriptions, 429); a request over a bound is refused
// at once, with Retry-After, never queued. Write bodies in memory are
// bounded over the server and per caller (writegate.go, MaxWriteBytes),
// where a write waits at most WriteWait for room, then 503.
//
// Streams (text/event-stream) extend their write deadline before every
// write (http.ResponseController), so the server's WriteTimeout bounds
// ordinary responses without cutting streams; a subscription's event ids
// are receipt seq numbers, so Last-Event-ID resumes it without loss.
// Shutdown lets in-flight requests finish and ends every stream with an
// `end` event that names the id to resume from.
//
// Every read acts as one principal and sees public documents and that
// principal's own, never another tenant's: a query (POST /oap/intent)
// and a subscription read as the authenticated caller, else as public,
// and as an intent's verified issuer only when the caller is that issuer
// (a signed intent replayed by anyone else reads public documents); get,
// lookup and export read as the caller. A caller authenticates with a
// bearer token or by signing the request with its did:key (see
// signedrequest.go). A Server is safe for concurrent use.
package server
