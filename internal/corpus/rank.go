package corpus

// BlockSize is the number of consecutive document indices over which every
// controlled field hits its selectivity exactly: a predicate of selectivity
// s matches exactly s×BlockSize documents in each block [k·BlockSize,
// (k+1)·BlockSize). 10,000 is the smallest block in which 0.01% is a whole
// document.
const BlockSize = 10000

// field names a controlled field. Each has its own permutation, so matches
// of predicates on different fields are independent of each other.
type field uint64

const (
	fieldBucket field = iota + 1
	fieldPrice
	fieldTime
	fieldJurisdiction
	fieldSideEffects
	fieldRisk
	fieldTag
	fieldStock
	fieldConfidence
	fieldTopic
	fieldPriority
	fieldBody
)

// Rank thresholds: a field with threshold k is special for ranks [0, k).
const (
	rank001pct = 1    // 0.01%
	rank01pct  = 10   // 0.1%
	rank1pct   = 100  // 1%
	rank10pct  = 1000 // 10%
	rank50pct  = 5000 // 50%
)

// rank returns document i's rank in [0, BlockSize) for field f. Within a
// block the ranks are a seeded permutation of the offsets, which is what
// makes per-block counts exact.
func rank(seed uint64, f field, i int) uint32 {
	block := uint64(i / BlockSize)
	key := mix64(mix64(seed^uint64(f)*0x9e3779b97f4a7c15) ^ block)
	return permute(key, uint32(i%BlockSize))
}

// permute is a keyed bijection on [0, BlockSize): a 14-bit Feistel network
// with cycle walking (values ≥ BlockSize are fed back in until they land
// inside; a permutation's cycle through x always returns to the range).
func permute(key uint64, x uint32) uint32 {
	for {
		x = feistel14(key, x)
		if x < BlockSize {
			return x
		}
	}
}

// feistel14 is a bijection on [0, 2^14), being a balanced Feistel network.
func feistel14(key uint64, x uint32) uint32 {
	l, r := x>>7, x&0x7f
	for round := uint64(0); round < 4; round++ {
		f := uint32(mix64(key^(round<<7|uint64(r)))) & 0x7f
		l, r = r, l^f
	}
	return l<<7 | r
}

// mix64 is the SplitMix64 finalizer: a cheap bijective mixer, so distinct
// inputs stay distinct and nearby inputs look unrelated.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// bucket is one class of the bucket field; the classes cover disjoint rank
// ranges, so one single-valued field serves every eq selectivity.
type bucket struct {
	name   string
	lo, hi uint32
}

// buckets lists the classes from rarest to commonest; ranks from 6111 on
// fall in no class (bucketNone).
var buckets = [...]bucket{
	{"sel_0.01pct", 0, rank001pct},
	{"sel_0.1pct", rank001pct, rank001pct + rank01pct},
	{"sel_1pct", 11, 11 + rank1pct},
	{"sel_10pct", 111, 111 + rank10pct},
	{"sel_50pct", 1111, 1111 + rank50pct},
}

// bucketNone is the bucket value of documents in no class.
const bucketNone = "sel_none"

// bucketOf returns the class name for rank r, or bucketNone.
func bucketOf(r uint32) string {
	for _, b := range buckets {
		if r < b.hi {
			return b.name
		}
	}
	return bucketNone
}
