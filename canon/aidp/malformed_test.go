package aidp

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/aqlstore/aqlstore/canon"
)

// malformedCase is a message built from an example by edits, or given
// raw, and the first problem Parse must report.
type malformedCase struct {
	name  string
	base  string         // example file to start from ("" when raw is set)
	raw   string         // the whole message, for what edits cannot express
	edits map[string]any // JSON Pointer → new value, or deleted
	code  string
	ptr   string // pointer of the first problem
	n     int    // number of problems, 0 meaning 1
}

const (
	baseIE = "ie-19.1.json"
	baseOB = "ob-19.2.json"
	basePD = "pd-19.3.json"
)

func num(s string) canon.Number { return canon.Number(s) }

// link returns a delegation link in canon's value model.
func link(capID, parent string) map[string]any {
	return map[string]any{"cap_id": capID, "issuer": "did:example:authA", "cap_ref": "urn:aidp:cap:authA:" + capID,
		"parent_cap_id": parent, "rev_ref": "urn:aidp:rev:authA:list-01", "link_proof": map[string]any{"sig": "x"}}
}

func chain(links ...map[string]any) []any {
	a := make([]any, len(links))
	for i, l := range links {
		a[i] = l
	}
	return a
}

const (
	chainP = "/payload/delegation_chain"
	consP  = "/payload/constraints/"
)

var malformedCases = []malformedCase{
	// Parsing (§22.16.2 step 2): duplicates are rejected before anything else.
	{name: "not JSON", raw: `{"aidp_version": "1.0-draft",`, code: CodeMalformedMessage, ptr: "/aidp_version"},
	{name: "duplicate header member", raw: `{"aidp_version":"1.0-draft","msg_type":"IE","msg_type":"IE","canon":"AIDP-JS-Canon1","payload":{}}`,
		code: CodeMalformedMessage, ptr: "/msg_type"},
	{name: "duplicate payload member", raw: `{"aidp_version":"1.0-draft","msg_type":"PD","canon":"AIDP-JS-Canon1","payload":{"timestamp":"2026-01-13T09:14:01Z","error_code":"REVOKED","error_code":"REPLAY_DETECTED","error_message":"x"}}`,
		code: CodeMalformedMessage, ptr: "/payload/error_code"},
	{name: "duplicate escaped name", raw: `{"aidp_version":"1.0-draft","msg_type":"PD","canon":"AIDP-JS-Canon1","payload":{"timestamp":"2026-01-13T09:14:01Z","error_code":"REVOKED","error_message":"x","error\u005fmessage":"y"}}`,
		code: CodeMalformedMessage, ptr: "/payload/error_message"},
	{name: "duplicate before unsupported version", raw: `{"aidp_version":"9.9","canon":"AIDP-JS-Canon1","payload":{},"payload":{}}`,
		code: CodeMalformedMessage, ptr: "/payload"},
	{name: "invalid UTF-8", raw: "{\"aidp_version\":\"1.0-draft\",\"msg_type\":\"\xff\"}", code: CodeMalformedMessage, ptr: "/msg_type"},
	{name: "trailing data", raw: `{} {}`, code: CodeMalformedMessage, ptr: ""},
	{name: "not an object", raw: `["IE"]`, code: CodeMalformedMessage, ptr: ""},
	{name: "too deep", raw: `{"payload":` + strings.Repeat("[", 70) + strings.Repeat("]", 70) + `}`,
		code: CodeMalformedMessage, ptr: "/payload" + strings.Repeat("/0", 63)},

	// Version (§17.5): checked alone, before the schema.
	{name: "unsupported aidp_version", base: baseIE, edits: map[string]any{"/aidp_version": "2.0", "/payload/envelope_id": deleted},
		code: CodeUnsupportedVersion, ptr: "/aidp_version"},
	{name: "OCR canon profile", base: baseOB, edits: map[string]any{"/canon": "AIDP-JS-Canonl"}, code: CodeUnsupportedVersion, ptr: "/canon"},

	// Header schema (§17.5).
	{name: "aidp_version missing", base: baseIE, edits: map[string]any{"/aidp_version": deleted}, code: CodeMalformedMessage, ptr: "/aidp_version"},
	{name: "aidp_version a number", base: baseIE, edits: map[string]any{"/aidp_version": num("1")}, code: CodeMalformedMessage, ptr: "/aidp_version"},
	{name: "msg_type unknown", base: baseIE, edits: map[string]any{"/msg_type": "ie"}, code: CodeMalformedMessage, ptr: "/msg_type"},
	{name: "canon missing", base: basePD, edits: map[string]any{"/canon": deleted}, code: CodeMalformedMessage, ptr: "/canon"},
	{name: "payload missing", base: baseIE, edits: map[string]any{"/payload": deleted}, code: CodeMalformedMessage, ptr: "/payload"},
	{name: "payload an array", base: basePD, edits: map[string]any{"/payload": []any{}}, code: CodeMalformedMessage, ptr: "/payload"},
	{name: "unknown header member", base: baseIE, edits: map[string]any{"/signature": "x"}, code: CodeMalformedMessage, ptr: "/signature"},
	{name: "proof without sig", base: baseIE, edits: map[string]any{"/proof/sig": deleted}, code: CodeMalformedMessage, ptr: "/proof/sig"},
	{name: "proof with embedded key", base: baseIE, edits: map[string]any{"/proof/jwk": map[string]any{}}, code: CodeMalformedMessage, ptr: "/proof/jwk"},
	{name: "proof_chain element not an object", base: baseIE, edits: map[string]any{"/proof_chain": []any{"x"}}, code: CodeMalformedMessage, ptr: "/proof_chain/0"},

	// IE payload (§18.1).
	{name: "IE envelope_id missing", base: baseIE, edits: map[string]any{"/payload/envelope_id": deleted}, code: CodeMalformedMessage, ptr: "/payload/envelope_id"},
	{name: "IE envelope_id empty", base: baseIE, edits: map[string]any{"/payload/envelope_id": ""}, code: CodeMalformedMessage, ptr: "/payload/envelope_id"},
	{name: "IE envelope_id holds NUL", base: baseIE, edits: map[string]any{"/payload/envelope_id": "a\x00b"}, code: CodeMalformedMessage, ptr: "/payload/envelope_id"},
	{name: "IE timestamp without offset", base: baseIE, edits: map[string]any{"/payload/timestamp": "2026-01-13T09:14:00"}, code: CodeMalformedMessage, ptr: "/payload/timestamp"},
	{name: "IE timestamp OCR spaces", base: baseIE, edits: map[string]any{"/payload/timestamp": "2026-01-13T09: 14: 00+02: 00"}, code: CodeMalformedMessage, ptr: "/payload/timestamp"},
	{name: "IE timestamp February 30", base: baseIE, edits: map[string]any{"/payload/timestamp": "2026-02-30T09:14:00Z"}, code: CodeMalformedMessage, ptr: "/payload/timestamp"},
	{name: "actor_ref unknown member", base: baseIE, edits: map[string]any{"/payload/actor_ref/role": "admin"}, code: CodeMalformedMessage, ptr: "/payload/actor_ref/role"},
	{name: "actor_ref agent_id a number", base: baseIE, edits: map[string]any{"/payload/actor_ref/agent_id": num("7")}, code: CodeMalformedMessage, ptr: "/payload/actor_ref/agent_id"},
	{name: "actor_ref not an object", base: baseIE, edits: map[string]any{"/payload/actor_ref": "agent:alpha"}, code: CodeMalformedMessage, ptr: "/payload/actor_ref"},
	{name: "authority_ref rev_ref missing", base: baseIE, edits: map[string]any{"/payload/authority_ref/rev_ref": deleted}, code: CodeMalformedMessage, ptr: "/payload/authority_ref/rev_ref"},
	{name: "authority_ref unknown member", base: baseIE, edits: map[string]any{"/payload/authority_ref/scope": "*"}, code: CodeMalformedMessage, ptr: "/payload/authority_ref/scope"},
	{name: "intent_body target domain missing", base: baseIE, edits: map[string]any{"/payload/intent_body/target/domain": deleted}, code: CodeMalformedMessage, ptr: "/payload/intent_body/target/domain"},
	{name: "intent_body parameters an array", base: baseIE, edits: map[string]any{"/payload/intent_body/parameters": []any{}}, code: CodeMalformedMessage, ptr: "/payload/intent_body/parameters"},
	{name: "constraints missing", base: baseIE, edits: map[string]any{"/payload/constraints": deleted}, code: CodeMalformedMessage, ptr: "/payload/constraints"},
	{name: "max_uses a fraction", base: baseIE, edits: map[string]any{consP + "max_uses": num("1.5")}, code: CodeMalformedMessage, ptr: consP + "max_uses"},
	{name: "max_uses negative", base: baseIE, edits: map[string]any{consP + "max_uses": num("-1")}, code: CodeMalformedMessage, ptr: consP + "max_uses"},
	{name: "max_cost a string", base: baseIE, edits: map[string]any{consP + "max_cost": "50"}, code: CodeMalformedMessage, ptr: consP + "max_cost"},
	{name: "risk_tier outside the enum", base: baseIE, edits: map[string]any{consP + "risk_tier": "medium"}, code: CodeMalformedMessage, ptr: consP + "risk_tier"},
	{name: "not_after not a timestamp", base: baseIE, edits: map[string]any{consP + "not_after": "tomorrow"}, code: CodeMalformedMessage, ptr: consP + "not_after"},
	{name: "delegation_chain missing", base: baseIE, edits: map[string]any{chainP: deleted}, code: CodeMalformedMessage, ptr: chainP},
	{name: "delegation link not an object", base: baseIE, edits: map[string]any{chainP: []any{"cap:B1"}}, code: CodeMalformedMessage, ptr: chainP + "/0"},
	{name: "delegation link without link_proof", base: baseIE, edits: map[string]any{chainP: chain(link("cap:alpha:pay-v1", "cap:A0")),
		chainP + "/0/link_proof": deleted}, code: CodeMalformedMessage, ptr: chainP + "/0/link_proof"},
	{name: "delegation link unknown member", base: baseIE, edits: map[string]any{chainP: chain(link("cap:alpha:pay-v1", "cap:A0")),
		chainP + "/0/scope": "*"}, code: CodeMalformedMessage, ptr: chainP + "/0/scope"},
	{name: "observability_hooks missing", base: baseIE, edits: map[string]any{"/payload/observability_hooks": deleted}, code: CodeMalformedMessage, ptr: "/payload/observability_hooks"},
	{name: "push without return_to", base: baseIE, edits: map[string]any{"/payload/observability_hooks/return_to": deleted}, code: CodeMalformedMessage, ptr: "/payload/observability_hooks/return_to"},
	{name: "delivery_mode outside the enum", base: baseIE, edits: map[string]any{"/payload/observability_hooks/delivery_mode": "email"}, code: CodeMalformedMessage, ptr: "/payload/observability_hooks/delivery_mode"},
	{name: "required_fields element a number", base: baseIE, edits: map[string]any{"/payload/observability_hooks/required_fields/1": num("2")}, code: CodeMalformedMessage, ptr: "/payload/observability_hooks/required_fields/1"},

	// OB payload (§18.2).
	{name: "OB execution_id missing", base: baseOB, edits: map[string]any{"/payload/execution_id": deleted}, code: CodeMalformedMessage, ptr: "/payload/execution_id"},
	{name: "OB status outside the enum", base: baseOB, edits: map[string]any{"/payload/status": "done"}, code: CodeMalformedMessage, ptr: "/payload/status"},
	{name: "OB result missing", base: baseOB, edits: map[string]any{"/payload/result": deleted}, code: CodeMalformedMessage, ptr: "/payload/result"},
	{name: "OB side_effects an object", base: baseOB, edits: map[string]any{"/payload/side_effects": map[string]any{}}, code: CodeMalformedMessage, ptr: "/payload/side_effects"},
	{name: "OB attestation decision outside the enum", base: baseOB, edits: map[string]any{"/payload/attestation/decision": "ok"}, code: CodeMalformedMessage, ptr: "/payload/attestation/decision"},
	{name: "OB attestation unknown member", base: baseOB, edits: map[string]any{"/payload/attestation/note": "trust me"}, code: CodeMalformedMessage, ptr: "/payload/attestation/note"},
	{name: "OB attestation policy_digest missing", base: baseOB, edits: map[string]any{"/payload/attestation/policy_digest": deleted}, code: CodeMalformedMessage, ptr: "/payload/attestation/policy_digest"},
	{name: "OB unsigned", base: baseOB, edits: map[string]any{"/proof": deleted}, code: CodeMalformedMessage, ptr: "/proof"},
	{name: "OB execution_advice retriable a string", base: baseOB, edits: map[string]any{"/payload/execution_advice": map[string]any{"retriable": "yes"}}, code: CodeMalformedMessage, ptr: "/payload/execution_advice/retriable"},

	// PD payload (§18.3).
	{name: "PD timestamp missing", base: basePD, edits: map[string]any{"/payload/timestamp": deleted}, code: CodeMalformedMessage, ptr: "/payload/timestamp"},
	{name: "PD error_message missing", base: basePD, edits: map[string]any{"/payload/error_message": deleted}, code: CodeMalformedMessage, ptr: "/payload/error_message"},
	{name: "PD error_code OCR form", base: basePD, edits: map[string]any{"/payload/error_code": "REPLAY DETECTED"}, code: CodeMalformedMessage, ptr: "/payload/error_code"},
	{name: "PD details a string", base: basePD, edits: map[string]any{"/payload/details": "revoked"}, code: CodeMalformedMessage, ptr: "/payload/details"},

	// Semantics (§22.16.2 steps 8 and 10, §11.6.7).
	{name: "chain self-delegation", base: baseIE, edits: map[string]any{chainP: chain(link("cap:alpha:pay-v1", "cap:alpha:pay-v1"))},
		code: CodeInvalidDelegationChain, ptr: chainP + "/0/parent_cap_id"},
	{name: "chain duplicate capability", base: baseIE, edits: map[string]any{chainP: chain(link("cap:alpha:pay-v1", "cap:A0"), link("cap:alpha:pay-v1", "cap:B1"))},
		code: CodeInvalidDelegationChain, ptr: chainP + "/1/cap_id"},
	{name: "chain fork", base: baseIE, edits: map[string]any{chainP: chain(link("cap:alpha:pay-v1", "cap:A0"), link("cap:B2", "cap:A0"))},
		code: CodeInvalidDelegationChain, ptr: chainP + "/1/parent_cap_id"},
	{name: "chain broken", base: baseIE, edits: map[string]any{chainP: chain(link("cap:B1", "cap:A0"), link("cap:alpha:pay-v1", "cap:X9"))},
		code: CodeInvalidDelegationChain, ptr: chainP + "/1/parent_cap_id"},
	{name: "chain cycle", base: baseIE, edits: map[string]any{chainP: chain(link("cap:alpha:pay-v1", "cap:B1"), link("cap:B1", "cap:alpha:pay-v1"))},
		code: CodeInvalidDelegationChain, ptr: chainP + "/0/parent_cap_id", n: 2},
	{name: "chain unrelated to authority_ref", base: baseIE, edits: map[string]any{chainP: chain(link("cap:B1", "cap:A0"))},
		code: CodeInvalidDelegationChain, ptr: "/payload/authority_ref/cap_id"},
	{name: "empty time window", base: baseIE, edits: map[string]any{consP + "not_before": "2026-01-13T09:20:00+02:00"},
		code: CodeConstraintViolation, ptr: consP + "not_after"},
	{name: "expired before issued", base: baseIE, edits: map[string]any{consP + "not_before": deleted, consP + "not_after": "2026-01-13T07:13:59Z"},
		code: CodeConstraintViolation, ptr: consP + "not_after"},
	{name: "max_uses zero", base: baseIE, edits: map[string]any{consP + "max_uses": num("0")}, code: CodeConstraintViolation, ptr: consP + "max_uses"},
	{name: "OB success without authorization", base: baseOB, edits: map[string]any{"/payload/attestation/decision": "revoked"}, code: CodeMalformedMessage, ptr: "/payload/status"},
}

// TestMalformed: each malformed message gets the right code and pointer.
func TestMalformed(t *testing.T) {
	if len(malformedCases) < 25 {
		t.Errorf("only %d malformed cases", len(malformedCases))
	}
	for _, tc := range malformedCases {
		t.Run(tc.name, func(t *testing.T) {
			l := parseErrors(t, tc.message(t))
			if l[0].Code != tc.code || l[0].Pointer != tc.ptr {
				t.Errorf("got %v\nwant %s at %q", l, tc.code, tc.ptr)
			}
			if n := max(tc.n, 1); len(l) != n {
				t.Errorf("%d problems, want %d: %v", len(l), n, l)
			}
			if !errors.Is(l, Sentinel(tc.code)) {
				t.Errorf("errors.Is(err, sentinel of %s) is false", tc.code)
			}
		})
	}
}

// message builds the case's bytes; edits apply parents first, so a case
// can replace an array and then edit inside it.
func (tc malformedCase) message(t *testing.T) []byte {
	if tc.raw != "" {
		return []byte(tc.raw)
	}
	doc := decodeExample(t, tc.base)
	ptrs := make([]string, 0, len(tc.edits))
	for p := range tc.edits {
		ptrs = append(ptrs, p)
	}
	slices.SortFunc(ptrs, func(a, b string) int { return len(a) - len(b) })
	for _, p := range ptrs {
		edit(t, doc, p, tc.edits[p])
	}
	return encode(doc)
}

func parseErrors(t *testing.T, b []byte) ErrorList {
	t.Helper()
	m, err := Parse(b, nil)
	if err == nil {
		t.Fatalf("accepted: %s (%s)", b, m.Type)
	}
	var l ErrorList
	if !errors.As(err, &l) || len(l) == 0 {
		t.Fatalf("error %T %v, want a non-empty ErrorList", err, err)
	}
	return l
}

// TestAllProblemsListed: one stage reports every problem it finds, in a
// stable order.
func TestAllProblemsListed(t *testing.T) {
	doc := decodeExample(t, baseIE)
	edit(t, doc, "/payload/envelope_id", num("1"))
	edit(t, doc, "/payload/actor_ref/role", "x")
	edit(t, doc, "/payload/actor_ref/agent_id", deleted)
	edit(t, doc, "/payload/constraints/risk_tier", "extreme")
	edit(t, doc, "/extra", true)
	want := []string{"/extra", "/payload/envelope_id", "/payload/actor_ref/role", "/payload/actor_ref/agent_id",
		"/payload/constraints/risk_tier"}
	for range 3 {
		l := parseErrors(t, encode(doc))
		var got []string
		for _, e := range l {
			got = append(got, e.Pointer)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("pointers %v\nwant %v", got, want)
		}
	}
}

// TestDelegationChains: chains that are one path through the exercised
// capability validate in any array order.
func TestDelegationChains(t *testing.T) {
	for _, tc := range []struct {
		name  string
		links []any
	}{
		{"one link, authority is the leaf", chain(link("cap:alpha:pay-v1", "cap:A0"))},
		{"one link, authority is the root's parent", chain(link("cap:B1", "cap:alpha:pay-v1"))},
		{"root first", chain(link("cap:B1", "cap:A0"), link("cap:C2", "cap:B1"), link("cap:alpha:pay-v1", "cap:C2"))},
		{"leaf first", chain(link("cap:alpha:pay-v1", "cap:C2"), link("cap:C2", "cap:B1"), link("cap:B1", "cap:A0"))},
		{"shuffled", chain(link("cap:C2", "cap:B1"), link("cap:alpha:pay-v1", "cap:C2"), link("cap:B1", "cap:A0"))},
	} {
		doc := decodeExample(t, baseIE)
		edit(t, doc, chainP, tc.links)
		m, err := Parse(encode(doc), nil)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if len(m.Envelope.DelegationChain) != len(tc.links) {
			t.Errorf("%s: %d links", tc.name, len(m.Envelope.DelegationChain))
		}
	}
}
