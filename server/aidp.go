package server

import (
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/canon/aidp"
	"github.com/aqlstore/aqlstore/query/sign"
	"github.com/aqlstore/aqlstore/store"
)

// The AIDP-HTTP endpoints of draft §22 (pull mode only: the store keeps
// messages, it executes nothing and pushes nothing).
const (
	pathAIDPIntents      = "/v1/aidp/intents"
	pathAIDPObservations = "/v1/aidp/observations"
	pathAIDPInbox        = "/v1/aidp/inbox"
)

// Inbox page sizes (§22.8: limit 1–100).
const (
	inboxDefaultLimit = 50
	inboxMaxLimit     = 100
)

// handleAIDPIntent answers POST /v1/aidp/intents: store one intent
// envelope (§22.6) under the caller's tenant.
func (s *Server) handleAIDPIntent(w http.ResponseWriter, r *http.Request) {
	s.putAIDP(w, r, aidp.IE)
}

// handleAIDPObservation answers POST /v1/aidp/observations: store one
// observation, bound to its stored envelope, or quarantined until the
// envelope arrives with ?unbound=quarantine.
func (s *Server) handleAIDPObservation(w http.ResponseWriter, r *http.Request) {
	s.putAIDP(w, r, aidp.OB)
}

// putAIDP stores one AIDP message of type want. 201 when it is new, 200
// when the identical message was already stored (idempotent); AIDP-layer
// refusals are written by writeAIDPFailure with the §22.10 status.
func (s *Server) putAIDP(w http.ResponseWriter, r *http.Request, want aidp.MsgType) {
	c, ok := s.requireTenant(w, r)
	if !ok {
		return
	}
	if f := aidpMedia(r, want); f != nil {
		s.writeAIDPFailure(w, r, *f)
		return
	}
	owner, p := s.writeOwner(r, c)
	if p == nil {
		var unbound store.UnboundPolicy
		if unbound, p = unboundPolicy(r, want); p == nil {
			s.storeAIDP(w, r, c, want, owner, unbound)
			return
		}
	}
	s.writeProblem(w, r, *p)
}

// storeAIDP reads, parses and stores the message, then acknowledges it.
func (s *Server) storeAIDP(w http.ResponseWriter, r *http.Request, c caller, want aidp.MsgType, owner string, unbound store.UnboundPolicy) {
	body, release, p := s.readWriteBody(w, r, s.cfg.MaxBodyBytes)
	defer release()
	if p != nil {
		s.writeProblem(w, r, *p)
		return
	}
	parsed, err := s.cfg.Store.Parse(body, want.Kind())
	if err == nil {
		// The Content-Type's msg parameter was checked by aidpMedia and
		// msg_type by Parse; what is left is the envelope id header.
		err = aidp.CheckHTTP(parsed.AIDP, aidp.MediaType, r.Header.Get("X-AIDP-Envelope-ID"))
	}
	envelopeID := ""
	if parsed != nil {
		envelopeID = messageEnvelopeID(parsed.AIDP)
	}
	if err != nil {
		s.writePutFailure(w, r, err, envelopeID)
		return
	}
	ctx := store.WithPrincipal(r.Context(), c.tenant)
	ref, err := s.cfg.Store.Put(ctx, store.Document{Parsed: parsed, Owner: owner, Unbound: unbound})
	if err != nil {
		s.writePutFailure(w, r, err, envelopeID)
		return
	}
	ack, err := s.aidpAck(r, ref, parsed.AIDP)
	if err != nil {
		s.cfg.Logger.Error("aidp put", "err", err)
		s.writeProblem(w, r, storeFailure(err))
		return
	}
	status := http.StatusOK
	if ref.Created {
		status = http.StatusCreated
	}
	if want == aidp.OB {
		w.Header().Set("Location", observationsPath(envelopeID))
	} else {
		w.Header().Set("Location", pathDocuments+"/"+ref.ID.String())
	}
	s.writeSigned(w, status, contentJSON, ack)
}

// aidpAck builds the acknowledgement of a stored message: what was
// stored, whether this request created it (store.Ref.Created), and for
// an observation whether it waits in quarantine for its envelope. It
// claims storage, never execution (§22.6: an acknowledgement must not
// claim success).
func (s *Server) aidpAck(r *http.Request, ref store.Ref, m *aidp.Message) (map[string]any, error) {
	envelopeID := messageEnvelopeID(m)
	ack := map[string]any{"documents": refsDoc([]store.Ref{ref}), "envelope_id": envelopeID,
		"created": ref.Created, "observations": observationsPath(envelopeID), "resolver_did": s.cfg.Signer.DID()}
	if m.Observation == nil {
		return ack, nil
	}
	ack["execution_id"] = m.Observation.ExecutionID
	ctx := store.WithPrincipal(r.Context(), ref.Owner)
	obs, err := s.cfg.Store.ObservationsFor(ctx, envelopeID, true)
	if err != nil {
		return nil, fmt.Errorf("observations of %q: %w", envelopeID, err)
	}
	ack["quarantined"] = false
	for _, o := range obs {
		if o.Doc.Num == ref.Num {
			ack["quarantined"] = o.Quarantined
		}
	}
	return ack, nil
}

// handleAIDPGetObservations answers GET /v1/aidp/observations/{envelope_id}
// (§22.7, pull mode): the latest observation of the envelope that the
// caller may read, as the message itself (application/aidp+json;
// msg=OB); with ?mode=all, every one, oldest first, in a signed list.
// None visible is 404, whether there is none or it is another tenant's.
func (s *Server) handleAIDPGetObservations(w http.ResponseWriter, r *http.Request) {
	c, ok := s.requireTenant(w, r)
	if !ok {
		return
	}
	var all bool
	switch mode := r.URL.Query().Get("mode"); mode {
	case "", "latest":
	case "all":
		all = true
	default:
		s.writeProblem(w, r, badRequest("bad_parameter", "mode must be latest (the default) or all, not "+strconv.Quote(mode)))
		return
	}
	envelopeID := r.PathValue("envelope_id")
	obs, err := s.cfg.Store.ObservationsFor(store.WithPrincipal(r.Context(), c.tenant), envelopeID, all)
	switch {
	case errors.Is(err, store.ErrNotFound):
		s.writeProblem(w, r, notFound("no observation of envelope_id "+strconv.Quote(envelopeID)+
			" that this caller may read (none stored yet, or not yours)"))
		return
	case err != nil:
		s.cfg.Logger.Error("aidp observations", "err", err)
		s.writeProblem(w, r, storeFailure(err))
		return
	}
	if !all {
		writeObservation(w, obs[0])
		return
	}
	items, meta := make([]any, len(obs)), make([]any, len(obs))
	for i, o := range obs {
		if items[i], err = o.Doc.Value(); err != nil {
			s.cfg.Logger.Error("aidp observations", "err", err)
			s.writeProblem(w, r, internalError())
			return
		}
		meta[i] = observationMeta(o)
	}
	s.writeSigned(w, http.StatusOK, contentJSON, map[string]any{"envelope_id": envelopeID, "items": items,
		"observations": meta, "resolver_did": s.cfg.Signer.DID()})
}

// writeObservation writes one stored observation as the AIDP message it
// is: its canonical bytes carry the execution boundary's own proof, so
// the server adds no signature (as GET /storage/documents/{id} does).
func writeObservation(w http.ResponseWriter, o *store.Observation) {
	h := w.Header()
	h.Set("ETag", `"`+o.Doc.ID.String()+`"`)
	h.Set("Aqlstore-Owner", o.Doc.Owner)
	h.Set("Aqlstore-Execution-Id", o.ExecutionID)
	h.Set("Aqlstore-Quarantined", strconv.FormatBool(o.Quarantined))
	if !o.Quarantined {
		h.Set("Aqlstore-Audit-Digest", o.AuditDigest.String())
	}
	writeJSON(w, http.StatusOK, aidp.ContentType(aidp.OB), o.Doc.Body)
}

// observationMeta describes a stored observation beside the message.
func observationMeta(o *store.Observation) map[string]any {
	m := map[string]any{"content_id": o.Doc.ID.String(), "execution_id": o.ExecutionID, "status": string(o.Status),
		"quarantined": o.Quarantined, "owner": o.Doc.Owner}
	if !o.Quarantined {
		m["audit_digest"] = o.AuditDigest.String()
	}
	return m
}

// handleAIDPInbox answers GET /v1/aidp/inbox?cursor=&limit= (§22.8): the
// observations and problem details the caller may read, in arrival
// order, limit (1–100, default 50) at a time, in a signed
// {items, next_cursor, resume_cursor} page. next_cursor is opaque and
// absent on the last page; nothing tells how many there are. resume_cursor
// (queue semantics) is where to poll later for what arrives after the
// page: after its last item, or the cursor given when it is empty. The store's cursor names a
// document number, which counts every tenant's documents, so the reader
// gets it sealed (sign.Sealer).
func (s *Server) handleAIDPInbox(w http.ResponseWriter, r *http.Request) {
	c, ok := s.requireTenant(w, r)
	if !ok {
		return
	}
	q := r.URL.Query()
	limit, p := inboxLimit(q)
	if p != nil {
		s.writeProblem(w, r, *p)
		return
	}
	cursor, err := s.openInboxCursor(q.Get("cursor"))
	var page *store.InboxPage
	if err == nil {
		page, err = s.cfg.Store.Inbox(store.WithPrincipal(r.Context(), c.tenant), cursor, limit, nil)
	}
	switch {
	case errors.Is(err, store.ErrInvalid) || errors.Is(err, sign.ErrUnsealable):
		s.writeProblem(w, r, badRequest("invalid_cursor", "cursor is not one this inbox returned; "+
			"start again without cursor, then pass each page's next_cursor"))
		return
	case err != nil:
		s.cfg.Logger.Error("aidp inbox", "err", err)
		s.writeProblem(w, r, storeFailure(err))
		return
	}
	items := make([]any, len(page.Docs))
	for i, d := range page.Docs {
		if items[i], err = d.Value(); err != nil {
			s.cfg.Logger.Error("aidp inbox", "err", err)
			s.writeProblem(w, r, internalError())
			return
		}
	}
	out := map[string]any{"items": items, "resolver_did": s.cfg.Signer.DID()}
	if page.NextCursor != "" {
		out["next_cursor"] = s.cfg.Signer.Sealer(inboxCursorPurpose).Seal([]byte(page.NextCursor))
	}
	if page.Resume != "" {
		out["resume_cursor"] = s.cfg.Signer.Sealer(inboxCursorPurpose).Seal([]byte(page.Resume))
	}
	s.writeSigned(w, http.StatusOK, contentJSON, out)
}

// inboxCursorPurpose keys the Sealer of inbox cursors.
const inboxCursorPurpose = "aidp inbox cursor"

// openInboxCursor returns the store cursor a sealed next_cursor holds, ""
// for none.
func (s *Server) openInboxCursor(sealed string) (string, error) {
	if sealed == "" {
		return "", nil
	}
	b, err := s.cfg.Signer.Sealer(inboxCursorPurpose).Open(sealed)
	return string(b), err
}

// inboxLimit reads ?limit=: an integer 1–100, default 50.
func inboxLimit(q url.Values) (int, *problem) {
	text := q.Get("limit")
	if text == "" {
		return inboxDefaultLimit, nil
	}
	n, err := strconv.Atoi(text)
	if err != nil || n < 1 || n > inboxMaxLimit {
		p := badRequest("bad_parameter", "limit must be an integer from 1 to 100, not "+strconv.Quote(text))
		p.extra = map[string]any{"parameter": "limit", "minimum": canon.Number("1"), "maximum": canon.Number("100")}
		return 0, &p
	}
	return n, nil
}

// unboundPolicy reads ?unbound=: what to do with an observation whose
// envelope is not stored — reject (the default, 409) or quarantine.
func unboundPolicy(r *http.Request, want aidp.MsgType) (store.UnboundPolicy, *problem) {
	switch v := r.URL.Query().Get("unbound"); {
	case v == "" || v == "reject":
		return store.RejectUnbound, nil
	case v == "quarantine" && want == aidp.OB:
		return store.QuarantineUnbound, nil
	case want != aidp.OB:
		p := badRequest("bad_parameter", "unbound applies to observations (POST "+pathAIDPObservations+"), not to intents")
		return 0, &p
	}
	p := badRequest("bad_parameter", "unbound must be reject (the default) or quarantine")
	return 0, &p
}

// aidpMedia refuses (415, UNSUPPORTED_MEDIA_TYPE) a body that is not
// application/aidp+json (§22.3) with no msg parameter or the endpoint's,
// or application/json; either in UTF-8 only.
func aidpMedia(r *http.Request, want aidp.MsgType) *aidpFailure {
	ct := r.Header.Get("Content-Type")
	mt, params, err := mime.ParseMediaType(ct)
	reason := ""
	switch {
	case err != nil || (mt != contentJSON && mt != aidp.MediaType):
		reason = "is not accepted"
	case params["charset"] != "" && !strings.EqualFold(params["charset"], "utf-8"):
		reason = "is not UTF-8"
	case mt == aidp.MediaType:
		if t, err := aidp.ParseContentType(ct); err != nil {
			reason = "names an unknown msg"
		} else if t != "" && t != want {
			reason = "names msg=" + string(t) + ", but this endpoint takes msg=" + string(want)
		}
	}
	if reason == "" {
		return nil
	}
	return &aidpFailure{status: http.StatusUnsupportedMediaType, errs: []*aidp.Error{{Code: aidp.CodeUnsupportedMediaType,
		Message: "Content-Type " + strconv.Quote(ct) + " " + reason + "; send " + aidp.ContentType(want) + " or " + contentJSON}}}
}

// observationsPath is the pull-mode URL of an envelope's observations.
func observationsPath(envelopeID string) string {
	return pathAIDPObservations + "/" + url.PathEscape(envelopeID)
}

// messageEnvelopeID is payload.envelope_id of an IE or OB.
func messageEnvelopeID(m *aidp.Message) string {
	switch {
	case m == nil:
	case m.Envelope != nil:
		return m.Envelope.EnvelopeID
	case m.Observation != nil:
		return m.Observation.EnvelopeID
	}
	return ""
}
