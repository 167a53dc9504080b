package query

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/query/aql"
	"github.com/aqlstore/aqlstore/query/sign"
)

// cursorState is where a full_set page ended: the last returned
// candidate's rank key. The next page starts strictly after it in rank
// order, so documents put or deleted between pages shift nothing already
// returned.
type cursorState struct {
	score canon.Number
	id    string
	num   uint32
	rank  int // rank of the last returned candidate
}

// encodeCursor signs the state with the resolver's key, bound to the
// intent, and returns it as "payload.signature", both base64url: every
// byte of it is covered, so any change is caught.
func encodeCursor(signer *sign.Signer, in *aql.Intent, c cursorState) (string, error) {
	doc := map[string]any{"intent": intentDigest(in), "score": string(c.score), "id": c.id,
		"num": canon.Number(strconv.FormatUint(uint64(c.num), 10)), "rank": canon.Number(strconv.Itoa(c.rank))}
	payload := canon.AppendValue(nil, doc)
	enc := base64.RawURLEncoding
	return enc.EncodeToString(payload) + "." + enc.EncodeToString(signer.SignMessage(payload)), nil
}

// decodeCursor checks a cursor's signature and intent and returns its state.
func decodeCursor(signer *sign.Signer, in *aql.Intent, s string) (*cursorState, error) {
	enc := base64.RawURLEncoding.Strict()
	p, sig, ok := strings.Cut(s, ".")
	payload, err1 := enc.DecodeString(p)
	mac, err2 := enc.DecodeString(sig)
	if !ok || err1 != nil || err2 != nil {
		return nil, fmt.Errorf("%w: not a cursor this resolver issued", ErrBadCursor)
	}
	if !ed25519.Verify(signer.PublicKey(), payload, mac) {
		return nil, fmt.Errorf("%w: altered, or issued by another resolver", ErrBadCursor)
	}
	v, err := canon.Decode(payload, nil)
	doc, isObj := v.(map[string]any)
	if err != nil || !isObj {
		return nil, fmt.Errorf("%w: malformed", ErrBadCursor)
	}
	if doc["intent"] != intentDigest(in) {
		return nil, fmt.Errorf("%w: issued for another intent", ErrBadCursor)
	}
	return cursorFrom(doc)
}

func cursorFrom(doc map[string]any) (*cursorState, error) {
	score, _ := doc["score"].(string)
	id, _ := doc["id"].(string)
	num, err1 := strconv.ParseUint(string(asNumber(doc["num"])), 10, 32)
	rank, err2 := strconv.Atoi(string(asNumber(doc["rank"])))
	if err1 != nil || err2 != nil {
		return nil, fmt.Errorf("%w: malformed", ErrBadCursor)
	}
	return &cursorState{score: canon.Number(score), id: id, num: uint32(num), rank: rank}, nil
}

func asNumber(v any) canon.Number { n, _ := v.(canon.Number); return n }

// intentDigest is the sha256 of the intent's RFC 8785 form without its
// signature: what the issuer signed.
func intentDigest(in *aql.Intent) string {
	doc := make(map[string]any, len(in.Document))
	for k, v := range in.Document {
		if k != "signature" {
			doc[k] = v
		}
	}
	sum := sha256.Sum256(canon.AppendValue(nil, doc))
	return hex.EncodeToString(sum[:])
}

// after reads the options' cursor into the resolution.
func (r *resolution) after(cursor string) error {
	if cursor == "" {
		return nil
	}
	if r.in.ResolutionPolicy != "full_set" {
		return fmt.Errorf("%w: only full_set responses are paginated", ErrBadCursor)
	}
	c, err := decodeCursor(r.o.Signer, r.in, cursor)
	r.cursor = c
	return err
}
