package execintent

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aqlstore/aqlstore/canon"
)

const (
	hexA = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	hexB = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
)

// sample returns an intent with every member of the schema, the way a
// caller builds one: Go ints, time.Time, []string.
func sample() map[string]any {
	created := time.Date(2026, 4, 5, 12, 0, 0, 0, time.UTC)
	return map[string]any{
		"schemaVersion": "ExecutionIntent.v1",
		"intentId":      "int_01HV8Z",
		"tenantId":      "tenant_acme",
		"agentId":       "agt_planner",
		"runId":         "run_42",
		"agreementHash": hexA,
		"quoteId":       "quote_7",
		"requestFingerprint": map[string]any{
			"canonicalization": "rfc8785-jcs",
			"method":           "POST",
			"path":             "/v1/payments",
			"querySha256":      hexB,
			"bodySha256":       hexA,
			"requestSha256":    hexB,
		},
		"riskProfile": map[string]any{
			"riskClass":             "financial",
			"sideEffecting":         true,
			"expectedDeterminism":   "deterministic",
			"maxLossCents":          5000,
			"requiresHumanApproval": false,
		},
		"spendBounds":    map[string]any{"currency": "USD", "maxAmountCents": 5000},
		"policyBinding":  map[string]any{"policyId": "pol_spend", "policyVersion": 3, "policyHash": hexA, "verificationMethodHash": hexB},
		"idempotencyKey": "idem_9f1c",
		"nonce":          "n0nce-5b2e8a",
		"createdAt":      created,
		"expiresAt":      created.Add(10 * time.Minute),
		"metadata":       map[string]any{"note": "refill", "tags": []string{"a", "b"}, "depth": map[string]any{"x": 1.5}},
	}
}

// sealed returns sample() sealed.
func sealed(t testing.TB) map[string]any {
	t.Helper()
	doc, err := Seal(sample())
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// encode writes v as plain JSON, each number as its literal text (as a
// client would send it; the parser then brings it to RFC 8785 form).
func encode(v any) []byte {
	b, err := json.Marshal(literal(v))
	if err != nil {
		panic(err) // a test document the test itself built
	}
	return b
}

func literal(v any) any {
	switch v := v.(type) {
	case canon.Number:
		return json.RawMessage(v)
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = literal(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = literal(e)
		}
		return out
	}
	return v
}

// clone deep-copies a document in canon's value model.
func clone(t testing.TB, doc map[string]any) map[string]any {
	t.Helper()
	v, err := normalize(doc, "")
	if err != nil {
		t.Fatal(err)
	}
	return v.(map[string]any)
}

type deletedT struct{}

var deleted deletedT

// edit sets (or with deleted removes) the member at a plain pointer.
func edit(t testing.TB, doc map[string]any, ptr string, v any) {
	t.Helper()
	segs := strings.Split(ptr, "/")[1:]
	m := doc
	for _, s := range segs[:len(segs)-1] {
		next, ok := m[s].(map[string]any)
		if !ok {
			t.Fatalf("edit %s: %s is not an object", ptr, s)
		}
		m = next
	}
	if v == deleted {
		delete(m, segs[len(segs)-1])
		return
	}
	m[segs[len(segs)-1]] = v
}

// leaves returns the pointer of every scalar and every empty container
// of doc, in a stable order.
func leaves(v any, ptr string) []string {
	switch v := v.(type) {
	case map[string]any:
		var out []string
		for _, k := range canon.SortedKeys(v) {
			out = append(out, leaves(v[k], ptr+"/"+k)...)
		}
		return out
	case []any:
		var out []string
		for i, e := range v {
			out = append(out, leaves(e, ptr+"/"+strconv.Itoa(i))...)
		}
		return out
	}
	return []string{ptr}
}

// get returns the value at a plain pointer.
func get(doc any, ptr string) any {
	for _, s := range strings.Split(ptr, "/")[1:] {
		doc = step(doc, s)
	}
	return doc
}

func step(v any, seg string) any {
	switch v := v.(type) {
	case map[string]any:
		return v[seg]
	case []any:
		i, _ := strconv.Atoi(seg)
		return v[i]
	}
	return nil
}

// set sets the value at a plain pointer, arrays included.
func set(doc any, ptr string, v any) {
	segs := strings.Split(ptr, "/")[1:]
	parent := doc
	for _, s := range segs[:len(segs)-1] {
		parent = step(parent, s)
	}
	last := segs[len(segs)-1]
	switch p := parent.(type) {
	case map[string]any:
		p[last] = v
	case []any:
		i, _ := strconv.Atoi(last)
		p[i] = v
	}
}

var enums = map[string][]string{
	"riskClass":           {"read", "compute", "action", "financial"},
	"expectedDeterminism": {"deterministic", "bounded_nondeterministic", "open_nondeterministic"},
}

// mutate returns a different value for the leaf at ptr that keeps the
// intent schema-valid, or ok=false for a const (no valid other value).
func mutate(ptr string, v any) (any, bool) {
	name := ptr[strings.LastIndexByte(ptr, '/')+1:]
	switch v := v.(type) {
	case bool:
		return !v, true
	case canon.Number:
		n, _ := strconv.ParseFloat(string(v), 64)
		return canon.Number(strconv.FormatFloat(n+1, 'g', -1, 64)), true
	case string:
		switch {
		case name == "schemaVersion" || name == "canonicalization":
			return nil, false
		case isHex64(v):
			last := byte('0')
			if v[63] == '0' {
				last = '1'
			}
			return v[:63] + string(last), true
		case enums[name] != nil:
			i := slices.Index(enums[name], v)
			return enums[name][(i+1)%len(enums[name])], true
		}
		if at, ok := canon.ParseInstant(v); ok {
			d := time.Second
			if name == "createdAt" {
				d = -d
			}
			return at.Add(d).Format(time.RFC3339), true
		}
		return v + "x", true
	}
	return nil, false
}
