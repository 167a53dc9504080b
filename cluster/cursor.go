package cluster

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/aqlstore/aqlstore/canon"
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
	b, _ := json.Marshal(cursorState{Intent: intentDigest(in), Key: key, Rank: rank})
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
	if c.Intent != intentDigest(in) {
		return nil, fmt.Errorf("%w: issued for another intent; pass the intent the cursor came with", ErrBadCursor)
	}
	return &c, nil
}

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
