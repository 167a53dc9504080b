package execintent

import (
	"bytes"
	"errors"
	"os"
	"testing"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// FuzzParse: Parse never panics. What it accepts re-parses from its
// canonical bytes to the same intent, and hashes to its intentHash; what
// it rejects is an ErrorList of known sentinels.
func FuzzParse(f *testing.F) {
	doc, err := Seal(sample())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(encode(doc))
	for _, tc := range badCases {
		if tc.raw != "" {
			f.Add([]byte(tc.raw))
		}
	}
	f.Add([]byte(`{"schemaVersion":"ExecutionIntent.v1","riskProfile":{"maxLossCents":1e999999999}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		in, err := Parse(b, nil)
		if err != nil {
			checkRejection(t, err)
			return
		}
		again, err := Parse(in.Canonical(), nil)
		if err != nil || !bytes.Equal(again.Canonical(), in.Canonical()) || again.ReplayKey() != in.ReplayKey() {
			t.Fatalf("canonical bytes do not re-parse alike: %v", err)
		}
		if h, err := Hash(in.View()); err != nil || h != in.IntentHash {
			t.Fatalf("Hash(View) = %s, %v; intentHash %s", h, err, in.IntentHash)
		}
	})
}

var sentinels = []error{ErrSyntax, ErrSchema, ErrInvalid, ErrHashMismatch, ErrExpiry}

func checkRejection(t *testing.T, err error) {
	var l ErrorList
	if !errors.As(err, &l) || len(l) == 0 {
		t.Fatalf("rejection is %T %v", err, err)
	}
	for _, e := range l {
		known := false
		for _, s := range sentinels {
			known = known || errors.Is(e, s)
		}
		if !known || e.Message == "" {
			t.Fatalf("bad error %#v", e)
		}
	}
}

// FuzzSealField: set one leaf of the sample to a fuzzed string or number
// and seal. Whatever Seal accepts, Parse accepts, and — when the shared
// schema is present — so does the published schema: a differential
// between the Go rules and the schema file.
func FuzzSealField(f *testing.F) {
	f.Add(uint8(0), "x", false)
	f.Add(uint8(3), "2026-04-05T12:00:60Z", false)
	f.Add(uint8(7), "1e2", true)
	f.Add(uint8(9), "0.5", true)
	sch := fuzzSchema(f)
	base, err := Seal(sample())
	if err != nil {
		f.Fatal(err)
	}
	paths := leaves(base, "")
	f.Fuzz(func(t *testing.T, i uint8, s string, asNumber bool) {
		doc := clone(t, base)
		var v any = s
		if asNumber {
			v = canon.Number(s)
		}
		set(doc, paths[int(i)%len(paths)], v)
		sealedDoc, err := Seal(doc)
		if err != nil {
			return
		}
		b := encode(sealedDoc)
		if _, err := Parse(b, nil); err != nil {
			t.Fatalf("Seal accepted what Parse rejects: %v", err)
		}
		if sch == nil {
			return
		}
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("sealed bytes are not JSON to the oracle: %v", err)
		}
		if err := sch.Validate(inst); err != nil {
			t.Fatalf("we accept, the schema rejects: %v\n%s", err, b)
		}
	})
}

// fuzzSchema compiles the shared schema, or returns nil without it.
func fuzzSchema(f *testing.F) *jsonschema.Schema {
	b, err := os.ReadFile(schemaPath)
	if err != nil {
		return nil
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		f.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("s.json", doc); err != nil {
		f.Fatal(err)
	}
	sch, err := c.Compile("s.json")
	if err != nil {
		f.Fatal(err)
	}
	return sch
}
