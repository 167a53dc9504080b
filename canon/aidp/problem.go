package aidp

import (
	"time"
)

// Problem is the payload of a problem details message (PD, §18.3). Raw is
// the payload as decoded (read-only).
type Problem struct {
	EnvelopeID   string    // "" when not applicable
	Timestamp    time.Time // UTC
	ErrorCode    string    // a §18.3 code or another UPPER_SNAKE_CASE code
	ErrorMessage string
	Details      map[string]any // optional
	Advice       *Advice        // execution_advice; nil when absent
	Raw          map[string]any
}

func parseProblem(p obj) *Problem {
	pd := &Problem{Raw: p.m}
	if _, ok := p.get("envelope_id", false); ok {
		pd.EnvelopeID = p.id("envelope_id")
	}
	pd.Timestamp, _ = p.instant("timestamp", true)
	pd.ErrorCode = p.str("error_code", true)
	if pd.ErrorCode != "" && !isCode(pd.ErrorCode) {
		p.c.fail(p.at("error_code"), "error_code %q is not UPPER_SNAKE_CASE like %s", pd.ErrorCode, CodeMalformedMessage)
	}
	pd.ErrorMessage = p.str("error_message", true)
	pd.Details = p.object("details", false).m
	pd.Advice = parseAdvice(p.object("execution_advice", false))
	return pd
}

// isCode reports whether s is a machine-readable code: the §18.3 list is
// "recommended", not closed (the §22.14 examples add ACCEPTED_ASYNC and
// DELIVERY_OK), so the form is checked rather than the value.
func isCode(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := c >= 'A' && c <= 'Z' || c == '_' && i > 0 || c >= '0' && c <= '9' && i > 0
		if !ok {
			return false
		}
	}
	return s != ""
}
