package cluster

import (
	"context"
	"fmt"
	"testing"

	"github.com/aqlstore/aqlstore/index"
	"github.com/aqlstore/aqlstore/query"
	"github.com/aqlstore/aqlstore/query/aql"
	"github.com/aqlstore/aqlstore/store"
)

// The cost of the cluster against one store, on one machine: puts
// through JetStream (acknowledged when stored, applied by one replica per
// shard) and a selective query scattered to 1, 2 and 4 shards, beside
// the same query on a local store. Nodes are in-process, one NATS server:
// the figures are the protocol's cost, not a scaling measurement across
// machines.
//
//	go test -run '^$' -bench . -benchtime 2000x ./cluster/

const benchDocs = 2000

// selectiveIntent matches about 1% of the bench documents.
const selectiveIntent = `{"intent_id":"urn:oap:intent:bench","issuer_did":"did:web:b.example","category":"commercial",
 "constraints":[{"path":"/price","operator":"eq","value":"7"}],"projection":{"include":["/offer_id"]},
 "validity":{"from":"2026-01-01T00:00:00Z","to":"2027-01-01T00:00:00Z"},"resolution_policy":"ranked_set",
 "signature":{"alg":"EdDSA","value":"x"}}`

func benchCluster(b *testing.B, shards int) *Node {
	c := newTestCluster(b, shards)
	for i := range shards {
		c.start(fmt.Sprintf("n%d", i), i)
	}
	return c.start("router")
}

func BenchmarkPut(b *testing.B) {
	for _, shards := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("shards=%d", shards), func(b *testing.B) {
			n := benchCluster(b, shards)
			ctx := context.Background()
			b.ResetTimer()
			for i := range b.N {
				if _, err := n.Put(ctx, store.Document{Body: offer(fmt.Sprintf("b%d", i), fmt.Sprint(i%100))}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("local", func(b *testing.B) {
		s, _, err := index.Open(b.TempDir(), nil)
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		ctx := context.Background()
		b.ResetTimer()
		for i := range b.N {
			if _, err := s.Put(ctx, store.Document{Body: offer(fmt.Sprintf("b%d", i), fmt.Sprint(i%100))}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkSelectiveQuery(b *testing.B) {
	ctx := context.Background()
	for _, shards := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("shards=%d", shards), func(b *testing.B) {
			n := benchCluster(b, shards)
			after := map[int]uint64{}
			for i := range benchDocs {
				rc, err := n.Put(ctx, store.Document{Body: offer(fmt.Sprintf("b%d", i), fmt.Sprint(i%100))})
				if err != nil {
					b.Fatal(err)
				}
				after[rc.Shard] = max(after[rc.Shard], rc.Seq)
			}
			// The first query sees every put; the timed ones then do too.
			if _, err := n.Query(ctx, []byte(selectiveIntent), &QueryOptions{After: after}); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for range b.N {
				if _, err := n.Query(ctx, []byte(selectiveIntent), &QueryOptions{MaxRejected: -1}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("local", func(b *testing.B) {
		s, ix, err := index.Open(b.TempDir(), nil)
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		for i := range benchDocs {
			if _, err := s.Put(ctx, store.Document{Body: offer(fmt.Sprintf("b%d", i), fmt.Sprint(i%100))}); err != nil {
				b.Fatal(err)
			}
		}
		in, err := aql.Parse([]byte(selectiveIntent), nil)
		if err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for range b.N {
			if _, err := query.Resolve(ctx, s, in, &query.Options{Signer: testKey, MaxRejected: -1, Index: ix}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
