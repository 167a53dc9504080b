package query

import (
	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/query/aql"
	"github.com/aqlstore/aqlstore/query/sign"
)

// Position is a place in the rank order of one store: score descending,
// then candidate id, then document number. A resolver that merges the
// rank orders of several stores (a cluster's shards) continues a store's
// page from where the merged page left it with CursorAfter, so the store
// ranks only what follows, not every candidate.
type Position struct {
	Score       canon.Number // "" for a candidate without a score
	CandidateID string
	Num         uint32 // 0 comes before every document with this score and id; MaxUint32 after every one
}

// Position returns c's place in its store's rank order.
func (c *Candidate) Position() Position {
	return Position{Score: c.Score, CandidateID: c.CandidateID, Num: c.num}
}

// CursorAfter returns the full_set cursor (Options.Cursor) of a page of
// in that ended at p, sealed with signer as Resolve seals its own; the
// next page's ranks start at 1.
func CursorAfter(signer *sign.Signer, in *aql.Intent, p Position) (string, error) {
	return encodeCursor(signer, in, cursorState{score: p.Score, id: p.CandidateID, num: p.Num})
}
