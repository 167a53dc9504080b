package store

import (
	"bytes"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/aqlstore/aqlstore/canon"
)

// referenceReceiptJSON is the receipt encoding appendJSON replaced: the
// members as a map, written by the canonical writer.
func referenceReceiptJSON(r *Receipt) []byte {
	m := receiptMembers(r.Seq, r.Principal, r.Op, r.Kind, r.Owner, r.HashBefore, r.HashAfter, r.Prev, r.Grantee)
	m["num"] = canon.Number(strconv.FormatUint(uint64(r.Num), 10))
	return canon.AppendValue(nil, m)
}

// The receipt chain hashes these bytes: the direct encoder must write
// what the map encoder wrote, byte for byte, for any receipt.
func TestReceiptBytesEqualMapEncoder(t *testing.T) {
	strs := []string{"", "public", "put", "delete", OpGrant, "manifest", "did:key:z6MkpTHR8VNsBxYAAWHut2Geadd9jSwuBV8xRoAnwWsdvktH",
		`quote " and \ backslash`, "tab\tnew\nline\x01\x1f\x7f", "é€𝄞 and \u2028\u2029", "\xff\xfe not utf-8", "<script>&'",
		"0000000000000000000000000000000000000000000000000000000000000000"}
	rng := rand.New(rand.NewPCG(19, 20))
	pick := func() string {
		if rng.IntN(4) == 0 { // a random string of random bytes and runes
			var b []byte
			for range rng.IntN(12) {
				if rng.IntN(3) == 0 {
					b = append(b, byte(rng.IntN(256)))
				} else {
					b = append(b, string(rune(rng.IntN(0x11000)))...)
				}
			}
			return string(b)
		}
		return strs[rng.IntN(len(strs))]
	}
	nums := []uint64{0, 1, 9, 10, 1 << 31, 1<<32 - 1, 1 << 53}
	for i := range 20000 {
		seq := nums[rng.IntN(len(nums))]
		if rng.IntN(2) == 0 {
			seq = rng.Uint64N(1 << 53)
		}
		r := Receipt{Seq: seq, Principal: pick(), Op: pick(), Kind: canon.Kind(pick()), Owner: pick(),
			Num: rng.Uint32(), HashBefore: pick(), HashAfter: pick(), Prev: pick(), Grantee: pick()}
		got, want := r.appendJSON([]byte("x")), append([]byte("x"), referenceReceiptJSON(&r)...)
		if !bytes.Equal(got, want) {
			t.Fatalf("receipt %d %+v:\n got %q\nwant %q", i, r, got, want)
		}
	}
}
