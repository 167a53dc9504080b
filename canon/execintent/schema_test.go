package execintent

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The schema differential: an independent JSON Schema validator, reading
// the published schema with format assertion on, must accept every
// intent Parse accepts, and agree with the table on the bad ones.

// schemaPath is the published schema in the shared vectors, which a
// user's clone does not have.
var schemaPath = filepath.Join("..", "..", "..", "shared", "vectors", "execution-intent", "ExecutionIntent.v1.schema.json")

func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	b, err := os.ReadFile(schemaPath)
	if err != nil {
		t.Skipf("shared vectors not present (%s): %v", schemaPath, err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	const id = "https://nooterra.local/schemas/ExecutionIntent.v1.schema.json"
	if err := c.AddResource(id, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(id)
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

// schemaAccepts reports the oracle's verdict on b.
func schemaAccepts(t *testing.T, sch *jsonschema.Schema, b []byte) (bool, error) {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return false, err
	}
	err = sch.Validate(inst)
	return err == nil, err
}

// acceptedIntents are intents Parse must accept: the sample, a minimal
// one, every one-leaf change resealed, and the edges of each rule.
func acceptedIntents(t *testing.T) map[string][]byte {
	out := map[string][]byte{"sample": encode(sealed(t))}
	minimal := sample()
	for _, k := range []string{"runId", "agreementHash", "quoteId", "metadata"} {
		delete(minimal, k)
	}
	out["minimal"] = mustSeal(t, minimal)
	base := sealed(t)
	for _, ptr := range leaves(base, "") {
		doc := clone(t, base)
		if v, ok := mutate(ptr, get(doc, ptr)); ok && ptr != "/intentHash" {
			set(doc, ptr, v)
			out["changed "+ptr] = mustSeal(t, doc)
		}
	}
	for name, e := range map[string]map[string]any{
		"200 characters":      {"/intentId": strings.Repeat("é", 200), "/runId": strings.Repeat("r", 200)},
		"empty optionals":     {"/runId": "", "/quoteId": ""},
		"nonce 8":             {"/nonce": "12345678"},
		"nonce 256":           {"/nonce": strings.Repeat("n", 256)},
		"method 16, curr 8":   {rf + "method": strings.Repeat("M", 16), sb + "currency": "ABCDEFGH"},
		"integer forms":       {rp + "maxLossCents": num("5e2"), sb + "maxAmountCents": num("500.0"), pb + "policyVersion": num("1")},
		"zeros":               {rp + "maxLossCents": num("-0"), sb + "maxAmountCents": num("0")},
		"2^53-1":              {sb + "maxAmountCents": num("9007199254740991")},
		"lowercase t and z":   {"/createdAt": "2026-04-05t12:00:00z"},
		"offsets":             {"/createdAt": "2026-04-05T14:00:00+02:00", "/expiresAt": "2026-04-05T07:00:00.5-05:00"},
		"leap second":         {"/createdAt": "2016-12-31T23:59:60Z", "/expiresAt": "2017-01-01T00:00:00Z"},
		"equal times":         {"/expiresAt": "2026-04-05T12:00:00Z"},
		"open metadata":       {"/metadata": map[string]any{"a": []any{nil, true, num("1e300")}, "b": map[string]any{}}},
		"unicode in strings":  {"/agentId": "agent \u2028 \U0001F600", rf + "path": "/v1/ü?x=1"},
		"long path":           {rf + "path": "/" + strings.Repeat("p", 2047)},
		"human approval true": {rp + "requiresHumanApproval": true},
	} {
		doc := sealed(t)
		for ptr, v := range e {
			edit(t, doc, ptr, v)
		}
		out["edge "+name] = mustSeal(t, doc)
	}
	return out
}

func mustSeal(t *testing.T, doc map[string]any) []byte {
	t.Helper()
	s, err := Seal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return encode(s)
}

// TestSchemaAcceptsWhatWeAccept: every intent Parse accepts passes the
// published schema.
func TestSchemaAcceptsWhatWeAccept(t *testing.T) {
	sch := compileSchema(t)
	docs := acceptedIntents(t)
	for name, b := range docs {
		if _, err := Parse(b, nil); err != nil {
			t.Errorf("%s: Parse rejects: %v", name, err)
			continue
		}
		if ok, err := schemaAccepts(t, sch, b); !ok {
			t.Errorf("%s: we accept, the schema rejects: %v\n%s", name, err, b)
		}
	}
	t.Logf("%d accepted intents checked against the schema", len(docs))
}

// TestSchemaOnBadDocuments: the schema rejects exactly the table entries
// marked schemaRejects; the others are the rules beyond it.
func TestSchemaOnBadDocuments(t *testing.T) {
	sch := compileSchema(t)
	for _, tc := range badCases {
		ok, err := schemaAccepts(t, sch, tc.bytes(t))
		if ok == tc.schemaRejects {
			t.Errorf("%s: schema accepts=%v (%v), table says schemaRejects=%v", tc.name, ok, err, tc.schemaRejects)
		}
	}
}
