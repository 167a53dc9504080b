package query

import (
	"bytes"
	"cmp"
	"slices"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/index"
	"github.com/aqlstore/aqlstore/query/aql"
)

// rankOrder sorts candidates by score descending (exact decimals; a
// candidate without a score ranks after every scored one), then
// candidate_id ascending, then document number, so the order is total and
// the same on every run.
//
// Each candidate's score is parsed once, into its rank key (the index's
// rank order, index.AppendRankKey, whose byte order is compareRank's),
// and the keys are compared as bytes: a sort compares each candidate
// log n times, and parsing two decimals per comparison was most of its
// cost. A score without a key (not a number) sorts by compareRank.
func rankOrder(cs []*Candidate) {
	keyed := make([]rankKeyed, len(cs))
	var arena []byte
	for i, c := range cs {
		start := len(arena)
		var err error
		if arena, err = index.AppendRankKey(arena, c.Score, c.CandidateID, c.num); err != nil {
			slices.SortStableFunc(cs, compareRank)
			return
		}
		keyed[i] = rankKeyed{key: arena[start:len(arena):len(arena)], c: c}
		if i == 0 {
			// Keys of one answer are about as long as each other: room for
			// the rest at the first one's length, not a dozen regrowths.
			arena = slices.Grow(arena, (len(arena)+8)*(len(cs)-1))
		}
	}
	slices.SortFunc(keyed, func(a, b rankKeyed) int { return bytes.Compare(a.key, b.key) })
	for i := range keyed {
		cs[i], keyed[i].c.rankKey = keyed[i].c, keyed[i].key
	}
}

// afterKey returns how many of cs, in rank order, rank at or before the
// cursor position (score, id, num): by binary search over the rank keys
// rankOrder left, or by compareRank, one by one, when it left none.
func afterKey(cs []*Candidate, score canon.Number, id string, num uint32) int {
	key, err := index.AppendRankKey(nil, score, id, num)
	if err == nil && len(cs) > 0 && cs[0].rankKey != nil {
		i, _ := slices.BinarySearchFunc(cs, key, func(c *Candidate, k []byte) int {
			if c2 := bytes.Compare(c.rankKey, k); c2 != 0 {
				return c2
			}
			return -1 // equal keys rank at or before: skip them
		})
		return i
	}
	at := &Candidate{Score: score, CandidateID: id, num: num}
	i := 0
	for i < len(cs) && compareRank(cs[i], at) <= 0 {
		i++
	}
	return i
}

// rankKeyed is a candidate with its rank key. The keys of one sort share
// an arena: a slice may be moved by a later append, so each key is cut
// out of the arena as it stood when it was written.
type rankKeyed struct {
	key []byte
	c   *Candidate
}

func compareRank(a, b *Candidate) int {
	if c := CompareScore(a.Score, b.Score); c != 0 {
		return c
	}
	if c := cmp.Compare(a.CandidateID, b.CandidateID); c != 0 {
		return c
	}
	return cmp.Compare(a.num, b.num)
}

// CompareScore orders scores as the rank order does: higher first,
// compared as exact decimals, a candidate without a score last. A merge
// of ranked lists from several stores (package cluster) uses it to agree
// with one store's order.
func CompareScore(a, b canon.Number) int {
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
