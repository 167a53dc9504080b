package aql

import (
	"slices"
	"strings"
	"testing"

	"github.com/aqlstore/aqlstore/canon"
)

// badCase is an invalid intent and the exact problems Parse must report.
type badCase struct {
	name  string
	base  string // fixture under testdata/valid; all-operators.json when empty
	edits []edit // applied to the base
	raw   string // the whole intent, instead of base and edits
	opts  *Options
	want  []string // "pointer code", any order
	// ext marks an intent using an extension of the published schema
	// (top-level constraints array, not over an array,
	// payment_constraints): the schema differential skips it.
	ext bool
}

const a = "/constraints/all_of/"

// badCases is the table shared by TestParseBad and the schema
// differential. Indices into all_of refer to all-operators.json.
var badCases = []badCase{
	// Operators and paths.
	{name: "unknown operator", edits: []edit{set(a+"1/operator", `"starts_with"`)}, want: []string{a + "1/operator unknown_operator"}},
	{name: "operator not a string", edits: []edit{set(a+"1/operator", `5`)}, want: []string{a + "1/operator bad_type"}},
	{name: "operator missing", edits: []edit{del(a + "1/operator")}, want: []string{a + "1/operator missing_field"}},
	{name: "operator inside not", edits: []edit{set(a+"11/not/operator", `"like"`)}, want: []string{a + "11/not/operator unknown_operator"}},
	{name: "path without leading slash", edits: []edit{set(a+"0/path", `"sku"`)}, want: []string{a + "0/path bad_pointer"}},
	{name: "path empty", edits: []edit{set(a+"0/path", `""`)}, want: []string{a + "0/path bad_pointer"}},
	{name: "path bad escape", edits: []edit{set(a+"0/path", `"/a~2b"`)}, want: []string{a + "0/path bad_pointer"}},
	{name: "path not a string", edits: []edit{set(a+"0/path", `["sku"]`)}, want: []string{a + "0/path bad_type"}},
	{name: "path over PointerLimits.MaxBytes", base: "minimal.json", edits: []edit{set("/constraints/path", `"/a/long/path"`)},
		opts: &Options{PointerLimits: canon.PointerLimits{MaxBytes: 8}}, want: []string{"/constraints/path limit"}},
	{name: "path over default MaxSegments", edits: []edit{set(a+"0/path", `"`+strings.Repeat("/a", 65)+`"`)}, want: []string{a + "0/path limit"}},

	// Operand types per operator.
	{name: "in needs an array", edits: []edit{set(a+"4/value", `"EU"`)}, want: []string{a + "4/value bad_type"}},
	{name: "not_in needs an array", edits: []edit{set(a+"14/value", `{"parts": true}`)}, want: []string{a + "14/value bad_type"}},
	{name: "exists needs a boolean", edits: []edit{set(a+"9/value", `"yes"`)}, want: []string{a + "9/value bad_type"}},
	{name: "matches needs a string", edits: []edit{set(a+"6/value", `42`)}, want: []string{a + "6/value bad_type"}},
	{name: "matches unclosed group", edits: []edit{set(a+"6/value", `"^(Lap"`)}, want: []string{a + "6/value bad_regex"}},
	{name: "matches reversed range", edits: []edit{set(a+"6/value", `"[z-a]"`)}, want: []string{a + "6/value bad_regex"}},
	{name: "matches over MaxRegexBytes", opts: &Options{MaxRegexBytes: 8}, want: []string{a + "6/value limit"}},
	{name: "lt with a boolean", edits: []edit{set(a+"2/value", `true`)}, want: []string{a + "2/value bad_type"}},
	{name: "gt with a word", edits: []edit{set(a+"10/any_of/0/value", `"high"`)}, want: []string{a + "10/any_of/0/value bad_value"}},
	{name: "lte with a date only", edits: []edit{set(a+"15/value", `"2026-05-01"`)}, want: []string{a + "15/value bad_value"}},
	{name: "gte with a number beyond apd", edits: []edit{set(a+"3/value", `1e999999`)}, want: []string{a + "3/value bad_value"}},
	{name: "before with a number", edits: []edit{set(a+"7/value", `20300101`)}, want: []string{a + "7/value bad_type"}},
	{name: "after with a word", edits: []edit{set(a+"12/value", `"yesterday"`)}, want: []string{a + "12/value bad_value"}},
	{name: "before February 30th", edits: []edit{set(a+"7/value", `"2026-02-30T00:00:00Z"`)}, want: []string{a + "7/value bad_value"}},
	{name: "within three bounds", edits: []edit{set(a+"8/value", `["2026-01-01T00:00:00Z", "2026-06-01T00:00:00Z", "2026-12-01T00:00:00Z"]`)},
		want: []string{a + "8/value bad_interval"}},
	{name: "within reversed", edits: []edit{set(a+"8/value", `["2026-12-31T00:00:00Z", "2026-01-01T00:00:00Z"]`)}, want: []string{a + "8/value bad_interval"}},
	{name: "within bad bounds", edits: []edit{set(a+"8/value", `["2026-01-01", 5]`)}, want: []string{a + "8/value/0 bad_interval", a + "8/value/1 bad_interval"}},
	{name: "within a string", edits: []edit{set(a+"8/value", `"2026"`)}, want: []string{a + "8/value bad_type"}},
	{name: "outside object without to", edits: []edit{set(a+"13/value", `{"from": "2026-03-01T00:00:00Z"}`)}, want: []string{a + "13/value/to missing_field"}},
	{name: "outside object with extra member", edits: []edit{set(a+"13/value/tz", `"UTC"`)}, want: []string{a + "13/value/tz extra_field"}},

	// Tree shape.
	{name: "constraints missing", edits: []edit{del("/constraints")}, want: []string{"/constraints missing_field"}},
	{name: "all_of empty", edits: []edit{set("/constraints/all_of", `[]`)}, want: []string{"/constraints/all_of bad_value"}},
	{name: "any_of not an array", edits: []edit{set(a+"10/any_of", `{"path": "/x", "operator": "eq", "value": 1}`)}, want: []string{a + "10/any_of bad_type"}},
	{name: "two combinators in one node", edits: []edit{set("/constraints/any_of", `[{"path": "/x", "operator": "exists", "value": true}]`)},
		want: []string{"/constraints/any_of extra_field"}},
	{name: "leaf missing value", edits: []edit{del(a + "0/value")}, want: []string{a + "0/value missing_field"}},
	{name: "leaf extra member", edits: []edit{set(a+"0/note", `"x"`)}, want: []string{a + "0/note extra_field"}},
	{name: "node is a string", edits: []edit{set(a+"0", `"sku = LT-2040"`)}, want: []string{a + "0 bad_type"}},
	{name: "node is an empty object", edits: []edit{set(a+"0", `{}`)}, want: []string{a + "0 missing_field"}},
	{name: "node with unknown members only", edits: []edit{set(a+"0", `{"field": "/sku", "equals": "x"}`)},
		want: []string{a + "0 missing_field", a + "0/equals extra_field", a + "0/field extra_field"}},
	{name: "not with extra member", edits: []edit{set(a+"11/why", `"x"`)}, want: []string{a + "11/why extra_field"}},
	{name: "not over an empty array", edits: []edit{set(a+"11/not", `[]`)}, want: []string{a + "11/not bad_value"}, ext: true},
	{name: "top-level array with a bad leaf", base: "array-constraints.json", edits: []edit{set("/constraints/0/operator", `"is"`)},
		want: []string{"/constraints/0/operator unknown_operator"}, ext: true},
	{name: "top-level empty array", base: "array-constraints.json", edits: []edit{set("/constraints", `[]`)}, want: []string{"/constraints bad_value"}, ext: true},

	// Identity and category.
	{name: "intent_id missing", edits: []edit{del("/intent_id")}, want: []string{"/intent_id missing_field"}},
	{name: "intent_id not a URN", edits: []edit{set("/intent_id", `"intent-42"`)}, want: []string{"/intent_id bad_pattern"}},
	{name: "intent_id with a carriage return", edits: []edit{set("/intent_id", `"urn:oap:intent:a\rb"`)}, want: []string{"/intent_id bad_pattern"}},
	{name: "issuer_did uppercase method", edits: []edit{set("/issuer_did", `"did:Web:issuer.example"`)}, want: []string{"/issuer_did bad_pattern"}},
	{name: "issuer_did not a string", edits: []edit{set("/issuer_did", `{"did": "did:web:x"}`)}, want: []string{"/issuer_did bad_type"}},
	{name: "agent_did not a DID", edits: []edit{set("/agent_did", `"buyer-agent"`)}, want: []string{"/agent_did bad_pattern"}},
	{name: "delegation_chain element not an object", edits: []edit{set("/delegation_chain", `["token"]`)}, want: []string{"/delegation_chain/0 bad_type"}},
	{name: "delegation_chain not an array", edits: []edit{set("/delegation_chain", `{}`)}, want: []string{"/delegation_chain bad_type"}},
	{name: "category unknown", edits: []edit{set("/category", `"shopping"`)}, want: []string{"/category bad_value"}},
	{name: "extra top-level member", edits: []edit{set("/priority", `1`)}, want: []string{"/priority extra_field"}},
	{name: "root is an array", raw: `[]`, want: []string{" bad_type"}},

	// Projection.
	{name: "projection include missing", edits: []edit{del("/projection/include")}, want: []string{"/projection/include missing_field"}},
	{name: "projection include empty", edits: []edit{set("/projection/include", `[]`)}, want: []string{"/projection/include bad_value"}},
	{name: "projection include element not a string", edits: []edit{set("/projection/include", `["/sku", 7]`)}, want: []string{"/projection/include/1 bad_type"}},
	{name: "projection exclude bad pointer", edits: []edit{set("/projection/exclude", `["internal"]`)}, want: []string{"/projection/exclude/0 bad_pointer"}},
	{name: "projection extra member", edits: []edit{set("/projection/rename", `{}`)}, want: []string{"/projection/rename extra_field"}},
	{name: "projection not an object", edits: []edit{set("/projection", `["/sku"]`)}, want: []string{"/projection bad_type"}},

	// Budget.
	{name: "budget amount with a comma", edits: []edit{set("/budget/amount", `"600,00"`)}, want: []string{"/budget/amount bad_pattern"}},
	{name: "budget amount a number", edits: []edit{set("/budget/amount", `600`)}, want: []string{"/budget/amount bad_type"}},
	{name: "budget currency lowercase", edits: []edit{set("/budget/currency", `"eur"`)}, want: []string{"/budget/currency bad_pattern"}},
	{name: "budget currency missing", edits: []edit{del("/budget/currency")}, want: []string{"/budget/currency missing_field"}},
	{name: "budget allocation unknown", edits: []edit{set("/budget/allocation", `"winner_takes_all"`)}, want: []string{"/budget/allocation bad_value"}},
	{name: "budget extra member", edits: []edit{set("/budget/cap", `"1"`)}, want: []string{"/budget/cap extra_field"}},
	{name: "distribution sums to 1.1", edits: []edit{set("/budget/distribution", `[0.5, 0.3, 0.3]`)}, want: []string{"/budget/distribution bad_value"}},
	{name: "distribution shorter than top_k", edits: []edit{set("/budget/distribution", `[0.6, 0.4]`)}, want: []string{"/budget/distribution bad_value"}},
	{name: "distribution shares out of range", edits: []edit{set("/budget/distribution", `[1.5, -0.3, -0.2]`)},
		want: []string{"/budget/distribution/0 bad_value", "/budget/distribution/1 bad_value", "/budget/distribution/2 bad_value"}},
	{name: "distribution not an array", edits: []edit{set("/budget/distribution", `"0.5,0.3,0.2"`)}, want: []string{"/budget/distribution bad_type"}},
	{name: "ranked_top_k without top_k and distribution", edits: []edit{del("/budget/top_k"), del("/budget/distribution")},
		want: []string{"/budget/distribution missing_field", "/budget/top_k missing_field"}},
	{name: "top_k zero", edits: []edit{set("/budget/top_k", `0`)}, want: []string{"/budget/top_k bad_value"}},
	{name: "top_k fractional", edits: []edit{set("/budget/top_k", `2.5`)}, want: []string{"/budget/top_k bad_type"}},

	// Quality floor, validity, policy, rate, signature.
	{name: "quality floor all wrong", edits: []edit{set("/quality_floor/performance_score", `1.2`), set("/quality_floor/latency_p99_ms", `-1`),
		set("/quality_floor/conformance_level", `2`), set("/quality_floor/uptime", `0.99`)},
		want: []string{"/quality_floor/conformance_level bad_type", "/quality_floor/latency_p99_ms bad_value",
			"/quality_floor/performance_score bad_value", "/quality_floor/uptime extra_field"}},
	{name: "validity reversed", edits: []edit{set("/validity/to", `"2026-04-01T00:00:00Z"`)}, want: []string{"/validity bad_interval"}},
	{name: "validity empty window", edits: []edit{set("/validity/to", `"2026-05-01T02:00:00+02:00"`)}, want: []string{"/validity bad_interval"}},
	{name: "validity date only", edits: []edit{set("/validity/from", `"2026-05-01"`)}, want: []string{"/validity/from bad_value"}},
	{name: "validity February 29th 2026", edits: []edit{set("/validity/from", `"2026-02-29T00:00:00Z"`)}, want: []string{"/validity/from bad_value"}},
	{name: "validity offset without colon", edits: []edit{set("/validity/from", `"2026-05-01T00:00:00+0100"`)}, want: []string{"/validity/from bad_value"}},
	{name: "validity to missing", edits: []edit{del("/validity/to")}, want: []string{"/validity/to missing_field"}},
	{name: "resolution_policy unknown", edits: []edit{set("/resolution_policy", `"best_effort"`)}, want: []string{"/resolution_policy bad_value"}},
	{name: "max_event_rate zero", edits: []edit{set("/max_event_rate_per_minute", `0`)}, want: []string{"/max_event_rate_per_minute bad_value"}},
	{name: "subscription without rate", edits: []edit{set("/category", `"subscription"`)}, want: []string{"/max_event_rate_per_minute missing_field"}},
	{name: "signature alg RS256", edits: []edit{set("/signature/alg", `"RS256"`)}, want: []string{"/signature/alg bad_value"}},
	{name: "signature value missing", edits: []edit{del("/signature/value")}, want: []string{"/signature/value missing_field"}},
	{name: "signature extra member", edits: []edit{set("/signature/typ", `"JWT"`)}, want: []string{"/signature/typ extra_field"}},
	{name: "signature kid a number", edits: []edit{set("/signature/kid", `7`)}, want: []string{"/signature/kid bad_type"}},

	// payment_constraints (RFC 0020 B.1).
	{name: "payment_constraints on discovery", base: "payment.json", edits: []edit{set("/category", `"discovery"`)},
		want: []string{"/payment_constraints extra_field"}, ext: true},
	{name: "payment_constraints members wrong", base: "payment.json", ext: true, edits: []edit{
		set("/payment_constraints/allowed_instruments", `"sepa-ct"`), set("/payment_constraints/disallowed_instruments", `[""]`),
		set("/payment_constraints/preferred_instrument", `5`), set("/payment_constraints/max_single_payment", `{"amount": "lots", "currency": "euro"}`),
		set("/payment_constraints/require_bank_account_vc", `"yes"`), set("/payment_constraints/settlement_currency_preference", `"E"`),
		set("/payment_constraints/auction_parametric_session", `null`), set("/payment_constraints/tip", `1`)},
		want: []string{"/payment_constraints/allowed_instruments bad_type", "/payment_constraints/auction_parametric_session bad_type",
			"/payment_constraints/disallowed_instruments/0 bad_value", "/payment_constraints/max_single_payment/amount bad_pattern",
			"/payment_constraints/max_single_payment/currency bad_pattern", "/payment_constraints/preferred_instrument bad_type",
			"/payment_constraints/require_bank_account_vc bad_type", "/payment_constraints/settlement_currency_preference bad_pattern",
			"/payment_constraints/tip extra_field"}},
	{name: "payment_constraints not an object", base: "payment.json", edits: []edit{set("/payment_constraints", `true`)},
		want: []string{"/payment_constraints bad_type"}, ext: true},
	{name: "max_single_payment without currency", base: "payment.json", edits: []edit{del("/payment_constraints/max_single_payment/currency")},
		want: []string{"/payment_constraints/max_single_payment/currency missing_field"}, ext: true},

	// Not JSON.
	{name: "duplicate member", raw: `{"intent_id": "urn:oap:intent:a", "intent_id": "urn:oap:intent:b"}`, want: []string{"/intent_id duplicate_name"}},
	{name: "nested duplicate member", raw: `{"constraints": {"path": "/a", "operator": "eq", "operator": "ne", "value": 1}}`,
		want: []string{"/constraints/operator duplicate_name"}},
	{name: "trailing comma", raw: `{"intent_id": "urn:oap:intent:a",}`, want: []string{" syntax"}},
	{name: "invalid UTF-8", raw: "{\"intent_id\": \"urn:oap:intent:\xff\"}", want: []string{"/intent_id syntax"}},

	// Limits.
	{name: "MaxBytes", opts: &Options{MaxBytes: 100}, want: []string{" limit"}},
	{name: "canon MaxDepth", opts: &Options{Limits: canon.Limits{MaxDepth: 3}}, want: []string{"/constraints/all_of/0 limit"}},
	{name: "MaxNodes", opts: &Options{MaxNodes: 5}, want: []string{a + "4 limit"}},
	{name: "MaxTreeDepth", opts: &Options{MaxTreeDepth: 2}, want: []string{a + "10/any_of/0 limit"}},
	{name: "MaxProblems", opts: &Options{MaxProblems: 2},
		edits: []edit{set("/intent_id", `1`), set("/issuer_did", `1`), set("/category", `1`), set("/resolution_policy", `1`)},
		want:  []string{" limit", "/intent_id bad_type", "/issuer_did bad_type"}},

	// Several problems at once, at every level.
	{name: "several problems at once", edits: []edit{del("/intent_id"), set(a+"1/operator", `"starts_with"`), set(a+"6/value", `"("`),
		set(a+"8/value", `{"from": "2026-02-01T00:00:00Z"}`), set("/budget/currency", `"eur"`), set("/validity/to", `"2026-01-01T00:00:00Z"`),
		set("/signature/alg", `"none"`), set("/projection/exclude", `["internal"]`)},
		want: []string{"/intent_id missing_field", a + "1/operator unknown_operator", a + "6/value bad_regex", a + "8/value/to missing_field",
			"/budget/currency bad_pattern", "/validity bad_interval", "/signature/alg bad_value", "/projection/exclude/0 bad_pointer"}},
	{name: "every member of the wrong type", edits: []edit{set("/intent_id", `1`), set("/category", `1`), set("/constraints", `"x"`),
		set("/projection", `"x"`), set("/budget", `"x"`), set("/quality_floor", `[]`), set("/validity", `"x"`), set("/resolution_policy", `1`),
		set("/max_event_rate_per_minute", `"60"`), set("/signature", `"x"`)},
		want: []string{"/intent_id bad_type", "/category bad_value", "/constraints bad_type", "/projection bad_type", "/budget bad_type",
			"/quality_floor bad_type", "/validity bad_type", "/resolution_policy bad_value", "/max_event_rate_per_minute bad_type", "/signature bad_type"}},
}

// input returns the case's intent bytes.
func (bc *badCase) input(t testing.TB) []byte {
	t.Helper()
	if bc.raw != "" {
		return []byte(bc.raw)
	}
	base := bc.base
	if base == "" {
		base = "all-operators.json"
	}
	return edited(t, base, bc.edits...)
}

// TestParseBad checks that each invalid intent is refused with exactly the
// expected problems: all of them, each at the offending node.
func TestParseBad(t *testing.T) {
	for _, bc := range badCases {
		t.Run(bc.name, func(t *testing.T) {
			in, err := Parse(bc.input(t), bc.opts)
			if err == nil {
				t.Fatalf("Parse accepted the intent (%+v)", in)
			}
			got, want := problemsOf(t, err), slices.Sorted(slices.Values(bc.want))
			if !slices.Equal(got, want) {
				t.Errorf("problems:\n got %q\nwant %q\nerror: %v", got, want, err)
			}
		})
	}
}

// TestParseBadTableSize keeps the table honest about its size.
func TestParseBadTableSize(t *testing.T) {
	if len(badCases) < 35 {
		t.Fatalf("%d bad cases, want at least 35", len(badCases))
	}
}
