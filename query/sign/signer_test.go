package sign

import (
	"bytes"
	"crypto/ed25519"
	"errors"
	"maps"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/gowebpki/jcs"
)

func TestSignVerifyRoundTrip(t *testing.T) {
	s := testSigner(t)
	doc := decodeObj(t, sampleResponse)
	signed, err := s.Sign(doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify(signed, s.PublicKey()); err != nil {
		t.Fatalf("Verify(Sign(doc)) = %v", err)
	}
	if err := VerifyBytes(encode(signed), s.PublicKey()); err != nil {
		t.Fatalf("VerifyBytes(encoded Sign(doc)) = %v", err)
	}
	sig := signed["signature"].(map[string]any)
	if sig["alg"] != "EdDSA" || sig["kid"] != s.KeyID() {
		t.Errorf("signature block = %v", sig)
	}
	if strings.ContainsAny(sig["value"].(string), "=+/") {
		t.Errorf("value %q is not unpadded base64url", sig["value"])
	}
}

func TestSignDoesNotMutateAndReplaces(t *testing.T) {
	s := testSigner(t)
	doc := decodeObj(t, `{"a":1,"signature":{"alg":"EdDSA","value":"old"}}`)
	before := maps.Clone(doc)
	signed, err := s.Sign(doc)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(doc, before) {
		t.Errorf("Sign changed its input: %v", doc)
	}
	if signed["signature"].(map[string]any)["value"] == "old" {
		t.Error("Sign kept the old signature")
	}
	if err := Verify(signed, s.PublicKey()); err != nil {
		t.Fatal(err)
	}
	again, _ := s.Sign(signed)
	if !reflect.DeepEqual(again["signature"], signed["signature"]) {
		t.Error("re-signing a signed document gave another signature (Ed25519 is deterministic)")
	}
}

func TestSignNil(t *testing.T) {
	s := testSigner(t)
	signed, err := s.Sign(nil)
	if err != nil || len(signed) != 1 {
		t.Fatalf("Sign(nil) = %v, %v", signed, err)
	}
	if err := VerifyBytes([]byte(`{"signature":`+string(encode(signed["signature"]))+`}`), s.PublicKey()); err != nil {
		t.Fatal(err)
	}
}

func TestSignerIdentity(t *testing.T) {
	s := testSigner(t)
	v := didKeyVectors[0]
	if s.DID() != v.did || s.KeyID() != v.did+"#"+strings.TrimPrefix(v.did, "did:key:") {
		t.Errorf("DID %s, KeyID %s", s.DID(), s.KeyID())
	}
	// A damaged public half is rebuilt from the seed.
	priv := vectorKey(t, v.seed)
	bad := append(ed25519.PrivateKey(nil), priv...)
	bad[40] ^= 1
	if NewSigner(bad).DID() != v.did {
		t.Error("NewSigner trusted a damaged public half")
	}
	defer func() {
		if recover() == nil {
			t.Error("NewSigner(short key) did not panic")
		}
	}()
	NewSigner(priv[:32])
}

// TestCanonicallyEqualVerifies: re-encodings that keep the RFC 8785 form
// verify, both as bytes and as decoded documents.
func TestCanonicallyEqualVerifies(t *testing.T) {
	s := testSigner(t)
	signed, err := s.SignBytes([]byte(`{"n":1,"f":0.5,"big":100,"s":"é","nested":{"x":[1,2]}}`))
	if err != nil {
		t.Fatal(err)
	}
	sig := string(encode(decodeObj(t, string(signed))["signature"]))
	for _, body := range []string{
		`{"n":1.0,"f":0.5,"big":100,"s":"é","nested":{"x":[1,2]}`,
		`{"n":1,"f":5e-1,"big":1e2,"s":"\u00e9","nested":{"x":[1.0,2.00]}`,
		`{ "nested" : { "x" : [ 10e-1 , 0.2e1 ] } , "s":"\u00E9", "big":100.0, "f":0.50, "n":1E0`,
	} {
		in := body + `,"signature":` + sig + `}`
		if err := VerifyBytes([]byte(in), s.PublicKey()); err != nil {
			t.Errorf("VerifyBytes(%s) = %v", in, err)
		}
	}
	changed := `{"n":1.5,"f":0.5,"big":100,"s":"é","nested":{"x":[1,2]},"signature":` + sig + `}`
	if err := VerifyBytes([]byte(changed), s.PublicKey()); !errors.Is(err, ErrBadSignature) {
		t.Errorf("VerifyBytes(%s) = %v, want ErrBadSignature", changed, err)
	}
}

func TestNegativeZeroIsZero(t *testing.T) {
	s := testSigner(t)
	signed, err := s.Sign(decodeObj(t, `{"z":0}`))
	if err != nil {
		t.Fatal(err)
	}
	signed["z"] = canon.Number("-0.0")
	if err := Verify(signed, s.PublicKey()); err != nil {
		t.Errorf("-0.0 vs 0: %v (RFC 8785 writes both as 0)", err)
	}
}

// TestEveryByteChange mutates each byte of a signed document, one at a
// time, to several other bytes. A mutation that no longer decodes is not a
// document; one whose body keeps its RFC 8785 form (per jcs applied to
// canon's own encoding, independent of the signer's) and whose signature
// keeps a well-formed block with the same alg and value must verify (the
// kid is not covered); every other one must fail.
func TestEveryByteChange(t *testing.T) {
	s := testSigner(t)
	signed, err := s.SignBytes([]byte(sampleResponse))
	if err != nil {
		t.Fatal(err)
	}
	orig := oracle(t, signed)
	checked := 0
	for i := range signed {
		for _, b := range []byte{'0', '.', signed[i] ^ 1} {
			if b == signed[i] {
				continue
			}
			m := bytes.Clone(signed)
			m[i] = b
			got, ok := oracleOK(m)
			if !ok {
				continue
			}
			checked++
			want := got.body == orig.body && got.alg == orig.alg && got.value == orig.value && got.blockOK
			if err := VerifyBytes(m, s.PublicKey()); (err == nil) != want {
				t.Fatalf("byte %d -> %q: VerifyBytes = %v, want ok=%v\n%s", i, b, err, want, m)
			}
		}
	}
	if checked < len(signed) {
		t.Fatalf("only %d mutations decoded", checked)
	}
}

type oracleView struct {
	body, alg, value string
	blockOK          bool // only alg, kid, value; kid a string if present
}

func oracle(t *testing.T, b []byte) oracleView {
	v, ok := oracleOK(b)
	if !ok {
		t.Fatalf("oracle cannot read %s", b)
	}
	return v
}

// oracleOK computes, without the signer's encoder, what a signature covers.
func oracleOK(b []byte) (oracleView, bool) {
	v, err := canon.Decode(b, nil)
	doc, isObj := v.(map[string]any)
	if err != nil || !isObj {
		return oracleView{}, false
	}
	sig, _ := doc["signature"].(map[string]any)
	delete(doc, "signature")
	body, err := jcs.Transform(canon.AppendValue(nil, doc))
	if err != nil {
		return oracleView{}, false
	}
	alg, _ := sig["alg"].(string)
	value, _ := sig["value"].(string)
	_, kidOK := sig["kid"].(string)
	blockOK := kidOK && len(sig) == 3 || sig["kid"] == nil && len(sig) == 2
	return oracleView{string(body), alg, value, blockOK}, true
}

func TestNestedChangeDetected(t *testing.T) {
	s := testSigner(t)
	signed, err := s.Sign(decodeObj(t, sampleResponse))
	if err != nil {
		t.Fatal(err)
	}
	doc := decodeObj(t, string(encode(signed)))
	payload := doc["candidates"].([]any)[0].(map[string]any)["payload"].(map[string]any)
	for _, change := range []func(){
		func() { payload["price"].(map[string]any)["amount"] = "99.9" }, // a string: not a number
		func() { payload["stock"] = canon.Number("101") },
		func() { payload["tags"].([]any)[1] = "日本" },
		func() { payload["extra"] = nil },
		func() { delete(payload, "name") },
	} {
		d := decodeObj(t, string(encode(signed)))
		payload = d["candidates"].([]any)[0].(map[string]any)["payload"].(map[string]any)
		change()
		if err := Verify(d, s.PublicKey()); !errors.Is(err, ErrBadSignature) {
			t.Errorf("after a nested change Verify = %v, want ErrBadSignature", err)
		}
	}
}

func TestUnicodeDocuments(t *testing.T) {
	s := testSigner(t)
	for _, str := range []string{"", "é", "\u00e9 vs e\u0301", "🏃‍♀️", "\U0001F600\uFFFF\uE000", "\u2028\u2029", "\x00\x1f\x7f", "日本語テキスト", "\ufeffbom"} {
		doc := map[string]any{"s": str, str: "as a name"}
		signed, err := s.Sign(doc)
		if err != nil {
			t.Fatalf("Sign(%q): %v", str, err)
		}
		if err := VerifyBytes(encode(signed), s.PublicKey()); err != nil {
			t.Errorf("VerifyBytes(%q): %v", str, err)
		}
		signed["s"] = str + " "
		if err := Verify(signed, s.PublicKey()); !errors.Is(err, ErrBadSignature) {
			t.Errorf("changed %q: %v", str, err)
		}
	}
	// Composed and decomposed é are different strings: no normalization.
	signed, _ := s.Sign(map[string]any{"s": "\u00e9"})
	signed["s"] = "e\u0301"
	if err := Verify(signed, s.PublicKey()); !errors.Is(err, ErrBadSignature) {
		t.Errorf("NFC vs NFD: %v, want ErrBadSignature", err)
	}
}

func TestGoValuesSignLikeDecoded(t *testing.T) {
	s := testSigner(t)
	goDoc := map[string]any{"i": 5, "u": uint8(7), "f": 2.5, "f32": float32(0.1), "l": []string{"a"}, "m": map[string]string{"k": "v"},
		"ms": []map[string]any{{"x": int64(-1)}}, "t": true, "n": nil}
	signed, err := s.Sign(goDoc)
	if err != nil {
		t.Fatal(err)
	}
	decoded := decodeObj(t, `{"i":5,"u":7,"f":2.5,"f32":0.1,"l":["a"],"m":{"k":"v"},"ms":[{"x":-1}],"t":true,"n":null}`)
	decoded["signature"] = signed["signature"]
	if err := Verify(decoded, s.PublicKey()); err != nil {
		t.Errorf("the decoded twin of a Go-built document does not verify: %v", err)
	}
}

func TestUnsignable(t *testing.T) {
	s := testSigner(t)
	for _, c := range []struct {
		doc  map[string]any
		want string
	}{
		{map[string]any{"a": math.NaN()}, "at /a: NaN"},
		{map[string]any{"a": []any{1, math.Inf(1)}}, "at /a/1: +Inf"},
		{map[string]any{"a": map[string]any{"b/c": struct{}{}}}, "at /a/b~1c: Go type struct {}"},
		{map[string]any{"a": "\xff"}, "at /a: string is not valid UTF-8"},
		{map[string]any{"\xff": 1}, "member name is not valid UTF-8"},
		{map[string]any{"a": canon.Number(`1,"admin":true`)}, "is not a JSON number"},
		{map[string]any{"a": canon.Number("1e999")}, "no RFC 8785 form"},
		{map[string]any{"a": canon.Number("01")}, "is not a JSON number"},
	} {
		_, err := s.Sign(c.doc)
		if !errors.Is(err, ErrUnsignable) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Sign(%v) = %v, want ErrUnsignable containing %q", c.doc, err, c.want)
		}
	}
}

func TestSignBytes(t *testing.T) {
	s := testSigner(t)
	out, err := s.SignBytes([]byte(sampleResponse))
	if err != nil {
		t.Fatal(err)
	}
	canonical, err := jcs.Transform(out)
	if err != nil || !bytes.Equal(canonical, out) {
		t.Errorf("SignBytes output is not RFC 8785:\n%s\n%s", out, canonical)
	}
	if err := VerifyBytes(out, s.PublicKey()); err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]error{
		`{"a":1,"a":2}`:    canon.ErrDuplicateName,
		`[1,2]`:            ErrNotObject,
		`"x"`:              ErrNotObject,
		`{"a":1} {}`:       canon.ErrSyntax,
		"{\"a\":\"\xff\"}": canon.ErrInvalidUTF8,
	} {
		if _, err := s.SignBytes([]byte(in)); !errors.Is(err, want) {
			t.Errorf("SignBytes(%q) = %v, want %v", in, err, want)
		}
		if err := VerifyBytes([]byte(in), s.PublicKey()); !errors.Is(err, want) {
			t.Errorf("VerifyBytes(%q) = %v, want %v", in, err, want)
		}
	}
}

// TestAppendSignedCanonical: signing a document's RFC 8785 bytes gives
// the bytes and signature AppendSigned gives for the document, empty or
// not, and they verify.
func TestAppendSignedCanonical(t *testing.T) {
	s := testSigner(t)
	for _, doc := range []map[string]any{{}, {"a": "x"}, typicalResponse(3)} {
		unsigned := canon.AppendValue(nil, doc)
		got, sig := s.AppendSignedCanonical([]byte("prefix"), unsigned)
		want, wantSig, err := s.AppendSigned([]byte("prefix"), doc)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) || sig["value"] != wantSig["value"] {
			t.Fatalf("AppendSignedCanonical\n%s\nAppendSigned\n%s", got, want)
		}
		if err := VerifyBytes(got[len("prefix"):], s.PublicKey()); err != nil {
			t.Fatal(err)
		}
	}
}

func TestSealCanonical(t *testing.T) {
	s := testSigner(t)
	for _, doc := range []map[string]any{{}, {"a": "x"}, typicalResponse(3)} {
		unsigned := canon.AppendValue(nil, doc)
		want, wantSig, err := s.AppendSigned(nil, doc)
		if err != nil {
			t.Fatal(err)
		}
		got, sig := s.SealCanonical(unsigned)
		if string(got) != string(want) || sig["value"] != wantSig["value"] {
			t.Fatalf("SealCanonical\n%s\nAppendSigned\n%s", got, want)
		}
		if err := VerifyBytes(got, s.PublicKey()); err != nil {
			t.Fatal(err)
		}
	}
}
