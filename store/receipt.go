package store

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"

	"github.com/aqlstore/aqlstore/canon"
)

// Receipt records one mutation. Receipts form a hash chain: each names the
// sha256 of the previous receipt's bytes, so the history can be verified
// end to end and no receipt can be changed or dropped unnoticed.
type Receipt struct {
	Seq        uint64 // 1, 2, 3, … with no gaps
	Principal  string // who asked for the mutation
	Op         string // "put" or "delete"
	Kind       canon.Kind
	Owner      string
	Num        uint32
	HashBefore string // content id before the mutation, "" when none
	HashAfter  string // content id after the mutation, "" when none
	Prev       string // hex sha256 of the previous receipt, zeros for the first
	Grantee    string // GranteeHash of the tenant a grant or revoke names, "" for other ops
}

// The ops of a grant and a revoke receipt (grant.go): Num names the
// document, HashBefore and HashAfter its content id (a grant changes who
// reads it, not its content), Grantee the tenant as GranteeHash.
const (
	OpGrant  = "grant"
	OpRevoke = "revoke"
)

// GranteeHash is how a receipt names a grantee: the lowercase hex sha256
// of its DID. A receipt outlives the document it is about, and keeps its
// content id rather than its bytes; so it keeps a hash of the grantee
// rather than the DID, which deleting the document takes off the disk
// with the grant keys. Whoever knows the DID can match it.
func GranteeHash(did string) string { return hashHex([]byte(did)) }

// appendJSON appends the receipt's RFC 8785 bytes, which are what is stored
// and hashed: the members of receiptMembers and num, written straight in
// their RFC 8785 order (every put writes one, and a map built and sorted
// per receipt cost more than the rest of it). The tests hold the bytes
// equal to canon.AppendValue of the members.
func (r *Receipt) appendJSON(dst []byte) []byte {
	dst = append(dst, '{')
	if r.Grantee != "" {
		dst = appendReceiptString(append(dst, `"grantee":`...), r.Grantee)
		dst = append(dst, ',')
	}
	dst = appendReceiptString(append(dst, `"hash_after":`...), r.HashAfter)
	dst = appendReceiptString(append(dst, `,"hash_before":`...), r.HashBefore)
	dst = appendReceiptString(append(dst, `,"kind":`...), string(r.Kind))
	dst = strconv.AppendUint(append(dst, `,"num":`...), uint64(r.Num), 10)
	dst = appendReceiptString(append(dst, `,"op":`...), r.Op)
	dst = appendReceiptString(append(dst, `,"owner":`...), r.Owner)
	dst = appendReceiptString(append(dst, `,"prev":`...), r.Prev)
	dst = appendReceiptString(append(dst, `,"principal":`...), r.Principal)
	dst = strconv.AppendUint(append(dst, `,"seq":`...), r.Seq, 10)
	return append(dst, '}')
}

// appendReceiptString appends s as canon.AppendValue writes a string
// member: its RFC 8785 form, or null when s is not UTF-8.
func appendReceiptString(dst []byte, s string) []byte {
	out, err := canon.AppendString(dst, s)
	if err != nil {
		return append(dst, "null"...)
	}
	return out
}

// receiptMembers are the members a store receipt and an owner receipt
// share; each adds the one that names its document (num or doc). grantee
// is a member only in grant and revoke receipts, so the others keep the
// bytes they always had.
func receiptMembers(seq uint64, principal, op string, kind canon.Kind, owner, before, after, prev, grantee string) map[string]any {
	m := map[string]any{"seq": canon.Number(strconv.FormatUint(seq, 10)), "principal": principal, "op": op,
		"kind": string(kind), "owner": owner, "hash_before": before, "hash_after": after, "prev": prev}
	if grantee != "" {
		m["grantee"] = grantee
	}
	return m
}

// receiptObject is a decoded receipt. Members of the wrong type read as
// their zero value, which the chain checks then refuse.
type receiptObject map[string]any

// decodeReceiptObject decodes receipt bytes; errors wrap sentinel.
func decodeReceiptObject(b []byte, sentinel error) (receiptObject, error) {
	v, err := canon.Decode(b, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: receipt: %v", sentinel, err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%w: receipt is not an object", sentinel)
	}
	return m, nil
}

func (o receiptObject) str(k string) string { s, _ := o[k].(string); return s }

func (o receiptObject) num(k string) uint64 {
	n, _ := o[k].(canon.Number)
	u, _ := strconv.ParseUint(string(n), 10, 64)
	return u
}

// parseReceipt decodes stored receipt bytes.
func parseReceipt(b []byte) (*Receipt, error) {
	o, err := decodeReceiptObject(b, ErrCorrupt)
	if err != nil {
		return nil, err
	}
	return &Receipt{Seq: o.num("seq"), Principal: o.str("principal"), Op: o.str("op"), Kind: canon.Kind(o.str("kind")),
		Owner: o.str("owner"), Num: uint32(o.num("num")), HashBefore: o.str("hash_before"),
		HashAfter: o.str("hash_after"), Prev: o.str("prev"), Grantee: o.str("grantee")}, nil
}

// chainHead is the last receipt: its seq and the sha256 of its bytes.
type chainHead struct {
	seq  uint64
	hash [sha256.Size]byte
}

func (h chainHead) append(dst []byte) []byte {
	dst = append(dst, byte(h.seq>>56), byte(h.seq>>48), byte(h.seq>>40), byte(h.seq>>32),
		byte(h.seq>>24), byte(h.seq>>16), byte(h.seq>>8), byte(h.seq))
	return append(dst, h.hash[:]...)
}

func decodeChainHead(v []byte) (chainHead, error) {
	var h chainHead
	if len(v) != 8+sha256.Size {
		return h, fmt.Errorf("%w: chain head is %d bytes", ErrCorrupt, len(v))
	}
	for _, b := range v[:8] {
		h.seq = h.seq<<8 | uint64(b)
	}
	copy(h.hash[:], v[8:])
	return h, nil
}

// next returns the receipt that follows h, with Seq and Prev filled.
func (h chainHead) next(r Receipt) Receipt {
	r.Seq = h.seq + 1
	r.Prev = hex.EncodeToString(h.hash[:])
	return r
}
