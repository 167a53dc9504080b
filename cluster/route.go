package cluster

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"

	"github.com/aqlstore/aqlstore/canon"
)

// A document's route is a hash of what makes it unique in a store: its
// owner, kind and natural key, or its owner and content id when the kind
// has none. Its shard is the hash modulo the number of shards; its
// subject in the shard's stream holds every put and delete of it, which
// is what makes expected-last-subject-sequence a per-key lock. sha256
// rather than a faster hash because the route must never change between
// releases, and the standard library's is the one sure to stay.
type route struct {
	shard   int
	subject string
}

func routeOf(shards int, owner string, kind canon.Kind, naturalKey string, id canon.ContentID) route {
	h := sha256.New()
	if naturalKey != "" {
		fmt.Fprintf(h, "k\x00%s\x00%s\x00%s", owner, kind, naturalKey)
	} else {
		fmt.Fprintf(h, "c\x00%s\x00%s", owner, id)
	}
	sum := h.Sum(nil)
	shard := int(binary.BigEndian.Uint64(sum[:8]) % uint64(shards))
	return route{shard: shard, subject: fmt.Sprintf("%s.%s", shardPrefix(shard), hex.EncodeToString(sum[:16]))}
}

// streamName is the JetStream stream of shard i.
func streamName(i int) string { return fmt.Sprintf("AQL_SHARD_%d", i) }

// shardPrefix is the subject prefix of shard i's documents.
func shardPrefix(i int) string { return fmt.Sprintf("aql.s%d", i) }

// requestSubject is where shard i's replicas answer requests, in the queue
// group queueGroup(i).
func requestSubject(i int) string { return fmt.Sprintf("aql.req.s%d", i) }

func queueGroup(i int) string { return fmt.Sprintf("shard-%d", i) }
