package store

import (
	"context"
	"crypto/sha256"
	"fmt"
	"strconv"

	"github.com/aqlstore/aqlstore/canon"
)

// The store keeps one receipt chain for all its tenants, numbered by the
// store's seq; Verify checks it. A tenant never sees it: its seq numbers
// and prev hashes would count every other tenant's mutations, and the
// receipts' document numbers every other tenant's documents. What a tenant
// sees of its history is its owner chain, derived from the store's chain:
// the receipts of its own documents only, in the same order, renumbered
// 1, 2, 3, … and linked by the sha256 of each other's bytes. Deriving it
// is deterministic, so every export of an owner extends the last one.

// OwnerReceipt is one receipt of an owner chain.
type OwnerReceipt struct {
	Seq       uint64 // 1, 2, 3, … within the owner, with no gaps
	Principal string // who asked for the mutation
	Op        string // "put", "delete" or OpImport
	Kind      canon.Kind
	Owner     string
	// Doc names the document the receipt is about by the Seq of the put
	// that stored it: its own Seq for a put, 0 for an import. A grant or
	// revoke names a live document and its content id as both hashes.
	Doc        uint64
	HashBefore string // content id before the mutation, "" when none
	HashAfter  string // content id after the mutation, "" when none
	Prev       string // hex sha256 of the owner's previous receipt, zeros for the first
	Grantee    string // GranteeHash of the tenant a grant or revoke names, "" for other ops
}

// appendJSON appends the receipt's RFC 8785 bytes, which are what an
// export carries and the next receipt's Prev hashes.
func (r *OwnerReceipt) appendJSON(dst []byte) []byte {
	m := receiptMembers(r.Seq, r.Principal, r.Op, r.Kind, r.Owner, r.HashBefore, r.HashAfter, r.Prev, r.Grantee)
	m["doc"] = canon.Number(strconv.FormatUint(r.Doc, 10))
	return canon.AppendValue(dst, m)
}

// parseOwnerReceipt decodes an owner receipt's bytes.
func parseOwnerReceipt(b []byte) (*OwnerReceipt, error) {
	o, err := decodeReceiptObject(b, ErrInvalid)
	if err != nil {
		return nil, err
	}
	r := &OwnerReceipt{Seq: o.num("seq"), Doc: o.num("doc")}
	r.Principal, r.Op, r.Kind, r.Owner = o.str("principal"), o.str("op"), canon.Kind(o.str("kind")), o.str("owner")
	r.HashBefore, r.HashAfter, r.Prev, r.Grantee = o.str("hash_before"), o.str("hash_after"), o.str("prev"), o.str("grantee")
	return r, nil
}

// ownerChain follows the store's receipts up to head and builds owner's
// chain from them.
type ownerChain struct {
	owner    string
	receipts []ExportedReceipt
	prev     [sha256.Size]byte
	docs     map[uint32]uint64 // the owner's live document numbers → Doc
	bySeq    map[uint64]uint64 // the store's seq of each put → its owner Seq
}

func newOwnerChain(owner string) *ownerChain {
	return &ownerChain{owner: owner, docs: map[uint32]uint64{}, bySeq: map[uint64]uint64{}}
}

// add appends r, a receipt of the store's chain, when it is the owner's.
func (c *ownerChain) add(r *Receipt) error {
	if r.Owner != c.owner {
		return nil
	}
	o := OwnerReceipt{Seq: uint64(len(c.receipts)) + 1, Principal: r.Principal, Op: r.Op, Kind: r.Kind,
		Owner: r.Owner, HashBefore: r.HashBefore, HashAfter: r.HashAfter, Prev: zeroHash, Grantee: r.Grantee}
	if len(c.receipts) > 0 {
		o.Prev = fmt.Sprintf("%x", c.prev)
	}
	switch r.Op {
	case "put":
		o.Doc = o.Seq
		c.docs[r.Num] = o.Seq
		c.bySeq[r.Seq] = o.Seq
	case "delete":
		doc, ok := c.docs[r.Num]
		if !ok {
			return fmt.Errorf("%w: receipt %d deletes document %d, which no receipt of %s put", ErrCorrupt, r.Seq, r.Num, c.owner)
		}
		o.Doc = doc
		delete(c.docs, r.Num)
	case OpGrant, OpRevoke:
		doc, ok := c.docs[r.Num]
		if !ok {
			return fmt.Errorf("%w: receipt %d %ss document %d, which no receipt of %s put", ErrCorrupt, r.Seq, r.Op, r.Num, c.owner)
		}
		o.Doc = doc
	}
	b := o.appendJSON(nil)
	c.receipts = append(c.receipts, ExportedReceipt{OwnerReceipt: o, Bytes: b})
	c.prev = sha256.Sum256(b)
	return nil
}

// ownerChainTo reads the store's receipts up to head into owner's chain.
func (s *Store) ownerChainTo(ctx context.Context, owner string, head uint64) (*ownerChain, error) {
	c := newOwnerChain(owner)
	err := s.Receipts(ctx, 1, func(r *Receipt) error {
		if r.Seq > head {
			return errStopScan
		}
		return c.add(r)
	})
	if err != nil && err != errStopScan {
		return nil, err
	}
	return c, nil
}
