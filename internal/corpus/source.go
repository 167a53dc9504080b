package corpus

import "math/rand/v2"

// source is the per-document randomness: a PCG reseeded from (kind salt,
// seed, i) for every document, so a document never depends on the ones
// generated before it. One source is reused across a Generator's documents
// to avoid allocating a generator per document.
type source struct {
	pcg  rand.PCG
	r    *rand.Rand
	seed uint64
	i    int
	// e is the document's encoder, kept here because a stack enc would
	// escape through the kind's write function value and cost an
	// allocation per document.
	e enc
}

func newSource() *source {
	s := &source{}
	s.r = rand.New(&s.pcg)
	return s
}

// reset prepares s for document i. mix64 is a bijection, so distinct
// (seed, i) pairs give distinct PCG states.
func (s *source) reset(salt, seed uint64, i int) {
	s.seed, s.i = seed, i
	s.pcg.Seed(mix64(seed^salt), mix64(uint64(i)))
}

// hit reports whether this document's rank for f is below k, i.e. whether
// the controlled field f takes its special value.
func (s *source) hit(f field, k uint32) bool { return rank(s.seed, f, s.i) < k }

// bucket returns this document's bucket class name, or bucketNone.
func (s *source) bucket() string { return bucketOf(rank(s.seed, fieldBucket, s.i)) }

func (s *source) intn(n int) int            { return s.r.IntN(n) }
func (s *source) between(lo, hi int) int    { return lo + s.r.IntN(hi-lo+1) }
func (s *source) coin(pct int) bool         { return s.r.IntN(100) < pct }
func (s *source) pick(pool []string) string { return pool[s.r.IntN(len(pool))] }

// words writes n ≥ 1 random vocabulary words separated by spaces inside an
// open string; a non-empty marker replaces one of them at random.
func (s *source) words(e *enc, n int, marker string) {
	at := -1
	if marker != "" {
		at = s.intn(n)
	}
	for j := 0; j < n; j++ {
		if j > 0 {
			e.lit(" ")
		}
		if j == at {
			e.lit(marker)
			continue
		}
		e.lit(s.pick(vocabulary))
	}
}
