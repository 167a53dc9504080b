package execintent

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/gowebpki/jcs"
)

// TestSealParse: a sealed intent parses, with its fields, keys and
// canonical bytes.
func TestSealParse(t *testing.T) {
	doc := sealed(t)
	in, err := Parse(encode(doc), nil)
	if err != nil {
		t.Fatal(err)
	}
	if in.IntentID != "int_01HV8Z" || in.Risk.MaxLossCents != 5000 || in.Spend.Currency != "USD" || in.Policy.PolicyVersion != 3 ||
		!in.Risk.SideEffecting || in.Risk.RequiresHumanApproval || in.Request.Method != "POST" || in.Request.Canonicalization != "rfc8785-jcs" ||
		in.ExpiresAt.Sub(in.CreatedAt) != 10*time.Minute || in.Metadata["note"] != "refill" || in.IntentHash != doc["intentHash"] {
		t.Errorf("fields: %+v", in)
	}
	if in.Key() != "int_01HV8Z" || in.ReplayKey() != "tenant_acme\x00idem_9f1c" || in.NonceKey() != "tenant_acme\x00n0nce-5b2e8a" ||
		ReplayKey("a", "b") != "a\x00b" || NonceKey("a", "b") != "a\x00b" {
		t.Errorf("keys %q %q %q", in.Key(), in.ReplayKey(), in.NonceKey())
	}
	want, _ := canon.Canonicalize(nil, encode(doc), nil)
	if !bytes.Equal(in.Canonical(), want) || in.View()["tenantId"] != "tenant_acme" {
		t.Errorf("canonical %s", in.Canonical())
	}
	again, err := Parse(in.Canonical(), nil)
	if err != nil || again.IntentHash != in.IntentHash {
		t.Errorf("canonical bytes do not parse: %v", err)
	}
}

// TestHashKnownAnswer: the hash of a small document, against its RFC
// 8785 form written out by hand and hashed with crypto/sha256.
func TestHashKnownAnswer(t *testing.T) {
	doc := map[string]any{"nonce": "n", "b": []any{canon.Number("1.0"), "é", true, nil}, "a": map[string]any{"z": 5e2, "y": "\u2028"},
		"intentHash": "ignored", "€": 1}
	const canonical = `{"a":{"y":"` + "\u2028" + `","z":500},"b":[1,"é",true,null],"nonce":"n","€":1}`
	sum := sha256.Sum256([]byte(canonical))
	got, err := Hash(doc)
	if err != nil || got != hex.EncodeToString(sum[:]) {
		t.Fatalf("Hash = %s, %v; want %x", got, err, sum)
	}
	if _, ok := doc["intentHash"]; !ok {
		t.Error("Hash modified its argument")
	}
}

// TestHashAgainstJCS: Hash agrees with gowebpki/jcs over encoding/json
// on the sample, sealed or not.
func TestHashAgainstJCS(t *testing.T) {
	doc := sealed(t)
	plain := map[string]any{}
	for k, v := range doc {
		if k != "intentHash" {
			plain[k] = v
		}
	}
	raw, err := json.Marshal(numbersAsJSON(plain))
	if err != nil {
		t.Fatal(err)
	}
	c, err := jcs.Transform(raw)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(c)
	if got, _ := Hash(doc); got != hex.EncodeToString(sum[:]) || doc["intentHash"] != got {
		t.Errorf("Hash %s, jcs %x", got, sum)
	}
}

// numbersAsJSON turns canon.Number into json.Number for encoding/json.
func numbersAsJSON(v any) any {
	switch v := v.(type) {
	case canon.Number:
		return json.Number(v)
	case map[string]any:
		m := map[string]any{}
		for k, e := range v {
			m[k] = numbersAsJSON(e)
		}
		return m
	case []any:
		a := make([]any, len(v))
		for i, e := range v {
			a[i] = numbersAsJSON(e)
		}
		return a
	}
	return v
}

// TestEveryFieldChangeDetected: changing any one leaf of a sealed intent
// (to a value the schema still accepts) changes its hash and Parse
// rejects it with ErrHashMismatch; a const leaf cannot change validly and
// is rejected by the schema. Removing any optional member and adding one
// are detected too.
func TestEveryFieldChangeDetected(t *testing.T) {
	base := sealed(t)
	baseHash := base["intentHash"].(string)
	n := 0
	for _, ptr := range leaves(base, "") {
		if ptr == "/intentHash" {
			continue
		}
		doc := clone(t, base)
		v, ok := mutate(ptr, get(doc, ptr))
		if !ok {
			set(doc, ptr, "other")
			expectRejected(t, ptr, doc, ErrSchema)
			continue
		}
		set(doc, ptr, v)
		if h, err := Hash(doc); err != nil || h == baseHash {
			t.Errorf("%s: hash unchanged (%v)", ptr, err)
		}
		expectRejected(t, ptr, doc, ErrHashMismatch)
		n++
	}
	for _, name := range []string{"runId", "agreementHash", "quoteId", "metadata"} {
		doc := clone(t, base)
		delete(doc, name)
		expectRejected(t, "/"+name, doc, ErrHashMismatch)
		n++
	}
	doc := clone(t, base)
	edit(t, doc, "/metadata/added", "x")
	expectRejected(t, "/metadata/added", doc, ErrHashMismatch)
	if n < 30 {
		t.Errorf("only %d changes tried", n)
	}
}

func expectRejected(t *testing.T, ptr string, doc map[string]any, want error) {
	t.Helper()
	_, err := Parse(encode(doc), nil)
	if !errors.Is(err, want) {
		t.Errorf("change at %s: got %v, want %v", ptr, err, want)
		return
	}
	var l ErrorList
	if errors.As(err, &l); len(l) != 1 {
		t.Errorf("change at %s: %v", ptr, err)
	}
}

// TestHashIgnoresForm: the hash is of the JSON value, not its text.
func TestHashIgnoresForm(t *testing.T) {
	doc := sealed(t)
	var b bytes.Buffer
	b.WriteString("{\n")
	first := true
	for _, k := range []string{"spendBounds", "nonce", "intentHash"} {
		if !first {
			b.WriteString(",\n")
		}
		first = false
		b.WriteString("  \"" + k + "\" : ")
		b.Write(encode(doc[k]))
	}
	for k, v := range doc {
		if k == "spendBounds" || k == "nonce" || k == "intentHash" {
			continue
		}
		b.WriteString(",\n  \"" + k + "\":\t")
		b.Write(encode(v))
	}
	b.WriteString("\n}\n")
	text := strings.Replace(b.String(), `"maxLossCents":5000`, `"maxLossCents":5.0e3`, 1)
	in, err := Parse([]byte(text), nil)
	if err != nil || in.Risk.MaxLossCents != 5000 {
		t.Fatalf("reformatted intent: %v\n%s", err, text)
	}
}

// TestHashMismatchShowsBoth: the error names both hashes.
func TestHashMismatchShowsBoth(t *testing.T) {
	doc := sealed(t)
	right := doc["intentHash"].(string)
	doc["intentHash"] = hexA
	_, err := Parse(encode(doc), nil)
	var l ErrorList
	if !errors.As(err, &l) || len(l) != 1 || l[0].Pointer != "/intentHash" || !errors.Is(err, ErrHashMismatch) ||
		!strings.Contains(err.Error(), hexA) || !strings.Contains(err.Error(), right) {
		t.Fatalf("mismatch error: %v", err)
	}
}

func TestHashUnsupported(t *testing.T) {
	for name, v := range map[string]any{"chan": make(chan int), "NaN": math.NaN(), "Inf": math.Inf(1), "struct": struct{}{},
		"bad UTF-8": "\xff"} {
		doc := sample()
		edit(t, doc, "/metadata/depth/bad", v)
		_, err := Hash(doc)
		var e *Error
		if !errors.Is(err, ErrUnsupportedValue) || !errors.As(err, &e) || e.Pointer != "/metadata/depth/bad" {
			t.Errorf("%s: %v", name, err)
		}
		if _, err := Seal(doc); !errors.Is(err, ErrUnsupportedValue) {
			t.Errorf("Seal %s: %v", name, err)
		}
	}
	doc := sample()
	doc["maxUses"], doc["u"], doc["i8"], doc["f32"], doc["n"] = uint64(7), uint8(1), int8(-1), float32(0.5), json.Number("1e2")
	doc["ss"] = map[string]string{"a": "b"}
	if _, err := Hash(doc); err != nil {
		t.Errorf("Go scalars: %v", err)
	}
	if _, err := Seal(doc); !errors.Is(err, ErrSchema) {
		t.Errorf("Seal of an intent with unknown members: %v", err)
	}
}

// TestSealDoesNotModify: Seal copies.
func TestSealDoesNotModify(t *testing.T) {
	doc := sample()
	before := string(encode(mustNormalize(t, doc)))
	if _, err := Seal(doc); err != nil {
		t.Fatal(err)
	}
	if _, ok := doc["intentHash"]; ok || string(encode(mustNormalize(t, doc))) != before {
		t.Error("Seal modified its argument")
	}
	again, _ := Seal(doc)
	if got, _ := Hash(doc); again["intentHash"] != got {
		t.Error("Seal and Hash disagree")
	}
}

func mustNormalize(t *testing.T, doc map[string]any) any {
	v, err := normalize(doc, "")
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestSmuggledNumber: a canon.Number whose text is not one JSON number
// would encode to other JSON than the map shows; Hash, Seal and
// ParseValue refuse it, as they refuse Go types outside the value model.
func TestSmuggledNumber(t *testing.T) {
	doc := sample()
	edit(t, doc, "/metadata/n", canon.Number(`1,"injected":2`))
	if _, err := Hash(doc); !errors.Is(err, ErrUnsupportedValue) {
		t.Errorf("Hash: %v", err)
	}
	if _, err := Seal(doc); !errors.Is(err, ErrUnsupportedValue) {
		t.Errorf("Seal: %v", err)
	}
	for name, v := range map[string]any{"smuggled": canon.Number(`1,"injected":2`), "Go int": 7, "bad UTF-8": "\xff"} {
		s := sealed(t)
		edit(t, s, "/metadata/n", v)
		_, err := ParseValue(s)
		var e *Error
		if !errors.Is(err, ErrUnsupportedValue) || !errors.As(err, &e) || e.Pointer != "/metadata/n" {
			t.Errorf("ParseValue %s: %v", name, err)
		}
	}
	if _, err := ParseValue(sealed(t)); err != nil {
		t.Errorf("ParseValue of a sealed intent: %v", err)
	}
}

func TestIsJSONNumber(t *testing.T) {
	for s, want := range map[string]bool{"0": true, "-0": true, "12": true, "1.5": true, "1e5": true, "1E+5": true, "-1.0e-3": true,
		"": false, "-": false, "01": false, "1.": false, ".5": false, "1e": false, "+1": false, "1 ": false, "NaN": false, "0x1": false, `1,"a":2`: false} {
		if isJSONNumber(s) != want {
			t.Errorf("isJSONNumber(%q) = %v", s, !want)
		}
	}
}
