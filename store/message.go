package store

import (
	"errors"
	"fmt"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/canon/aidp"
	"github.com/aqlstore/aqlstore/canon/execintent"
	"github.com/aqlstore/aqlstore/canon/pairl"
)

// MessageOptions configure how the message kinds are parsed and checked.
// The zero value is the default.
type MessageOptions struct {
	// PAIRLMode is the PAIRL validation mode (default pairl.Loose). Strict
	// also makes a V7 cycle through stored messages an error.
	PAIRLMode pairl.Mode
	// StrictRefs requires every PAIRL @parent and @deps to resolve against
	// the store (V4), as `#rule strict_refs=true` does for one message.
	StrictRefs bool
	// AllowUnsignedObservations accepts AIDP observations without proof.
	AllowUnsignedObservations bool
}

// UnboundPolicy says what Put does with an AIDP observation whose
// envelope is not stored (or not visible to the observation's owner).
type UnboundPolicy uint8

const (
	// RejectUnbound refuses the observation with ErrUnbound (the default).
	RejectUnbound UnboundPolicy = iota
	// QuarantineUnbound stores the observation flagged as quarantined: it
	// is retrievable (ObservationsFor, Inbox, Get) with Quarantined set,
	// has no audit record, and is bound — checked with aidp.Bind and given
	// its audit record — in the same batch that later stores its
	// envelope. An observation that fails that check stays quarantined.
	QuarantineUnbound
)

// Parsed is a document parsed and validated for its kind, ready for Put
// (Document.Parsed). Exactly one of AIDP, PAIRL and Exec is set for a
// message kind; none for a JSON kind. A Parsed is immutable and may be put
// more than once.
type Parsed struct {
	canon.Document
	AIDP     *aidp.Message
	PAIRL    *pairl.Message
	Exec     *execintent.Intent
	Warnings []pairl.Problem // PAIRL problems that are not errors in the mode used
	opts     MessageOptions
	// made is set by ParseDocument: Put trusts a Parsed's fields (its
	// bytes are canonical, its natural key theirs) only when it made
	// them, and refuses one built by hand.
	made bool
}

// ParseDocument parses body as a document of kind, or detects the kind
// when kind is "": PAIRL text (a body starting with '@'), the AIDP and
// ExecutionIntent JSON shapes, or a JSON kind (canon.DetectKind). It runs
// every check that needs no store; Put adds the rest. lim and opts may be
// nil for the defaults. Errors are the kind's own: *canon.SyntaxError and
// *canon.DocumentError, aidp.ErrorList, execintent.ErrorList, *pairl.Error
// (each naming a pointer or a line).
func ParseDocument(body []byte, kind canon.Kind, lim *canon.Limits, opts *MessageOptions) (*Parsed, error) {
	var o MessageOptions
	if opts != nil {
		o = *opts
	}
	if kind != "" {
		if _, err := canon.ParseKind(string(kind)); err != nil {
			return nil, err
		}
	}
	detected := kind == ""
	if detected {
		if canon.LooksLikePAIRL(body) {
			kind = canon.KindPAIRL
		} else {
			// The JSON kinds are the common case: parse once, and learn a
			// message kind from the error canon returns for it.
			d, err := canon.ParseDocument(body, "", lim)
			var de *canon.DocumentError
			if err == nil {
				return &Parsed{Document: *d, opts: o, made: true}, nil
			}
			if !errors.As(err, &de) || !errors.Is(err, canon.ErrUnknownKind) || !canon.IsMessageKind(de.Kind) {
				return nil, err
			}
			kind = de.Kind
		}
	}
	var (
		p   *Parsed
		err error
	)
	switch kind {
	case canon.KindPAIRL:
		p, err = parsePAIRL(body, o)
	case canon.KindAIDPEnvelope, canon.KindAIDPObservation, canon.KindAIDPProblem:
		p, err = parseAIDP(body, kind, detected, lim, o)
	case canon.KindExecutionIntent:
		p, err = parseExec(body, lim)
	default:
		var d *canon.Document
		d, err = canon.ParseDocument(body, kind, lim)
		if err == nil {
			p = &Parsed{Document: *d}
		}
	}
	if err != nil {
		return nil, err
	}
	p.opts, p.made = o, true
	return p, nil
}

// Parse is ParseDocument with the store's limits and message options.
func (s *Store) Parse(body []byte, kind canon.Kind) (*Parsed, error) {
	return ParseDocument(body, kind, &s.opts.Limits, &s.opts.Messages)
}

func parseAIDP(body []byte, kind canon.Kind, detected bool, lim *canon.Limits, o MessageOptions) (*Parsed, error) {
	opts := &aidp.Options{Limits: lim, AllowUnsignedObservations: o.AllowUnsignedObservations}
	var (
		m   *aidp.Message
		err error
	)
	if detected {
		m, err = aidp.Parse(body, opts)
	} else {
		m, err = aidp.ParseType(body, aidpType(kind), opts)
	}
	if err != nil {
		return nil, err
	}
	key, _ := m.Key()
	return &Parsed{Document: canon.Document{Kind: m.Type.Kind(), Canonical: m.Canonical(), NaturalKey: key}, AIDP: m}, nil
}

func aidpType(k canon.Kind) aidp.MsgType {
	switch k {
	case canon.KindAIDPObservation:
		return aidp.OB
	case canon.KindAIDPProblem:
		return aidp.PD
	}
	return aidp.IE
}

func parseExec(body []byte, lim *canon.Limits) (*Parsed, error) {
	in, err := execintent.Parse(body, lim)
	if err != nil {
		return nil, err
	}
	return &Parsed{Document: canon.Document{Kind: canon.KindExecutionIntent, Canonical: in.Canonical(), NaturalKey: in.Key()},
		Exec: in}, nil
}

// parsePAIRL parses and validates one PAIRL message on its own (V1–V3,
// V5, V6, self-cycles, its own budget); Put adds the thread rules. The
// stored bytes are the §8 canonical text.
func parsePAIRL(body []byte, o MessageOptions) (*Parsed, error) {
	m, _, err := pairl.Parse(body, o.PAIRLMode)
	if err != nil {
		return nil, err
	}
	ps := pairl.Validate(m, pairl.Options{Mode: o.PAIRLMode})
	if err := pairl.Err(ps); err != nil {
		return nil, err
	}
	view, err := pairlView(m)
	if err != nil {
		return nil, err
	}
	p := &Parsed{Document: canon.Document{Kind: canon.KindPAIRL, Canonical: m.Canonical(), NaturalKey: m.MID(), View: view},
		PAIRL: m}
	for _, pr := range ps {
		if pr.Severity != pairl.SeverityError {
			p.Warnings = append(p.Warnings, pr)
		}
	}
	return p, nil
}

// pairlView returns the RFC 8785 bytes of m's JSON view.
func pairlView(m *pairl.Message) ([]byte, error) {
	v, err := canon.Canonicalize(nil, canon.AppendValue(nil, m.View()), &canon.Limits{MaxBytes: 1 << 30, MaxDepth: 64, MaxMembers: 1 << 20})
	if err != nil {
		return nil, fmt.Errorf("store: PAIRL view: %w", err)
	}
	return v, nil
}

// viewOf returns the JSON view of a stored body of kind when it is not the
// body itself (PAIRL), else nil. Stored PAIRL is canonical and was valid,
// so it is read in loose mode, which reads whatever strict mode accepted.
func viewOf(kind canon.Kind, body []byte) ([]byte, error) {
	if kind != canon.KindPAIRL {
		return nil, nil
	}
	m, err := parseStoredPAIRL(body)
	if err != nil {
		return nil, err
	}
	return pairlView(m)
}

func parseStoredPAIRL(body []byte) (*pairl.Message, error) {
	m, _, err := pairl.Parse(body, pairl.Loose)
	if err != nil {
		return nil, fmt.Errorf("%w: stored PAIRL message: %v", ErrCorrupt, err)
	}
	return m, nil
}
