package aidp

import (
	"fmt"
	"mime"
	"net/http"
	"strings"
	"time"
)

// MediaType is the AIDP-JS media type (§22.3); its msg parameter names the
// message type: "application/aidp+json; msg=IE".
const MediaType = "application/aidp+json"

// ContentType returns the Content-Type of a message of type t.
func ContentType(t MsgType) string { return MediaType + "; msg=" + string(t) }

// ParseContentType reads a Content-Type header. Another media type is
// UNSUPPORTED_MEDIA_TYPE (415, §22.6), as is an unknown msg parameter; a
// missing msg parameter gives "" (the body's msg_type decides).
func ParseContentType(s string) (MsgType, error) {
	mt, params, err := mime.ParseMediaType(s)
	if err != nil || mt != MediaType {
		return "", &Error{Code: CodeUnsupportedMediaType,
			Message: fmt.Sprintf("Content-Type %q is not %s; AIDP-CB (CBOR) is not supported", s, MediaType)}
	}
	t := MsgType(strings.ToUpper(params["msg"]))
	switch t {
	case "", IE, OB, PD:
		return t, nil
	}
	return "", &Error{Code: CodeUnsupportedMediaType,
		Message: fmt.Sprintf("Content-Type msg=%q is not IE, OB or PD", params["msg"])}
}

// CheckHTTP applies the HTTP binding's correlation rules to a parsed
// message: the Content-Type's msg parameter, when given, must match
// msg_type, and an X-AIDP-Envelope-ID header, when present, must equal
// payload.envelope_id (§22.6.1); a mismatch is MALFORMED_MESSAGE. The
// payload stays authoritative either way.
func CheckHTTP(m *Message, contentType, envelopeIDHeader string) error {
	t, err := ParseContentType(contentType)
	if err != nil {
		return err
	}
	var errs ErrorList
	if t != "" && t != m.Type {
		errs = append(errs, &Error{Code: CodeMalformedMessage, Pointer: "/msg_type",
			Message: fmt.Sprintf("msg_type is %q but Content-Type says msg=%s", m.Type, t)})
	}
	if id := m.envelopeID(); envelopeIDHeader != "" && envelopeIDHeader != id {
		errs = append(errs, &Error{Code: CodeMalformedMessage, Pointer: "/payload/envelope_id",
			Message: fmt.Sprintf("payload.envelope_id %q differs from X-AIDP-Envelope-ID %q", id, envelopeIDHeader)})
	}
	return errs.orNil()
}

// envelopeID returns payload.envelope_id of any message type.
func (m *Message) envelopeID() string {
	switch {
	case m.Envelope != nil:
		return m.Envelope.EnvelopeID
	case m.Observation != nil:
		return m.Observation.EnvelopeID
	case m.Problem != nil:
		return m.Problem.EnvelopeID
	}
	return ""
}

// HTTPStatus returns the HTTP status a Problem Details reply with this
// error code carries (§22.10, and §22.6 for INVALID_CAPABILITY, an AIDP
// authorization failure). ok is false for codes the binding does not map.
func HTTPStatus(code string) (status int, ok bool) {
	switch code {
	case CodeInvalidIdentity, CodeUntrustedIssuer, CodeRevoked, CodeInvalidCapability,
		CodeInvalidDelegationChain, CodeConstraintViolation:
		return http.StatusForbidden, true
	case CodeReplayDetected:
		return http.StatusConflict, true
	case CodeMalformedMessage, CodeUnsupportedVersion:
		return http.StatusBadRequest, true
	case CodeUnsupportedMediaType:
		return http.StatusUnsupportedMediaType, true
	}
	return 0, false
}

// NewProblem builds an unsigned Problem Details message reporting errs (at
// least one): error_code and error_message are the first error's, and
// details.errors lists every error as {code, pointer, message}. The result
// is in canon's value model, ready for canon.AppendValue; it parses as a
// PD. envelopeID may be "" when the message had none.
func NewProblem(envelopeID string, at time.Time, errs ...*Error) map[string]any {
	list := make([]any, len(errs))
	for i, e := range errs {
		list[i] = map[string]any{"code": e.Code, "pointer": e.Pointer, "message": e.Message}
	}
	code, msg := CodeMalformedMessage, "malformed message"
	if len(errs) > 0 && errs[0].Code != "" && errs[0].Message != "" {
		code, msg = errs[0].Code, errs[0].Message
	}
	payload := map[string]any{
		"timestamp":     at.UTC().Format(time.RFC3339Nano),
		"error_code":    code,
		"error_message": msg,
		"details":       map[string]any{"errors": list},
	}
	if envelopeID != "" {
		payload["envelope_id"] = envelopeID
	}
	return map[string]any{"aidp_version": Version, "msg_type": string(PD), "canon": Profile, "payload": payload}
}
