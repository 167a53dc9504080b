package canon

import (
	"errors"
	"strings"
	"testing"
)

func TestDecodeErrors(t *testing.T) {
	cases := []struct {
		name, in string
		lim      *Limits
		sentinel error
		contains string
	}{
		{"escaped duplicate", `{"\u0061":1,"a":2}`, nil, ErrDuplicateName, `duplicate member name "a"`},
		{"nested duplicate", "{\"x\":{\n \"b\":1,\n \"b\":2}}", nil, ErrDuplicateName, "line 3"},
		{"invalid utf8", "\"\xff\"", nil, ErrInvalidUTF8, "UTF-8"},
		{"too deep", strings.Repeat("[", 5) + strings.Repeat("]", 5), &Limits{MaxDepth: 4}, ErrLimit, "MaxDepth"},
		{"too large", `"` + strings.Repeat("a", 100) + `"`, &Limits{MaxBytes: 50}, ErrLimit, "MaxBytes"},
		{"too many members", `{"a":1,"b":2,"c":3}`, &Limits{MaxMembers: 2}, ErrLimit, "MaxMembers"},
		{"too many elements", `[1,2,3]`, &Limits{MaxMembers: 2}, ErrLimit, "MaxMembers"},
		{"trailing data", `{} {}`, nil, ErrSyntax, "after the top-level value"},
		{"truncated", `{"a":[1,2`, nil, ErrSyntax, "end of input"},
		{"empty", ``, nil, ErrSyntax, "end of input"},
		{"bad literal", `{"a":tru}`, nil, ErrSyntax, "line 1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Decode([]byte(c.in), c.lim)
			if !errors.Is(err, c.sentinel) {
				t.Fatalf("err = %v, want %v", err, c.sentinel)
			}
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("err %T is not a *SyntaxError", err)
			}
			if !strings.Contains(err.Error(), c.contains) {
				t.Errorf("error %q does not mention %q", err, c.contains)
			}
		})
	}
}

func TestDecodeAtLimits(t *testing.T) {
	lim := &Limits{MaxDepth: 4, MaxMembers: 3, MaxBytes: 64}
	for _, in := range []string{
		strings.Repeat("[", 4) + strings.Repeat("]", 4),
		`{"a":1,"b":2,"c":3}`,
		`[1,2,3]`,
		`"` + strings.Repeat("a", 62) + `"`,
	} {
		if _, err := Decode([]byte(in), lim); err != nil {
			t.Errorf("%s at the limit rejected: %v", in, err)
		}
	}
}

func TestDecodeValues(t *testing.T) {
	v, err := Decode([]byte(` {"n":1.50,"s":"x\u00e9","b":[true,false,null],"o":{}} `), nil)
	if err != nil {
		t.Fatal(err)
	}
	m := v.(map[string]any)
	if m["n"] != Number("1.50") {
		t.Errorf("number not kept exact: %#v", m["n"])
	}
	if m["s"] != "xé" {
		t.Errorf("string: %#v", m["s"])
	}
	if b := m["b"].([]any); len(b) != 3 || b[0] != true || b[1] != false || b[2] != nil {
		t.Errorf("array: %#v", b)
	}
	if o := m["o"].(map[string]any); len(o) != 0 {
		t.Errorf("object: %#v", o)
	}
}

func TestCanonicalFixedPoint(t *testing.T) {
	for _, in := range []string{
		`{"b":1e2,"a":[1.0,-0,"\u20ac"],"c":{"z":null,"y":true}}`,
		`[1E400]`[:0] + `[123456789012345678901234567890]`,
		`"\ud83d\ude00"`,
	} {
		c1, _, err := Canonical([]byte(in), nil)
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		c2, v, err := Canonical(c1, nil)
		if err != nil || string(c1) != string(c2) {
			t.Fatalf("not a fixed point: %s → %s → %s (%v)", in, c1, c2, err)
		}
		if got := AppendValue(nil, v); string(got) != string(c1) {
			t.Errorf("AppendValue of canonical %s = %s", c1, got)
		}
	}
}

func TestCanonicalRejectsHugeNumber(t *testing.T) {
	_, _, err := Canonical([]byte(`{"a":1e400}`), nil)
	if !errors.Is(err, ErrNotCanonicalizable) {
		t.Fatalf("err = %v, want ErrNotCanonicalizable", err)
	}
}

func TestContentID(t *testing.T) {
	id := Sum([]byte(`{}`))
	s := id.String()
	if s != strings.ToLower(s) || len(s) != 64 {
		t.Fatalf("id %q is not lowercase hex", s)
	}
	back, err := ParseContentID(s)
	if err != nil || back != id {
		t.Fatalf("round trip: %v %v", back, err)
	}
	if _, err := ParseContentID("xyz"); err == nil {
		t.Error("bad id accepted")
	}
}
