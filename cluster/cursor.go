package cluster

import (
	"encoding/json"
	"fmt"

	"github.com/aqlstore/aqlstore/query/aql"
	"github.com/aqlstore/aqlstore/query/sign"
)

// A full_set cursor holds where the page ended: the last returned
// candidate's rank key, which is every shard's position at once (each
// shard continues strictly after it in the rank order), and its rank. It
// is sealed with the node's key and bound to the intent, so a reader can
// neither alter it nor reuse it for another intent.
type cursorState struct {
	Intent string  `json:"intent"`
	Key    rankKey `json:"key"`
	Rank   int     `json:"rank"`
}

const cursorPurpose = "cluster full_set cursor"

func encodeCursor(signer *sign.Signer, in *aql.Intent, key rankKey, rank int) string {
	b, _ := json.Marshal(cursorState{Intent: in.Digest(), Key: key, Rank: rank})
	return signer.Sealer(cursorPurpose).Seal(b)
}

func decodeCursor(signer *sign.Signer, in *aql.Intent, s string) (*cursorState, error) {
	b, err := signer.Sealer(cursorPurpose).Open(s)
	if err != nil {
		return nil, fmt.Errorf("%w: not a cursor this cluster issued (altered, or sealed with another key)", ErrBadCursor)
	}
	var c cursorState
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("%w: malformed", ErrBadCursor)
	}
	if c.Intent != in.Digest() {
		return nil, fmt.Errorf("%w: issued for another intent; pass the intent the cursor came with", ErrBadCursor)
	}
	return &c, nil
}
