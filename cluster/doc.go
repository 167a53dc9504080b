// Package cluster runs aqlstore as shards and replicas on NATS JetStream.
//
// There are only a few types: Node (one aqlstore process in a cluster: it
// accepts writes and queries, and replicates the shards it serves),
// Options (how to start it), Receipt (what a write returns: the document,
// its shard and its stream sequence), Result (a merged, signed query
// answer) and Change (an entry of the change feed).
//
// Every shard is a JetStream stream, AQL_SHARD_<i>, with subjects
// aql.s<i>.>. A document is routed by a stable hash of (owner, kind,
// natural key), or of (owner, content id) for a kind without a natural
// key, to one shard and one subject of it; that subject holds the
// document's history (puts, grants, revokes and deletes). A write is checked and parsed as
// the local store parses it, then published with JetStream's
// expected-last-subject-sequence, so a natural key (and the replay keys
// of messages, which are natural keys) is claimed once cluster-wide
// without a lock of ours. A write is acknowledged once JetStream stored
// it. Replicas (route.go, replica.go) apply a shard's stream in order to
// a local store with a durable consumer, the entries waiting in one store
// commit, acknowledged once it is durable; every entry is idempotent at
// the head of the log, so the consumer's ack floor is the applied
// sequence.
//
// A new replica may start from another replica's export (ExportShard,
// Options.Bootstrap; bootstrap.go) instead of the shard's whole stream.
//
// Subscribe (subscribe.go) fans in the shards' streams as a change feed
// with a per-shard cursor; Handler serves it to subscription intents as
// server-sent events (feed.go). A query (gather.go) is scattered to one replica of every shard over
// request-reply, a queue group per shard (scatter.go), or answered
// in-process by a shard the node serves; each shard resolves it on its
// local store and returns its ranked candidates, its rejections and
// counts, as the bytes the store wrote in a compact frame (frame.go); the node merges them by score desc, candidate_id
// asc, allots the budget in that global order, pages with a cursor sealed
// by its key, and signs. A shard that no replica answers makes the query
// fail with a *ShardError (a 503), or, when the caller allows it, a
// partial answer that says which shards it lacks.
//
// Caveats: a store breaks ties in its rank order (equal score and
// candidate_id) and lists rejections by document number, that is in
// write order; the merge uses the time JetStream stored each document,
// which is the write order when writes do not overlap and the servers'
// clocks agree. A shard knows a
// candidate by its candidate_id, so two documents one reader sees under
// one candidate_id in one shard (a public one and the reader's own with
// the same natural key) share the earlier one's time. Messages whose
// checks need another document (an AIDP observation's envelope, a PAIRL
// reply's parent) are checked by the replicas when they apply them; one
// that fails is skipped by every replica alike and logged.
//
// A Node is safe for concurrent use.
package cluster
