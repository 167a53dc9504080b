package execintent

import (
	"errors"
	"time"

	"github.com/aqlstore/aqlstore/canon"
)

// SchemaVersion is the schemaVersion every ExecutionIntent.v1 carries.
const SchemaVersion = "ExecutionIntent.v1"

// Kind is the canon.Kind under which the store keeps ExecutionIntent.v1
// documents.
const Kind canon.Kind = "execution-intent"

// Intent is a parsed, validated ExecutionIntent.v1 whose intentHash has
// been verified. It is immutable once returned and safe for concurrent
// reads; View and Canonical share memory with it (treat as read-only).
type Intent struct {
	IntentID       string
	TenantID       string
	AgentID        string
	RunID          string // optional; "" when absent
	AgreementHash  string // optional
	QuoteID        string // optional
	Request        RequestFingerprint
	Risk           RiskProfile
	Spend          SpendBounds
	Policy         PolicyBinding
	IdempotencyKey string
	Nonce          string
	ExpiresAt      time.Time // UTC
	CreatedAt      time.Time // UTC
	Metadata       map[string]any
	IntentHash     string

	doc       map[string]any
	canonical []byte
}

// RequestFingerprint pins the exact request (requestFingerprint).
type RequestFingerprint struct {
	Canonicalization string // always "rfc8785-jcs"
	Method           string
	Path             string
	QuerySHA256      string
	BodySHA256       string
	RequestSHA256    string
}

// RiskProfile is the declared risk (riskProfile).
type RiskProfile struct {
	RiskClass             string // read, compute, action or financial
	SideEffecting         bool
	ExpectedDeterminism   string // deterministic, bounded_nondeterministic or open_nondeterministic
	MaxLossCents          int64
	RequiresHumanApproval bool
}

// SpendBounds bound the spend (spendBounds).
type SpendBounds struct {
	Currency       string
	MaxAmountCents int64
}

// PolicyBinding names the policy that authorizes the intent.
type PolicyBinding struct {
	PolicyID               string
	PolicyVersion          int64
	PolicyHash             string
	VerificationMethodHash string
}

// Parse strictly decodes and validates an ExecutionIntent.v1 and verifies
// its intentHash. Problems come as an ErrorList of the first stage that
// fails: syntax (ErrSyntax); schema and store rules (ErrSchema,
// ErrInvalid); then hash and time order together (ErrHashMismatch, whose
// message shows both hashes, and ErrExpiry). lim may be nil.
func Parse(b []byte, lim *canon.Limits) (*Intent, error) {
	v, err := canon.Decode(b, lim)
	if err != nil {
		return nil, ErrorList{syntaxError(err)}
	}
	return parseValue(v)
}

// ParseValue validates a decoded document as Parse does. v must be in
// canon's value model (as from canon.Decode): another Go type, or a
// canon.Number that is not a JSON number, is ErrUnsupportedValue, since
// it would encode to other JSON than it seems to hold. The Intent keeps
// v: do not modify it afterwards.
func ParseValue(v any) (*Intent, error) {
	if err := checkModel(v, ""); err != nil {
		return nil, ErrorList{err}
	}
	return parseValue(v)
}

func parseValue(v any) (*Intent, error) {
	doc, ok := v.(map[string]any)
	if !ok {
		return nil, ErrorList{{Message: "intent is " + canon.TypeName(v) + ", want a JSON object", Err: ErrSchema}}
	}
	in, errs := validate(doc)
	if len(errs) > 0 {
		return nil, errs
	}
	if errs := in.verify(); len(errs) > 0 {
		return nil, errs
	}
	return in, nil
}

func syntaxError(err error) *Error {
	e := &Error{Message: err.Error(), Err: ErrSyntax, cause: err}
	var se *canon.SyntaxError
	if errors.As(err, &se) {
		e.Pointer = se.Pointer
	}
	return e
}

// verify checks what needs a schema-valid intent: the hash and the time
// order. Both are reported when both fail.
func (in *Intent) verify() ErrorList {
	c := &checker{}
	sum, err := hashDoc(in.doc)
	switch {
	case err != nil:
		return ErrorList{err} // no RFC 8785 form: nothing else can be judged
	case sum != in.IntentHash:
		c.fail(ErrHashMismatch, "/intentHash", "intentHash is %s but the intent hashes to %s "+
			"(lowercase hex sha256 of the RFC 8785 form without intentHash); the intent was changed after sealing, or sealed differently",
			in.IntentHash, sum)
	}
	if in.ExpiresAt.Before(in.CreatedAt) {
		c.fail(ErrExpiry, "/expiresAt", "expiresAt %s is before createdAt %s",
			in.doc["expiresAt"], in.doc["createdAt"])
	}
	if len(c.errs) == 0 {
		in.canonical, err = canonicalize(in.doc)
		if err != nil {
			return ErrorList{err}
		}
	}
	return c.errs
}

// View returns the intent as a decoded JSON value (canon's value model)
// for indexing and AQL: the document itself, paths as in the schema
// (/riskProfile/riskClass, /spendBounds/maxAmountCents...). Shared:
// treat it as read-only.
func (in *Intent) View() map[string]any { return in.doc }

// Canonical returns the RFC 8785 bytes of the whole intent, intentHash
// included: what the store keeps. Shared: do not modify.
func (in *Intent) Canonical() []byte { return in.canonical }
