package cluster

import (
	"encoding/json"
	"fmt"

	"github.com/aqlstore/aqlstore/canon"
)

// entry is one message of a shard's stream: a put or a delete of one
// document, as JSON. A put carries the body the client gave, not the
// canonical bytes: a replica parses it exactly as a local Put would, so
// its store holds what a single store would (a candidate shape's signals
// come from its body).
type entry struct {
	Op          string         `json:"op"` // "put" or "delete"
	Principal   string         `json:"principal"`
	Owner       string         `json:"owner"`
	Kind        canon.Kind     `json:"kind"`
	ID          string         `json:"id"`           // content id
	CandidateID string         `json:"candidate_id"` // natural key, else content id
	Body        []byte         `json:"body,omitempty"`
	Given       canon.Kind     `json:"given,omitempty"`   // the kind the client named, "" to detect
	Signals     *canon.Signals `json:"signals,omitempty"` // the client's override, nil when none
	// Effective is the JSON of the signals the document is stored with:
	// putting the same content again with other signals is a conflict, as
	// in a store.
	Effective string `json:"effective,omitempty"`
	Grantee   string `json:"grantee,omitempty"` // grant and revoke
}

const (
	opPut    = "put"
	opDelete = "delete"
	opGrant  = "grant"  // Grantee may read the document
	opRevoke = "revoke" // Grantee no longer may
)

// live reports whether e leaves its document stored: a put, or a grant
// or revoke after one (which carry the put's id, kind and signals).
func (e *entry) live() bool { return e.Op != opDelete }

func (e *entry) encode() []byte {
	b, err := json.Marshal(e)
	if err != nil {
		panic(fmt.Sprintf("cluster: encode entry: %v", err)) // every field marshals
	}
	return b
}

func decodeEntry(b []byte) (*entry, error) {
	var e entry
	if err := json.Unmarshal(b, &e); err != nil {
		return nil, fmt.Errorf("decode stream entry: %w", err)
	}
	switch e.Op {
	case opPut, opDelete, opGrant, opRevoke:
	default:
		return nil, fmt.Errorf("decode stream entry: op %q is not put, delete, grant or revoke", e.Op)
	}
	return &e, nil
}

// signalsJSON is the comparable form of a document's signals.
func signalsJSON(s *canon.Signals) string {
	if s == nil {
		return ""
	}
	b, _ := json.Marshal(s)
	return string(b)
}
