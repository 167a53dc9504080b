package query

import (
	"errors"
	"time"

	"github.com/aqlstore/aqlstore/query/aql"
	"github.com/aqlstore/aqlstore/query/sign"
)

// ErrorDocument returns the signed error envelope a resolver answers with
// when it refuses an intent (RFC 0020 A.3 R1): what went wrong, every
// problem with its JSON Pointer (the invalid members; the end of the
// validity window missed; the signature member at fault), and the
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
	if problems := Problems(err); len(problems) > 0 {
		list := make([]any, len(problems))
		for i, p := range problems {
			list[i] = map[string]any{"pointer": p.Pointer, "code": p.Code, "message": p.Message}
		}
		doc["problems"] = list
	}
	if errors.Is(err, aql.ErrInvalid) {
		doc["message"] = plural(len(Problems(err)), "problem") + " in the intent"
	}
	return signer.Sign(doc)
}

// Problems returns what a refused intent has to fix, each at its JSON
// Pointer: every problem of an invalid intent; the end of the validity
// window missed (/validity/from or /validity/to); the signature member at
// fault (/signature/value, /signature/kid...). Nil for other errors.
func Problems(err error) []aql.Problem {
	var inv *aql.InvalidError
	var ve *aql.ValidityError
	var se *sign.SignatureError
	switch {
	case errors.As(err, &inv):
		return inv.Problems
	case errors.As(err, &ve):
		return []aql.Problem{ve.Problem()}
	case errors.As(err, &se):
		return []aql.Problem{{Pointer: se.Pointer, Code: signatureCode, Message: se.Error()}}
	case errors.Is(err, ErrRefused) && errors.Is(err, sign.ErrInvalidKey):
		return []aql.Problem{{Pointer: "/issuer_did", Code: signatureCode,
			Message: err.Error() + "; the key issuer_did resolves to must be an Ed25519 public key: correct its trust file entry"}}
	case errors.Is(err, ErrRefused):
		return []aql.Problem{{Pointer: "/signature", Code: signatureCode, Message: err.Error()}}
	}
	return nil
}

// signatureCode is the problem code of a refused signature.
const signatureCode = "bad_signature"

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
