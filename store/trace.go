package store

import (
	"context"
	"fmt"

	"github.com/aqlstore/aqlstore/canon"
)

// Trace roles: where a document sits in the RFC 0020 Appendix B.2 chain
// intent_id (AQL intent) → intent_id (payment session) → intent_id
// (settlement confirmation) → action_id (receipt).
const (
	TraceIntent     = "intent"                  // the AQL intent itself (kind intent)
	TraceSession    = "payment_session"         // carries intent_id and session_id
	TraceSettlement = "settlement_confirmation" // carries intent_id and settlement_id or confirmation_id
	TraceReceipt    = "receipt"                 // a receipt whose action_id is the intent_id
	TraceResponse   = "intent_response"         // an IntentResponse (response_id) to the intent
	TraceOther      = "document"                // any other document with a top-level intent_id
)

// TraceEntry is one document of an intent's traceability chain.
type TraceEntry struct {
	Role string // one of the Trace* roles
	Doc  *StoredDoc
}

// Trace returns, in document order, the stored documents the context's
// principal may see that carry intentID: a top-level intent_id equal to
// it (the intent, payment sessions, settlement confirmations, responses,
// anything else), or, for receipts, an action_id equal to it. It reads
// every visible document's top-level members without decoding the
// document, so it takes time proportional to the store; it is an audit
// operation, not a query.
func (s *Store) Trace(ctx context.Context, intentID string) ([]TraceEntry, error) {
	if intentID == "" {
		return nil, fmt.Errorf("%w: empty intent_id", ErrInvalid)
	}
	var out []TraceEntry
	for doc, err := range s.Scan(ctx, "") {
		if err != nil {
			return nil, fmt.Errorf("store: trace %q: %w", intentID, err)
		}
		if role := traceRole(doc, intentID); role != "" {
			out = append(out, TraceEntry{Role: role, Doc: doc})
		}
	}
	return out, nil
}

// traceRole returns doc's role in intentID's chain, "" when it has none.
func traceRole(doc *StoredDoc, intentID string) string {
	b := doc.JSON()
	if len(b) == 0 || b[0] != '{' {
		return ""
	}
	has := func(name string) bool { _, ok := canon.Member(b, name); return ok }
	is := func(name string) bool {
		raw, ok := canon.Member(b, name)
		if !ok {
			return false
		}
		s, ok := canon.RawString(raw)
		return ok && s == intentID
	}
	switch {
	case doc.Kind == canon.KindReceipt && is("action_id"):
		return TraceReceipt
	case !is("intent_id"):
		return ""
	case doc.Kind == canon.KindIntent:
		return TraceIntent
	case has("session_id"):
		return TraceSession
	case has("settlement_id"), has("confirmation_id"):
		return TraceSettlement
	case has("response_id"):
		return TraceResponse
	case doc.Kind == canon.KindReceipt:
		return TraceReceipt
	}
	return TraceOther
}
