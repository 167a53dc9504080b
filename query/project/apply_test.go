package project

import (
	"errors"
	"reflect"
	"testing"

	"github.com/aqlstore/aqlstore/canon"
)

const shop = `{
  "manifest_id": "m-1",
  "seller_did": "did:web:shop.example",
  "price": {"amount": "99.90", "currency": "EUR", "internal": {"cost": "40.00"}},
  "inventory": {"available": 3, "warehouse": "W1"},
  "internal_metadata": {"margin": 0.6},
  "actions": [
    {"id": "buy", "secret": "s1", "args": {"id": "nested"}},
    {"name": "no id here", "secret": "s2"},
    {"id": "ship", "secret": "s3"}
  ],
  "tags": ["trail", "running", "eu"],
  "matrix": [[1, 2], [3], []],
  "a/b": 1, "m~n": 2, "c": {"x/y": 3, "~": 4},
  "obj": {"0": "zero", "1": "one"},
  "nothing": null
}`

func TestApply(t *testing.T) {
	cases := []struct {
		name             string
		include, exclude []string
		want             string
		missing          []string
	}{
		{"root slash", []string{"/"}, nil, shop, nil},
		{"root empty", []string{""}, nil, shop, nil},
		{"descend from root", []string{"/**"}, nil, shop, nil},
		{"nested member", []string{"/price/amount"}, nil, `{"price":{"amount":"99.90"}}`, nil},
		{"several", []string{"/manifest_id", "/price/currency", "/inventory"}, nil,
			`{"manifest_id":"m-1","price":{"currency":"EUR"},"inventory":{"available":3,"warehouse":"W1"}}`, nil},
		{"wildcard over array keeps contributors in order", []string{"/actions/*/id"}, nil,
			`{"actions":[{"id":"buy"},{"id":"ship"}]}`, nil},
		{"array index", []string{"/actions/2/id", "/tags/1"}, nil, `{"actions":[{"id":"ship"}],"tags":["running"]}`, nil},
		{"wildcard over object", []string{"/price/*"}, []string{"/price/internal"},
			`{"price":{"amount":"99.90","currency":"EUR"}}`, nil},
		{"nested arrays", []string{"/matrix/*/0"}, nil, `{"matrix":[[1],[3]]}`, nil},
		{"descend any depth", []string{"/**/id"}, nil,
			`{"actions":[{"id":"buy","args":{"id":"nested"}},{"id":"ship"}]}`, nil},
		{"descend under a name", []string{"/price/**/cost"}, nil, `{"price":{"internal":{"cost":"40.00"}}}`, nil},
		{"double descend", []string{"/**/**/currency"}, nil, `{"price":{"currency":"EUR"}}`, nil},
		{"exclude inside include", []string{"/price"}, []string{"/price/internal"},
			`{"price":{"amount":"99.90","currency":"EUR"}}`, nil},
		{"exclude above include", []string{"/price/amount"}, []string{"/price"}, `{}`, nil},
		{"exclude everything under a selected object", []string{"/inventory"}, []string{"/inventory/*"},
			`{"inventory":{}}`, nil},
		{"exclude with wildcard", []string{"/actions"}, []string{"/actions/*/secret", "/actions/*/args"},
			`{"actions":[{"id":"buy"},{"name":"no id here"},{"id":"ship"}]}`, nil},
		{"exclude with descend", []string{"/"}, []string{"/**/secret", "/**/internal", "/internal_metadata", "/matrix", "/tags", "/a~1b", "/m~0n", "/c", "/obj", "/nothing", "/actions/*/args", "/actions/1"},
			`{"manifest_id":"m-1","seller_did":"did:web:shop.example","price":{"amount":"99.90","currency":"EUR"},` +
				`"inventory":{"available":3,"warehouse":"W1"},"actions":[{"id":"buy"},{"id":"ship"}]}`, nil},
		{"exclude array element", []string{"/tags"}, []string{"/tags/0"}, `{"tags":["running","eu"]}`, nil},
		{"exclude root", []string{"/price"}, []string{"/"}, `{}`, nil},
		{"every match excluded is not missing", []string{"/internal_metadata/margin"}, []string{"/internal_metadata"}, `{}`, nil},
		{"the discovery example", []string{"/manifest_id", "/seller_did", "/price", "/inventory"}, []string{"/internal_metadata", "/price/internal"},
			`{"manifest_id":"m-1","seller_did":"did:web:shop.example","price":{"amount":"99.90","currency":"EUR"},"inventory":{"available":3,"warehouse":"W1"}}`, nil},
		{"missing includes", []string{"/price/amount", "/absent", "/price/tax", "/tags/3", "/tags/-", "/manifest_id/x", "/nothing/*", "/tags/01"}, nil,
			`{"price":{"amount":"99.90"}}`, []string{"/absent", "/price/tax", "/tags/3", "/tags/-", "/manifest_id/x", "/nothing/*", "/tags/01"}},
		{"wildcard on empty array is missing", []string{"/matrix/2/*"}, nil, `{}`, []string{"/matrix/2/*"}},
		{"escaped names", []string{"/a~1b", "/m~0n", "/c/x~1y", "/c/~0"}, nil, `{"a/b":1,"m~n":2,"c":{"x/y":3,"~":4}}`, nil},
		{"escaped exclude", []string{"/c"}, []string{"/c/x~1y"}, `{"c":{"~":4}}`, nil},
		{"digit names on an object", []string{"/obj/0"}, nil, `{"obj":{"0":"zero"}}`, nil},
		{"null is a value", []string{"/nothing"}, nil, `{"nothing":null}`, nil},
		{"overlapping includes", []string{"/price", "/price/amount", "/price/**"}, nil,
			`{"price":{"amount":"99.90","currency":"EUR","internal":{"cost":"40.00"}}}`, nil},
		{"no include", nil, nil, `{}`, nil},
	}
	doc := decode(t, shop)
	for _, c := range cases {
		payload, missing, err := Apply(doc, pointers(t, c.include), pointers(t, c.exclude))
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		want := string(canon.AppendValue(nil, decode(t, c.want)))
		if got := string(canon.AppendValue(nil, payload)); got != want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, want)
		}
		if !reflect.DeepEqual(missing, c.missing) {
			t.Errorf("%s: missing %q, want %q", c.name, missing, c.missing)
		}
	}
}

func TestApplyNilPointerIsRoot(t *testing.T) {
	doc := decode(t, `{"a":[1,{"b":2}]}`)
	payload, missing, err := Apply(doc, []*canon.Pointer{nil}, nil)
	if err != nil || missing != nil || !reflect.DeepEqual(payload, doc) {
		t.Fatalf("Apply(nil pointer) = %v, %v, %v", payload, missing, err)
	}
}

func TestApplyNotObject(t *testing.T) {
	for _, s := range []string{`[{"a":1}]`, `"x"`, `null`, `3`, `true`} {
		payload, missing, err := Apply(decode(t, s), pointers(t, []string{"/"}), nil)
		if !errors.Is(err, ErrNotObject) || payload != nil || missing != nil {
			t.Errorf("Apply(%s) = %v, %v, %v; want ErrNotObject", s, payload, missing, err)
		}
	}
}

// TestApplyCopies: the payload shares no map or slice with the document.
func TestApplyCopies(t *testing.T) {
	doc := decode(t, shop)
	before := string(canon.AppendValue(nil, doc))
	payload, _, err := Apply(doc, pointers(t, []string{"/", "/price"}), pointers(t, []string{"/tags/0"}))
	if err != nil {
		t.Fatal(err)
	}
	scribble(payload)
	if after := string(canon.AppendValue(nil, doc)); after != before {
		t.Fatalf("changing the payload changed the document:\n%s", after)
	}
	payload, _, _ = Apply(doc, pointers(t, []string{"/"}), nil)
	snapshot := string(canon.AppendValue(nil, payload))
	scribble(doc)
	if after := string(canon.AppendValue(nil, payload)); after != snapshot {
		t.Fatalf("changing the document changed the payload:\n%s", after)
	}
}

// scribble overwrites every map member and slice element in v, depth first.
func scribble(v any) {
	switch c := v.(type) {
	case map[string]any:
		for k, x := range c {
			scribble(x)
			c[k] = "scribbled"
		}
		c["added"] = true
	case []any:
		for i, x := range c {
			scribble(x)
			c[i] = "scribbled"
		}
	}
}

func decode(t testing.TB, s string) any {
	t.Helper()
	v, err := canon.Decode([]byte(s), nil)
	if err != nil {
		t.Fatalf("decode %s: %v", s, err)
	}
	return v
}

func pointers(t testing.TB, texts []string) []*canon.Pointer {
	t.Helper()
	var out []*canon.Pointer
	for _, s := range texts {
		p, err := canon.ParsePointer(s)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}
