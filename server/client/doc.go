// Package client is the Go client of aqlstore's HTTP server (package
// server): one method per endpoint, and Stream for the server-sent events
// of subscriptions and streamed queries.
//
// The core types are Client (a base URL, an optional bearer token and an
// *http.Client), Error (any answer other than 2xx, with its signed problem
// document) and Stream (events read one at a time, with the last event id
// kept for resuming). Every document the server signs can be checked with
// Verify under the key ServerKey reads from /.well-known/did.json.
//
// A Client is safe for concurrent use; a Stream is used by one goroutine.
// Returned byte slices belong to the caller.
package client
