package aidp

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/aqlstore/aqlstore/canon"
)

// MsgType is a message's msg_type (§17.2).
type MsgType string

// The three wire messages.
const (
	IE MsgType = "IE" // intent envelope: a request to execute a governed action
	OB MsgType = "OB" // observation: the bound result of an execution
	PD MsgType = "PD" // problem details: a structured rejection or error
)

// Kind returns the canon.Kind under which the store keeps messages of
// type t.
func (t MsgType) Kind() canon.Kind {
	switch t {
	case IE:
		return KindEnvelope
	case OB:
		return KindObservation
	case PD:
		return KindProblem
	}
	return ""
}

// The document kinds of AIDP messages, as canon.Kind names.
const (
	KindEnvelope    canon.Kind = "aidp-ie"
	KindObservation canon.Kind = "aidp-ob"
	KindProblem     canon.Kind = "aidp-pd"
)

// headerMembers are the members of the common header (§17.5) plus
// proof_chain (§17.4). The header is outside the signing input (§17.3),
// so a member we do not know is unsigned data nobody vouches for: it is
// rejected rather than stored beside signed content.
var headerMembers = []string{"aidp_version", "msg_type", "canon", "payload", "proof", "proof_chain"}

// Message is a parsed, validated AIDP-JS message. Exactly one of Envelope,
// Observation and Problem is set, according to Type. A Message is
// immutable once returned and safe for concurrent reads.
type Message struct {
	Version string  // aidp_version
	Type    MsgType // msg_type
	Canon   string  // canon: the canonicalization profile
	Proof   *Proof  // proof; nil when absent

	Envelope    *Envelope    // the IE payload
	Observation *Observation // the OB payload
	Problem     *Problem     // the PD payload

	canonical []byte
	view      map[string]any
}

// Proof is a message's proof object (§17.4): a signature or MAC over the
// signing input. Its members are closed: a verifier must not be steered by
// a member it does not know (an embedded key, a "critical" list).
type Proof struct {
	Alg string // algorithm, e.g. "ed25519"
	Kid string // key id, resolved against the issuer's keys (§22.15.1)
	Sig string // the signature, base64url
}

// Parse strictly parses and validates one AIDP-JS message. Validation runs
// in the order of §22.16.2 and stops at the first stage with a problem,
// returning all of that stage's problems as an ErrorList:
//
//  1. parsing: not JSON, a duplicate member name (rejected before anything
//     else, §17.3), over the Limits → MALFORMED_MESSAGE;
//  2. version: aidp_version or canon not supported → UNSUPPORTED_VERSION;
//  3. schema: the §17.5 header and the §18 payload of msg_type — required
//     members, types, enums, timestamps, unknown members of the
//     security-critical objects → MALFORMED_MESSAGE;
//  4. semantics that need no outside state: a broken delegation chain →
//     INVALID_DELEGATION_CHAIN; constraints no execution can satisfy →
//     CONSTRAINT_VIOLATION; an observation claiming success without
//     authorization → MALFORMED_MESSAGE.
//
// Identity, capability, revocation and replay checks need outside state
// and belong to the caller. Proofs are checked for shape, not verified.
// A nil opts means the defaults; invalid options are a plain error.
func Parse(b []byte, opts *Options) (*Message, error) {
	o := opts.orDefault()
	if err := o.Validate(); err != nil {
		return nil, err
	}
	c, v, err := canon.Canonical(b, o.Limits)
	if err != nil {
		return nil, ErrorList{syntaxError(err)}
	}
	doc, ok := v.(map[string]any)
	if !ok {
		return nil, ErrorList{{Code: CodeMalformedMessage, Message: "message is " + typeName(v) + ", want a JSON object"}}
	}
	m := &Message{canonical: c, view: doc}
	for _, stage := range []func(map[string]any, *Options) ErrorList{m.version, m.schema, m.semantics} {
		if errs := stage(doc, &o); len(errs) > 0 {
			return nil, errs
		}
	}
	return m, nil
}

// ParseType is Parse for a message that must be of type want (an
// endpoint that takes only IEs, say); another msg_type is
// MALFORMED_MESSAGE at /msg_type.
func ParseType(b []byte, want MsgType, opts *Options) (*Message, error) {
	m, err := Parse(b, opts)
	if err != nil {
		return nil, err
	}
	if m.Type != want {
		return nil, ErrorList{{Code: CodeMalformedMessage, Pointer: "/msg_type",
			Message: fmt.Sprintf("msg_type is %q, want %q here", m.Type, want)}}
	}
	return m, nil
}

// syntaxError maps a canon decoding error to MALFORMED_MESSAGE, keeping
// its pointer and position.
func syntaxError(err error) *Error {
	var se *canon.SyntaxError
	if !errors.As(err, &se) {
		return &Error{Code: CodeMalformedMessage, Message: err.Error()}
	}
	msg := fmt.Sprintf("line %d, column %d: %s", se.Line, se.Column, se.Reason)
	if se.Fix != "" {
		msg += "; " + se.Fix
	}
	return &Error{Code: CodeMalformedMessage, Pointer: se.Pointer, Message: msg}
}

// version checks aidp_version and canon first, alone: a message of
// another version has another schema, so listing schema problems against
// ours would mislead.
func (m *Message) version(doc map[string]any, o *Options) ErrorList {
	c := &checker{code: CodeUnsupportedVersion}
	for _, f := range []struct {
		name   string
		accept []string
	}{{"aidp_version", o.Versions}, {"canon", o.Profiles}} {
		s, ok := doc[f.name].(string)
		if ok && s != "" && !slices.Contains(f.accept, s) {
			c.fail("/"+f.name, "%s %q is not supported (supported: %s)", f.name, s, strings.Join(f.accept, ", "))
		}
	}
	return c.errs
}

// schema checks the header and the payload of the message's type.
func (m *Message) schema(doc map[string]any, o *Options) ErrorList {
	c := &checker{code: CodeMalformedMessage}
	top := obj{c: c, m: doc}
	m.Version = top.str("aidp_version", true)
	m.Type = MsgType(top.enum("msg_type", true, string(IE), string(OB), string(PD)))
	m.Canon = top.str("canon", true)
	payload := top.object("payload", true)
	m.Proof = parseProof(top.object("proof", m.Type == OB && !o.AllowUnsignedObservations))
	parseProofChain(top)
	for _, k := range canon.SortedKeys(doc) {
		if !slices.Contains(headerMembers, k) {
			c.fail(top.at(k), "unknown header member %q: the header is unsigned, put extensions in the payload", k)
		}
	}
	switch m.Type {
	case IE:
		m.Envelope = parseEnvelope(payload)
	case OB:
		m.Observation = parseObservation(payload)
	case PD:
		m.Problem = parseProblem(payload)
	}
	return c.errs
}

// semantics runs the checks that need a well-formed payload.
func (m *Message) semantics(map[string]any, *Options) ErrorList {
	switch m.Type {
	case IE:
		return m.Envelope.semantics()
	case OB:
		return m.Observation.semantics()
	}
	return nil
}

func parseProof(o obj) *Proof {
	if o.m == nil {
		return nil
	}
	o.closed("alg", "kid", "sig")
	return &Proof{Alg: o.str("alg", true), Kid: o.str("kid", true), Sig: o.str("sig", true)}
}

// parseProofChain checks the optional proof_chain of §17.4: proofs of
// delegation links, each an object. Their inner shape is not specified.
func parseProofChain(top obj) {
	for i, p := range top.array("proof_chain", false) {
		if _, ok := p.(map[string]any); !ok {
			top.c.fail(fmt.Sprintf("/proof_chain/%d", i), "proof_chain element is %s, want an object", typeName(p))
		}
	}
}

// Canonical returns the RFC 8785 bytes of the whole message: what the
// store keeps and content-addresses. The slice is shared: do not modify.
func (m *Message) Canonical() []byte { return m.canonical }

// SigningInput returns the §17.3 signing input: the RFC 8785 bytes of the
// payload alone (a member of canonical bytes is itself canonical). The
// slice is shared: do not modify.
func (m *Message) SigningInput() []byte {
	p, _ := canon.Member(m.canonical, "payload")
	return p
}

// View returns the message as a decoded JSON value (canon's value model)
// for indexing and AQL; doc.go lists its paths. Numbers are in their
// canonical form. The map is shared with m: treat it as read-only.
func (m *Message) View() map[string]any { return m.view }

// Key returns the message's natural key (see EnvelopeKey and
// ObservationKey); a PD has none.
func (m *Message) Key() (string, bool) {
	switch m.Type {
	case IE:
		return m.Envelope.Key(), true
	case OB:
		return m.Observation.Key(), true
	}
	return "", false
}
