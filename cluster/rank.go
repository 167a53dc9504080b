package cluster

import (
	"cmp"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/query"
)

// rankKey places a candidate in the cluster's rank order: score
// descending (a candidate without one after every scored one), then
// candidate_id ascending, as package query ranks; then, where a store
// would compare document numbers, the stream time of the document and its
// shard.
type rankKey struct {
	Score canon.Number `json:"score,omitempty"`
	ID    string       `json:"id"`
	Order int64        `json:"order"`
	Shard int          `json:"shard"`
	// Num is the document's number in its shard's store, which places
	// the key there (replica.position); it orders nothing here.
	Num uint32 `json:"num,omitempty"`
}

func compareKeys(a, b *rankKey) int {
	if c := query.CompareScore(a.Score, b.Score); c != 0 {
		return c
	}
	if c := cmp.Compare(a.ID, b.ID); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Order, b.Order); c != 0 {
		return c
	}
	return cmp.Compare(a.Shard, b.Shard)
}
