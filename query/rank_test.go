package query

import (
	"slices"
	"testing"

	"github.com/aqlstore/aqlstore/canon"
	"pgregory.net/rapid"
)

// TestRankOrderEqualsCompareRank: ranking by keys parsed once gives the
// order compareRank gives, and a cursor's place in it is where
// compareRank puts it, over scores that tie in value but not in text
// (1, 1.0, 1e0, -0, 0), ids that prefix each other or hold NUL, and
// candidates without a score.
func TestRankOrderEqualsCompareRank(t *testing.T) {
	scores := []canon.Number{"", "0", "-0", "0.0", "1", "1.0", "1e0", "0.5", "0.50", "-2.5", "1e21", "1e-7", "123456789.123456789", "0.1", "0.10000000000000001"}
	ids := []string{"a", "ab", "a\x00", "a\x00b", "b", "ä", "🏃", ""}
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 40).Draw(t, "n")
		cs := make([]*Candidate, n)
		for i := range cs {
			cs[i] = &Candidate{Score: rapid.SampledFrom(scores).Draw(t, "score"),
				CandidateID: rapid.SampledFrom(ids).Draw(t, "id"), num: uint32(rapid.IntRange(0, 5).Draw(t, "num"))}
		}
		want := slices.Clone(cs)
		slices.SortStableFunc(want, compareRank)
		got := slices.Clone(cs)
		rankOrder(got)
		for i := range got {
			if compareRank(got[i], want[i]) != 0 {
				t.Fatalf("position %d: %+v, want %+v", i, *got[i], *want[i])
			}
		}
		// A cursor's position: found by the keys' binary search where
		// compareRank, one by one, finds it.
		cur := &Candidate{Score: rapid.SampledFrom(scores).Draw(t, "cursor score"),
			CandidateID: rapid.SampledFrom(ids).Draw(t, "cursor id"), num: uint32(rapid.IntRange(0, 5).Draw(t, "cursor num"))}
		linear := 0
		for linear < len(want) && compareRank(want[linear], cur) <= 0 {
			linear++
		}
		if at := afterKey(got, cur.Score, cur.CandidateID, cur.num); at != linear {
			t.Fatalf("after the cursor %+v: %d by keys, %d by compareRank", *cur, at, linear)
		}
	})
}

// BenchmarkRankOrder ranks 10,000 scored candidates by comparing parsed
// decimals (compareRank, the old way) and by keys parsed once (rankOrder).
func BenchmarkRankOrder(b *testing.B) {
	cs := make([]*Candidate, 10000)
	for i := range cs {
		cs[i] = &Candidate{Score: canon.Number("0." + itoa(i*7919%10000)), CandidateID: "c-" + itoa(i), num: uint32(i)}
	}
	for _, m := range []struct {
		name string
		sort func([]*Candidate)
	}{
		{"compareRank", func(cs []*Candidate) { slices.SortStableFunc(cs, compareRank) }},
		{"keys", rankOrder},
	} {
		b.Run(m.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				m.sort(slices.Clone(cs))
			}
		})
	}
}
