package index

import (
	"bytes"
	"slices"
)

// sortPostings sorts ps into key order (key returns an entry's key):
// by pre and pre2, which hold the keys' 16 bytes from byte from (zeros
// past a key's end), with a radix sort (least significant byte first,
// stable), then each run of entries whose 16 bytes are equal by their
// keys. The keys of ps must be the same bytes before from. tmp is
// scratch, returned for the next call.
//
// A comparison sort of a batch's ~37,500 keys made ~570,000 calls of a
// comparison function. The radix sort reads and writes each entry once
// per byte that varies (bytes every key shares, such as the high bytes
// of path ids, are skipped after their count). Keys of one path whose
// values share a long start (URLs) tie on their 16 bytes in runs of
// hundreds: a run that long is radix sorted again on the next 16 bytes,
// a short one compared.
func sortPostings(ps, tmp []sortedPosting, key func(*sortedPosting) []byte, from int) []sortedPosting {
	if len(ps) < 2 {
		return tmp
	}
	tmp = slices.Grow(tmp[:0], len(ps))[:len(ps)]
	src, dst := ps, tmp
	for b := 15; b >= 0; b-- {
		var count [256]int
		for i := range src {
			count[digit(&src[i], b)]++
		}
		if count[digit(&src[0], b)] == len(src) {
			continue // every entry has this byte: the pass would not move one
		}
		sum := 0
		for d, c := range count {
			count[d] = sum
			sum += c
		}
		for i := range src {
			d := digit(&src[i], b)
			dst[count[d]] = src[i]
			count[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &ps[0] {
		copy(ps, src)
	}
	next := from + 16
	for i := 0; i < len(ps); {
		j := i + 1
		for j < len(ps) && ps[j].pre == ps[i].pre && ps[j].pre2 == ps[i].pre2 {
			j++
		}
		run := ps[i:j]
		i = j
		if len(run) < 2 {
			continue
		}
		// Zeros pad a key that ends before next, so a run's keys are the
		// same bytes up to next only when none ends before it.
		ends := false
		for k := range run {
			ends = ends || len(key(&run[k])) < next
		}
		if ends || len(run) <= radixRun {
			slices.SortFunc(run, func(a, b sortedPosting) int { return bytes.Compare(key(&a), key(&b)) })
			continue
		}
		for k := range run {
			kb := key(&run[k])
			run[k].pre, run[k].pre2 = keyPrefix(kb, next), keyPrefix(kb, next+8)
		}
		tmp = sortPostings(run, tmp, key, next)
	}
	return tmp
}

// radixRun is the longest run of tied entries sortPostings compares
// rather than sorting it again by radix.
const radixRun = 32

// digit returns byte b (0 the most significant) of p's 16 prefix bytes.
func digit(p *sortedPosting, b int) byte {
	if b < 8 {
		return byte(p.pre >> (56 - 8*b))
	}
	return byte(p.pre2 >> (56 - 8*(b-8)))
}
