package query

import (
	"fmt"
	"strconv"

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

// cursorPurpose keys the Sealer of full_set cursors.
const cursorPurpose = "full_set cursor"

// encodeCursor seals the state with the resolver's key, bound to the
// intent (sign.Sealer): a reader can neither alter a cursor nor read the
// document number in it, which counts every tenant's documents.
func encodeCursor(signer *sign.Signer, in *aql.Intent, c cursorState) (string, error) {
	doc := map[string]any{"intent": in.Digest(), "score": string(c.score), "id": c.id,
		"num": canon.Number(strconv.FormatUint(uint64(c.num), 10)), "rank": canon.Number(strconv.Itoa(c.rank))}
	return signer.Sealer(cursorPurpose).Seal(canon.AppendValue(nil, doc)), nil
}

// decodeCursor opens a cursor, checks its intent and returns its state.
func decodeCursor(signer *sign.Signer, in *aql.Intent, s string) (*cursorState, error) {
	payload, err := signer.Sealer(cursorPurpose).Open(s)
	if err != nil {
		return nil, fmt.Errorf("%w: not a cursor this resolver issued (altered, or issued by another resolver)", ErrBadCursor)
	}
	v, err := canon.Decode(payload, nil)
	doc, isObj := v.(map[string]any)
	if err != nil || !isObj {
		return nil, fmt.Errorf("%w: malformed", ErrBadCursor)
	}
	if doc["intent"] != in.Digest() {
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
