package cluster

import (
	"errors"
	"fmt"
)

// Sentinel errors, checked with errors.Is.
var (
	// ErrShardUnavailable means no replica of a shard answered; a
	// *ShardError names the shard.
	ErrShardUnavailable = errors.New("cluster: shard unavailable")
	// ErrInvalidOptions means an Option is out of range; the message says
	// which and how to fix it.
	ErrInvalidOptions = errors.New("cluster: invalid options")
	// ErrBadCursor means a next_cursor this cluster did not issue for the
	// intent.
	ErrBadCursor = errors.New("cluster: bad cursor")
	// ErrNotApplied means a shard did not apply the sequence a query asked
	// to see within the wait bound.
	ErrNotApplied = errors.New("cluster: sequence not applied yet")
	// ErrNotServed means a node was asked for a shard it does not serve.
	ErrNotServed = errors.New("cluster: shard not served here")
	// ErrBadExport means a shard export that cannot bootstrap a replica;
	// the message names the line.
	ErrBadExport = errors.New("cluster: bad shard export")
	// ErrClosed means the node was closed.
	ErrClosed = errors.New("cluster: closed")
)

// ShardError says which shard failed a request and why. A server maps it
// to 503 Service Unavailable.
type ShardError struct {
	Shard int
	Err   error
}

func (e *ShardError) Error() string {
	if errors.Is(e.Err, ErrShardUnavailable) {
		return fmt.Sprintf("shard %d: %v (start a replica of shard %d, or ask for a partial answer)", e.Shard, e.Err, e.Shard)
	}
	return fmt.Sprintf("shard %d: %v (retry: its stream may have no quorum, or be electing a leader)", e.Shard, e.Err)
}

func (e *ShardError) Unwrap() error { return e.Err }

// remoteError is an error a shard replica returned over request-reply.
type remoteError struct {
	Status  int    `json:"status"`
	Message string `json:"message"`
}

func (e *remoteError) Error() string { return e.Message }
