package query

import (
	"errors"
	"time"

	"github.com/aqlstore/aqlstore/query/aql"
	"github.com/aqlstore/aqlstore/query/sign"
)

// ErrorDocument returns the signed error envelope a resolver answers with
// when it refuses an intent (RFC 0020 A.3 R1): what went wrong, every
// problem with its JSON Pointer when the intent is invalid, and the
// resolver's signature. intentID may be "" when the intent had none.
func ErrorDocument(signer *sign.Signer, err error, intentID string, at time.Time) (map[string]any, error) {
	doc := map[string]any{
		"error":        errorCode(err),
		"message":      err.Error(),
		"resolver_did": signer.DID(),
		"evaluated_at": at.UTC().Format(time.RFC3339Nano),
	}
	if intentID != "" {
		doc["intent_id"] = intentID
	}
	var inv *aql.InvalidError
	if errors.As(err, &inv) {
		problems := make([]any, len(inv.Problems))
		for i, p := range inv.Problems {
			problems[i] = map[string]any{"pointer": p.Pointer, "code": p.Code, "message": p.Message}
		}
		doc["problems"] = problems
		doc["message"] = plural(len(problems), "problem") + " in the intent"
	}
	return signer.Sign(doc)
}

func errorCode(err error) string {
	switch {
	case errors.Is(err, aql.ErrInvalid):
		return "invalid_intent"
	case errors.Is(err, aql.ErrOutsideValidity):
		return "outside_validity"
	case errors.Is(err, ErrRefused):
		return "signature_refused"
	case errors.Is(err, ErrBadCursor):
		return "invalid_cursor"
	}
	return "resolver_error"
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return itoa(n) + " " + word + "s"
}
