package query

import (
	"cmp"
	"slices"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/query/aql"
)

// rankOrder sorts candidates by score descending (exact decimals; a
// candidate without a score ranks after every scored one), then
// candidate_id ascending, then document number, so the order is total and
// the same on every run.
func rankOrder(cs []*Candidate) {
	slices.SortStableFunc(cs, compareRank)
}

func compareRank(a, b *Candidate) int {
	if c := compareScore(a.Score, b.Score); c != 0 {
		return c
	}
	if c := cmp.Compare(a.CandidateID, b.CandidateID); c != 0 {
		return c
	}
	return cmp.Compare(a.num, b.num)
}

// compareScore orders higher scores first.
func compareScore(a, b canon.Number) int {
	switch {
	case a == b:
		return 0
	case a == "":
		return 1
	case b == "":
		return -1
	}
	da, okA := aql.ParseDecimal(a)
	db, okB := aql.ParseDecimal(b)
	if !okA || !okB {
		return cmp.Compare(string(b), string(a))
	}
	return db.Cmp(da)
}
