package aql

import (
	"bytes"
	"errors"
	"path/filepath"
	"testing"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/dlclark/regexp2/v2"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The schema differential: Parse's verdict on the schema-level part of an
// intent (is there a problem with Schema set?) must be the verdict of an
// independent JSON Schema validator on oap-intent.schema.json. The oracle
// asserts "format" (date-time) and reads patterns as ECMA-262, as JSON
// Schema specifies. Intents using a documented extension (a top-level
// constraints array, not over an array, payment_constraints) are the one
// exception, and the test asserts that the schema does reject those.

// ecmaRegexp adapts regexp2 to the validator's Regexp interface.
type ecmaRegexp regexp2.Regexp

func (re *ecmaRegexp) MatchString(s string) bool {
	ok, err := (*regexp2.Regexp)(re).MatchString(s)
	return err == nil && ok
}

func (re *ecmaRegexp) String() string { return (*regexp2.Regexp)(re).String() }

func compileECMA(s string) (jsonschema.Regexp, error) {
	re, err := regexp2.Compile(s, regexp2.ECMAScript)
	if err != nil {
		return nil, err
	}
	return (*ecmaRegexp)(re), nil
}

// intentSchema compiles the published intent schema, skipping the test
// when ../shared is absent.
func intentSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	path := sharedFile(t, "vectors/oap/schemas/v1.0/oap-intent.schema.json")
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(readFile(t, path)))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	c.UseRegexpEngine(compileECMA)
	const id = "https://openagentprotocol.eu/schemas/v1.0/oap-intent.schema.json"
	if err := c.AddResource(id, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(id)
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

// verdicts returns whether Parse finds a schema-level problem in b and
// whether the schema rejects b.
func verdicts(t *testing.T, sch *jsonschema.Schema, b []byte, opts *Options) (ours, theirs bool) {
	t.Helper()
	_, err := Parse(b, opts)
	var ie *InvalidError
	if err != nil && !errors.As(err, &ie) {
		t.Fatalf("Parse error %T: %v", err, err)
	}
	if ie != nil {
		for _, p := range ie.Problems {
			ours = ours || p.Schema
		}
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("oracle cannot read the intent: %v", err)
	}
	return ours, sch.Validate(inst) != nil
}

func TestSchemaDifferentialBadTable(t *testing.T) {
	sch := intentSchema(t)
	compared := 0
	for _, bc := range badCases {
		t.Run(bc.name, func(t *testing.T) {
			b := bc.input(t)
			if _, err := canon.Decode(b, nil); err != nil {
				t.Skipf("not JSON to canon, so no schema verdict: %v", err)
			}
			ours, theirs := verdicts(t, sch, b, bc.opts)
			switch {
			case bc.ext && !theirs:
				t.Errorf("marked as an extension, but the schema accepts it")
			case !bc.ext && ours != theirs:
				t.Errorf("schema-level verdicts differ: ours invalid=%v, schema invalid=%v", ours, theirs)
			}
			compared++
		})
	}
	if compared < 35 {
		t.Errorf("only %d cases compared", compared)
	}
}

func TestSchemaDifferentialValid(t *testing.T) {
	sch := intentSchema(t)
	dir := sharedFile(t, "vectors/oap")
	inputs := map[string][]byte{}
	for _, rel := range append(sharedValidIntents, "test-suite/schema/invalid/intent-bad-operator.json") {
		inputs[rel] = readFile(t, filepath.Join(dir, rel))
	}
	for _, name := range []string{"all-operators.json", "minimal.json"} {
		inputs[name] = edited(t, name)
	}
	for name, b := range inputs {
		if ours, theirs := verdicts(t, sch, b, nil); ours != theirs {
			t.Errorf("%s: ours invalid=%v, schema invalid=%v", name, ours, theirs)
		}
	}
	// The extensions: valid here, refused by the published schema.
	for _, name := range []string{"payment.json", "array-constraints.json"} {
		ours, theirs := verdicts(t, sch, edited(t, name), nil)
		if ours || !theirs {
			t.Errorf("%s: ours invalid=%v, schema invalid=%v; want false, true", name, ours, theirs)
		}
	}
}
