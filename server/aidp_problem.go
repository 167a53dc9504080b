package server

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/canon/aidp"
	"github.com/aqlstore/aqlstore/store"
)

// codeUnboundObservation is the error_code of an observation refused
// because its envelope is not stored. §18.3's list is open ("recommended
// values") and has no code for it; the draft only says such an
// observation must be rejected (§22.15.5). It is a conflict with the
// store's state, not a malformed message — the same bytes succeed once
// the envelope is stored — so it is 409, like the draft's other
// state conflicts (replay, duplicate delivery).
const codeUnboundObservation = "UNBOUND_OBSERVATION"

// aidpFailure is an AIDP-layer refusal (§22.10): the errors with their
// §18.3 codes and JSON Pointers, and the HTTP status the first code maps
// to.
type aidpFailure struct {
	status     int
	envelopeID string // "" when the message had none (or did not parse)
	errs       []*aidp.Error
}

// writePutFailure writes why storing an AIDP message failed; nothing was
// stored.
func (s *Server) writePutFailure(w http.ResponseWriter, r *http.Request, err error, envelopeID string) {
	f, ok := aidpFailureOf(err, envelopeID)
	if ok {
		s.writeAIDPFailure(w, r, f)
		return
	}
	p := putProblem(err, false)
	if p.status == http.StatusInternalServerError {
		s.cfg.Logger.Error("aidp put", "err", err)
	}
	s.writeProblem(w, r, p)
}

// aidpFailureOf maps a parse or store error to its AIDP code and status;
// ok is false for errors that are not about the message (a conflict with
// another kind, a failing store).
func aidpFailureOf(err error, envelopeID string) (f aidpFailure, ok bool) {
	f.envelopeID = envelopeID
	var (
		re   *store.ReplayError
		me   *store.MessageError
		list aidp.ErrorList
		one  *aidp.Error
	)
	switch {
	case errors.As(err, &re):
		// The replay key is per tenant: the stored content is the caller's
		// own (or public), so naming it leaks nothing.
		f.errs = []*aidp.Error{{Code: aidp.CodeReplayDetected, Pointer: re.Pointer,
			Message: fmt.Sprintf("%s %q is already used by %s; a retry must resend the identical message, new content needs a new %s",
				re.Key, re.Value, re.Existing, re.Key)}}
	case errors.Is(err, store.ErrUnbound) && errors.As(err, &me):
		f.errs = []*aidp.Error{{Code: codeUnboundObservation, Pointer: me.Pointer,
			Message: me.Reason + "; put the intent envelope first, or resend with ?unbound=quarantine (it binds when the envelope arrives)"}}
	case errors.Is(err, aidp.ErrNotBound):
		f.errs = []*aidp.Error{{Code: codeUnboundObservation, Pointer: "/payload/envelope_id", Message: err.Error()}}
	case errors.As(err, &list) && len(list) > 0:
		f.errs = list
	case errors.As(err, &one):
		f.errs = []*aidp.Error{one}
	case errors.Is(err, store.ErrInvalid), errors.Is(err, canon.ErrSyntax), errors.Is(err, canon.ErrInvalidDocument),
		errors.Is(err, canon.ErrLimit), errors.Is(err, canon.ErrDuplicateName), errors.Is(err, canon.ErrInvalidUTF8),
		errors.Is(err, canon.ErrNotCanonicalizable):
		f.errs = []*aidp.Error{{Code: aidp.CodeMalformedMessage, Message: err.Error()}}
	default:
		return f, false
	}
	f.status = http.StatusBadRequest
	if status, mapped := aidp.HTTPStatus(f.errs[0].Code); mapped {
		f.status = status
	} else if f.errs[0].Code == codeUnboundObservation {
		f.status = http.StatusConflict
	}
	return f, true
}

// writeAIDPFailure writes f as an AIDP Problem Details message
// (application/aidp+json; msg=PD, with a proof by the server's key) when
// the client accepts application/aidp+json, as §22.10 carries it; else as
// the server's signed RFC 9457 problem document with the AIDP members
// added (error_code, pointer, errors).
func (s *Server) writeAIDPFailure(w http.ResponseWriter, r *http.Request, f aidpFailure) {
	if !accepts(r, aidp.MediaType) {
		s.writeProblem(w, r, f.problem())
		return
	}
	pd := aidp.NewProblem(f.envelopeID, s.cfg.Now(), f.errs...)
	pd["proof"] = s.aidpProof(pd["payload"])
	writeJSON(w, f.status, aidp.ContentType(aidp.PD), canon.AppendValue(nil, pd))
}

// aidpProof signs an AIDP payload as §17.3 asks: Ed25519 over the RFC
// 8785 bytes of the payload object only, in the §22.14 proof shape.
func (s *Server) aidpProof(payload any) map[string]any {
	sig := s.cfg.Signer.SignMessage(canon.AppendValue(nil, payload))
	return map[string]any{"alg": "ed25519", "kid": s.cfg.Signer.KeyID(), "sig": base64.RawURLEncoding.EncodeToString(sig)}
}

// problem is f as an RFC 9457 problem document: code is the AIDP code in
// lower case, detail the first error with its pointer.
func (f aidpFailure) problem() problem {
	first := f.errs[0]
	list := make([]any, len(f.errs))
	for i, e := range f.errs {
		list[i] = map[string]any{"code": e.Code, "pointer": e.Pointer, "message": e.Message}
	}
	detail := first.Message
	if first.Pointer != "" {
		detail = "at " + first.Pointer + ": " + detail
	}
	p := problem{status: f.status, code: strings.ToLower(first.Code), title: codeTitle(first.Code), detail: detail,
		extra: map[string]any{"error_code": first.Code, "pointer": first.Pointer, "errors": list}}
	if f.envelopeID != "" {
		p.extra["envelope_id"] = f.envelopeID
	}
	return p
}

// codeTitle turns REPLAY_DETECTED into "Replay detected".
func codeTitle(code string) string {
	t := strings.ReplaceAll(strings.ToLower(code), "_", " ")
	if t == "" {
		return "AIDP error"
	}
	return strings.ToUpper(t[:1]) + t[1:]
}

// accepts reports whether the Accept header names media type mt.
func accepts(r *http.Request, mt string) bool {
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		if m, _, _ := strings.Cut(strings.TrimSpace(part), ";"); strings.EqualFold(strings.TrimSpace(m), mt) {
			return true
		}
	}
	return false
}
