package aql

import (
	"regexp"
	"strings"
	"time"

	"github.com/aqlstore/aqlstore/canon"
)

// schemaPattern is a pattern of the schema: its text as the schema writes
// it, for messages, and a Go translation with the same meaning.
type schemaPattern struct {
	text string
	re   *regexp.Regexp
}

// The schema's patterns. JSON Schema patterns are ECMA-262, whose "."
// excludes every line terminator; Go's excludes only "\n", so the class is
// written out to keep the schema's meaning.
var (
	intentIDPattern = &schemaPattern{`^urn:oap:intent:.+$`, regexp.MustCompile(`^urn:oap:intent:[^\n\r\x{2028}\x{2029}]+$`)}
	didPattern      = &schemaPattern{`^did:[a-z0-9]+:.+$`, regexp.MustCompile(`^did:[a-z0-9]+:[^\n\r\x{2028}\x{2029}]+$`)}
	amountPattern   = &schemaPattern{`^\d+(?:\.\d+)?$`, regexp.MustCompile(`^[0-9]+(?:\.[0-9]+)?$`)}
	currencyPattern = &schemaPattern{`^[A-Z]{3,5}$`, regexp.MustCompile(`^[A-Z]{3,5}$`)}
)

const (
	didHint      = `a DID such as "did:web:agent.example"`
	instantHint  = `an RFC 3339 date-time such as "2026-05-03T00:00:00Z"`
	currencyHint = `an ISO 4217 code or crypto symbol of 3 to 5 capitals, such as "EUR"`
)

var intentShape = &shape{what: "the intent", fields: []field{
	{"intent_id", true, `"urn:oap:intent:" followed by an id unique to the issuer`},
	{"issuer_did", true, didHint},
	{"agent_did", false, didHint},
	{"delegation_chain", false, "an array of delegation tokens"},
	{"category", true, "one of " + strings.Join(categories, ", ")},
	{"constraints", true, `a constraint tree, e.g. {"path": "/category", "operator": "eq", "value": "running_shoes"}`},
	{"projection", true, `{"include": ["/id", ...]}, the pointers the response must contain`},
	{"budget", false, `{"amount": "10.00", "currency": "EUR", "allocation": "single_winner"}`},
	{"quality_floor", false, `{"performance_score": 0.8}`},
	{"validity", true, `{"from": ..., "to": ...}, each ` + instantHint},
	{"resolution_policy", false, "one of single_best, ranked_set, full_set"},
	{"max_event_rate_per_minute", false, "an integer of at least 1"},
	{"payment_constraints", false, "the RFC 0020 B.1 block"},
	{"signature", true, `{"alg": "EdDSA", "value": "<base64url signature>"}`},
}}

var categories = []string{string(CategoryCommercial), string(CategoryKnowledge), string(CategoryAction),
	string(CategoryDelegation), string(CategoryDiscovery), string(CategorySubscription)}

// intentMembers check and compile the top-level members, in schema order.
var intentMembers = []struct {
	name  string
	check func(c *checker, v any, ptr string, in *Intent)
}{
	{"intent_id", (*checker).intentID},
	{"issuer_did", (*checker).issuerDID},
	{"agent_did", (*checker).agentDID},
	{"delegation_chain", (*checker).delegationChain},
	{"category", (*checker).category},
	{"constraints", (*checker).constraints},
	{"projection", (*checker).projection},
	{"budget", (*checker).budget},
	{"quality_floor", (*checker).qualityFloor},
	{"validity", (*checker).validity},
	{"resolution_policy", (*checker).resolutionPolicy},
	{"max_event_rate_per_minute", (*checker).eventRate},
	{"payment_constraints", (*checker).payment},
	{"signature", (*checker).signature},
}

// intent checks and compiles a whole decoded intent.
func (c *checker) intent(v any) *Intent {
	m, ok := c.object(v, "", "an intent")
	if !ok {
		return nil
	}
	c.members(m, "", intentShape)
	in := &Intent{Document: m, ResolutionPolicy: "ranked_set"}
	for _, mb := range intentMembers {
		if x, ok := m[mb.name]; ok {
			mb.check(c, x, child("", mb.name), in)
		}
	}
	c.categoryRules(m, in)
	return in
}

// categoryRules are the rules that tie a member to the category: RFC 0020
// text and Appendix B.1, which the schema cannot say.
func (c *checker) categoryRules(m map[string]any, in *Intent) {
	if _, ok := m["max_event_rate_per_minute"]; !ok && in.Category == CategorySubscription {
		c.rulef("/max_event_rate_per_minute", CodeMissingField,
			"a subscription intent needs max_event_rate_per_minute: add the highest event rate you accept, e.g. 60")
	}
	if _, ok := m["payment_constraints"]; ok && in.Category != "" && in.Category != CategoryCommercial {
		c.rulef("/payment_constraints", CodeExtraField,
			"payment_constraints is allowed only on category commercial (RFC 0020 Appendix B.1), not on %s; remove it or change the category", in.Category)
	}
}

func (c *checker) intentID(v any, ptr string, in *Intent) {
	in.IntentID, _ = c.pattern(v, ptr, "intent_id", intentIDPattern, `"urn:oap:intent:" followed by an id unique to the issuer`)
}

func (c *checker) issuerDID(v any, ptr string, in *Intent) {
	in.IssuerDID, _ = c.pattern(v, ptr, "issuer_did", didPattern, didHint)
}

func (c *checker) agentDID(v any, ptr string, in *Intent) {
	in.AgentDID, _ = c.pattern(v, ptr, "agent_did", didPattern, didHint)
}

func (c *checker) delegationChain(v any, ptr string, in *Intent) {
	a, ok := v.([]any)
	if !ok {
		c.schemaf(ptr, CodeBadType, "delegation_chain must be an array of delegation tokens (objects), not %s", describe(v))
		return
	}
	for i, e := range a {
		c.object(e, elem(ptr, i), "a delegation token")
	}
	in.DelegationChain = a
}

func (c *checker) category(v any, ptr string, in *Intent) {
	s, _ := c.enum(v, ptr, "category", categories...)
	in.Category = Category(s)
}

func (c *checker) resolutionPolicy(v any, ptr string, in *Intent) {
	if s, ok := c.enum(v, ptr, "resolution_policy", "single_best", "ranked_set", "full_set"); ok {
		in.ResolutionPolicy = s
	}
}

// eventRate reads max_event_rate_per_minute, bounded by the resolver's
// MaxEventRate: a subscription's rate window remembers every event of
// the last minute, so the rate is what a subscription may cost.
func (c *checker) eventRate(v any, ptr string, in *Intent) {
	n, ok := c.integer(v, ptr, "max_event_rate_per_minute", 1)
	if ok && n > c.o.MaxEventRate {
		c.rulef(ptr, CodeLimit, "max_event_rate_per_minute %d is over the limit of %d events per minute (Options.MaxEventRate, serve --max-events-per-minute); ask for at most %d (changes beyond the rate are coalesced, never lost)",
			n, c.o.MaxEventRate, c.o.MaxEventRate)
		return
	}
	in.MaxEventRatePerMinute = n
}

var projectionShape = &shape{what: "projection", fields: []field{
	{"include", true, `the pointers the response must contain, e.g. ["/id"]`},
	{"exclude", false, "the pointers the response must not contain"},
}}

func (c *checker) projection(v any, ptr string, in *Intent) {
	m, ok := c.object(v, ptr, "projection")
	if !ok {
		return
	}
	c.members(m, ptr, projectionShape)
	if x, ok := m["include"]; ok {
		in.Projection.Include = c.pointers(x, child(ptr, "include"), "projection.include", 1, true)
	}
	if x, ok := m["exclude"]; ok {
		in.Projection.Exclude = c.pointers(x, child(ptr, "exclude"), "projection.exclude", 0, false)
	}
}

// pointers compiles an array of at least min projection pointers;
// include pointers may not name an array element by position (include.go).
func (c *checker) pointers(v any, ptr, what string, min int, include bool) []*canon.Pointer {
	a, ok := v.([]any)
	if !ok {
		c.schemaf(ptr, CodeBadType, `%s must be an array of JSON Pointers such as ["/id"], not %s`, what, describe(v))
		return nil
	}
	if len(a) < min {
		c.schemaf(ptr, CodeBadValue, `%s must list at least %d pointer, e.g. ["/id"]`, what, min)
	}
	out := make([]*canon.Pointer, 0, len(a))
	for i, e := range a {
		if s, ok := c.str(e, elem(ptr, i), what+" element"); ok {
			p := c.pointer(s, elem(ptr, i))
			if include && p != nil {
				if why := IncludeByPosition(p); why != "" {
					c.rulef(elem(ptr, i), CodeBadPointer, "%s", why)
				}
			}
			out = append(out, p)
		}
	}
	return out
}

// pointer compiles an extended JSON Pointer, naming a crossed limit as a
// limit rather than as a malformed pointer.
func (c *checker) pointer(s, ptr string) *canon.Pointer {
	lim := c.o.PointerLimits
	if len(s) > lim.MaxBytes {
		c.rulef(ptr, CodeLimit, "pointer is %d bytes, over the limit of %d (Options.PointerLimits.MaxBytes); shorten it (** reaches deep fields)", len(s), lim.MaxBytes)
		return nil
	}
	if n := strings.Count(s, "/"); n > lim.MaxSegments {
		c.rulef(ptr, CodeLimit, "pointer has %d segments, over the limit of %d (Options.PointerLimits.MaxSegments); shorten it (** reaches deep fields)", n, lim.MaxSegments)
		return nil
	}
	p, err := canon.ParsePointerLimits(s, lim)
	if err != nil {
		c.rulef(ptr, CodeBadPointer, "%s", strings.TrimPrefix(err.Error(), "canon: "))
	}
	return p
}

var validityShape = &shape{what: "validity", fields: []field{
	{"from", true, instantHint},
	{"to", true, instantHint},
}}

func (c *checker) validity(v any, ptr string, in *Intent) {
	m, ok := c.object(v, ptr, "validity")
	if !ok {
		return
	}
	c.members(m, ptr, validityShape)
	from, okFrom := c.dateTime(m, ptr, "from")
	to, okTo := c.dateTime(m, ptr, "to")
	if okFrom && okTo && !to.After(from) {
		c.rulef(ptr, CodeBadInterval, "validity.to (%s) must be after validity.from (%s); swap them or widen the window",
			formatInstant(to), formatInstant(from))
	}
	in.Validity = Validity{From: from, To: to}
}

// dateTime reads member name of m as an RFC 3339 date-time (the schema's
// "format": "date-time").
func (c *checker) dateTime(m map[string]any, ptr, name string) (time.Time, bool) {
	v, ok := m[name]
	if !ok {
		return time.Time{}, false
	}
	ptr = child(ptr, name)
	s, ok := c.str(v, ptr, "validity."+name)
	if !ok {
		return time.Time{}, false
	}
	t, ok := ParseInstant(s)
	if !ok {
		c.schemaf(ptr, CodeBadValue, "validity.%s %s is not an RFC 3339 date-time; write e.g. \"2026-05-03T00:00:00Z\" (date, \"T\", time, then \"Z\" or an offset such as +02:00)",
			name, quoteShort(s))
	}
	return t, ok
}

var signatureShape = &shape{what: "signature", fields: []field{
	{"alg", true, "one of EdDSA, ES256, ES384"},
	{"value", true, "the signature, a string"},
	{"kid", false, "the signing key's id"},
}}

func (c *checker) signature(v any, ptr string, in *Intent) {
	m, ok := c.object(v, ptr, "signature")
	if !ok {
		return
	}
	c.members(m, ptr, signatureShape)
	if x, ok := m["alg"]; ok {
		in.Signature.Alg, _ = c.enum(x, child(ptr, "alg"), "signature.alg", "EdDSA", "ES256", "ES384")
	}
	if x, ok := m["value"]; ok {
		in.Signature.Value, _ = c.str(x, child(ptr, "value"), "signature.value")
	}
	if x, ok := m["kid"]; ok {
		in.Signature.Kid, _ = c.str(x, child(ptr, "kid"), "signature.kid")
	}
}
