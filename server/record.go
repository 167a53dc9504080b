package server

import (
	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/query"
)

// candidateDoc is a candidate as an IntentResponse lists it, with its
// decision record (oap-aql-decision.schema.json), written by the query
// package's writer (query.AppendCandidate) so that a streamed candidate
// is byte for byte the one a response holds; rank 0 is left out (streams
// that do not rank). A candidate that cannot be written gives an empty
// RawValue, which the event's writer refuses.
func candidateDoc(c *query.Candidate) canon.RawValue {
	b, err := query.AppendCandidate(nil, c)
	if err != nil {
		return nil
	}
	return b
}
