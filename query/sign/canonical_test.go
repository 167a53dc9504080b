package sign

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/aqlstore/aqlstore/canon"
	"pgregory.net/rapid"
)

// canonical is the one writer applied to any value, its errors in this
// package's terms.
func canonical(v any) ([]byte, error) {
	b, err := canon.AppendCanonical(nil, v)
	if err != nil {
		return nil, unsignable(err)
	}
	return b, nil
}

// signingInput returns the bytes a signature over doc covers.
func signingInput(doc map[string]any) ([]byte, error) {
	e, err := newBody(doc)
	defer e.release()
	if err != nil {
		return nil, err
	}
	return bytes.Clone(e.buf), nil
}

// Runes that exercise escaping and the UTF-16 member order: controls,
// quote and backslash, DEL, line separators, both sides of the surrogate
// range (U+D7FF, U+E000, U+FFFF against U+10000 and above).
var testRunes = []rune{'a', 'b', 'z', 'A', '0', ' ', '/', '"', '\\', '\x00', '\b', '\t', '\n', '\f', '\r', '\x1f', '\x7f',
	'é', '€', 'ｚ', '\u2028', '\u2029', '\uD7FF', '\uE000', '\uFB33', '\uFFFD', '\uFFFF', '\U00010000', '\U0001F600', '\U0010FFFF'}

func genString(t *rapid.T, label string, maxLen int) string {
	s := string(rapid.SliceOfN(rapid.SampledFrom(testRunes), 0, maxLen).Draw(t, label))
	if rapid.IntRange(0, 50).Draw(t, label+"-bad") == 0 {
		s += "\xff" // invalid UTF-8: both encoders must refuse it
	}
	return s
}

// genNumberText draws JSON number literals: long mantissas, exponents at
// the edges of the double range, -0, and now and then text that is not a
// number at all.
func genNumberText(t *rapid.T) canon.Number {
	switch rapid.IntRange(0, 9).Draw(t, "numkind") {
	case 0:
		f := math.Float64frombits(rapid.Uint64().Draw(t, "bits"))
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return "1e400"
		}
		return canon.Number(strconv.FormatFloat(f, rapid.SampledFrom([]byte{'e', 'E', 'f', 'g'}).Draw(t, "fmt"), -1, 64))
	case 1:
		return canon.Number(rapid.SampledFrom([]string{"-0", "-0.0", "0e5", "1e-400", "1e309", "-1e309", "1E+2", "9007199254740993",
			"123456789012345", "1234567890123456", "-999999999999999", "1e21", "1e-7", "0.000001", "+1", "01", "1.", ".5", "0x1", "1e", "--1", ""}).Draw(t, "special"))
	}
	var b strings.Builder
	if rapid.Bool().Draw(t, "neg") {
		b.WriteByte('-')
	}
	if digits := rapid.IntRange(0, 25).Draw(t, "int"); digits == 0 {
		b.WriteByte('0')
	} else {
		b.WriteByte(byte('1' + rapid.IntRange(0, 8).Draw(t, "lead")))
		for range digits - 1 {
			b.WriteByte(byte('0' + rapid.IntRange(0, 9).Draw(t, "d")))
		}
	}
	if n := rapid.IntRange(0, 20).Draw(t, "frac"); n > 0 && rapid.Bool().Draw(t, "hasfrac") {
		b.WriteByte('.')
		for range n {
			b.WriteByte(byte('0' + rapid.IntRange(0, 9).Draw(t, "f")))
		}
	}
	if rapid.Bool().Draw(t, "hasexp") {
		b.WriteString(rapid.SampledFrom([]string{"e", "E", "e+", "e-", "E-"}).Draw(t, "e"))
		b.WriteString(strconv.Itoa(rapid.IntRange(0, 340).Draw(t, "exp")))
	}
	return canon.Number(b.String())
}

func genScalar(t *rapid.T) any {
	switch rapid.IntRange(0, 13).Draw(t, "scalar") {
	case 0:
		return nil
	case 1:
		return rapid.Bool().Draw(t, "bool")
	case 2, 3:
		return genString(t, "str", 12)
	case 4, 5:
		return genNumberText(t)
	case 6:
		return math.Float64frombits(rapid.Uint64().Draw(t, "f64"))
	case 7:
		return rapid.Float64().Draw(t, "float")
	case 8:
		return math.Float32frombits(rapid.Uint32().Draw(t, "f32"))
	case 9:
		return rapid.Int64().Draw(t, "i64")
	case 10:
		return rapid.Uint64().Draw(t, "u64")
	case 11:
		n := rapid.Int64Range(-3, 3).Draw(t, "near") + 1<<53
		return rapid.SampledFrom([]any{int(n), -n, uint64(n), int32(n), int8(n), uint16(n), uint(n)}).Draw(t, "kind")
	case 12:
		return rapid.SampledFrom([]any{struct{}{}, []int{1}, math.Inf(-1), float32(math.NaN())}).Draw(t, "unsignable")
	}
	return rapid.IntRange(-1000, 1000).Draw(t, "int")
}

func genValue(t *rapid.T, depth int) any {
	if depth <= 0 {
		return genScalar(t)
	}
	switch rapid.IntRange(0, 9).Draw(t, "value") {
	case 0, 1:
		return genObject(t, depth-1)
	case 2:
		n := rapid.IntRange(0, 4).Draw(t, "len")
		a := make([]any, n)
		for i := range a {
			a[i] = genValue(t, depth-1)
		}
		return a
	case 3:
		return rapid.SliceOfN(rapid.Custom(func(t *rapid.T) string { return genString(t, "s", 6) }), 0, 3).Draw(t, "strings")
	case 4:
		m := map[string]string{}
		for range rapid.IntRange(0, 4).Draw(t, "n") {
			m[genString(t, "k", 3)] = genString(t, "v", 5)
		}
		return m
	case 5:
		return []map[string]any{genObject(t, depth-1), genObject(t, depth-1)}
	}
	return genScalar(t)
}

func genObject(t *rapid.T, depth int) map[string]any {
	m := map[string]any{}
	for range rapid.IntRange(0, 6).Draw(t, "members") {
		m[genString(t, "name", 3)] = genValue(t, depth)
	}
	return m
}

// genDoc draws a document whose top-level names crowd around "signature",
// where the signature member is inserted.
func genDoc(t *rapid.T) map[string]any {
	doc := genObject(t, 3)
	near := []string{"signature", "signatur", "signaturf", "signature\x00", "signaturE", "sign", "s", "t", "a", "z", "é", "\U0001F600", "signatureé"}
	for range rapid.IntRange(0, 4).Draw(t, "near") {
		doc[rapid.SampledFrom(near).Draw(t, "nearName")] = genValue(t, 1)
	}
	return doc
}

// TestCanonicalMatchesJCS holds the one-pass encoder to the old path
// (plain JSON re-parsed by gowebpki/jcs): the same bytes, or both refuse.
func TestCanonicalMatchesJCS(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		v := genValue(t, 4)
		got, err := canonical(v)
		want, werr := legacyCanonicalJSON(v)
		checkSame(t, got, err, want, werr)
		if doc, ok := v.(map[string]any); ok {
			got, err := signingInput(doc)
			want, werr := legacySigningInput(doc)
			checkSame(t, got, err, want, werr)
		}
	})
}

func checkSame(t *rapid.T, got []byte, err error, want []byte, werr error) {
	t.Helper()
	switch {
	case werr != nil && !errors.Is(err, ErrUnsignable):
		t.Fatalf("jcs refused (%v), the encoder gave %s, %v", werr, got, err)
	case werr == nil && !bytes.Equal(got, want):
		t.Fatalf("encoder %s (%v)\n    jcs %s", got, err, want)
	}
}

// TestAppendSignedIsCanonical: the bytes AppendSigned appends are the RFC
// 8785 form (per jcs) of the document with its signature, the signature is
// the one the old path made, and Verify and VerifyBytes accept it.
func TestAppendSignedIsCanonical(t *testing.T) {
	s := testSigner(t)
	rapid.Check(t, func(t *rapid.T) {
		doc := genDoc(t)
		before := maps.Clone(doc)
		dst := []byte(genString(t, "dst", 3))
		prefix := bytes.Clone(dst)
		b, sig, err := s.AppendSigned(dst, doc)
		if fmt.Sprint(doc) != fmt.Sprint(before) {
			t.Fatalf("AppendSigned changed its input")
		}
		old, oerr := legacySign(s, doc)
		if oerr != nil {
			if !errors.Is(err, ErrUnsignable) || !bytes.Equal(b, prefix) || sig != nil {
				t.Fatalf("old path refused (%v); AppendSigned = %q, %v, %v", oerr, b, sig, err)
			}
			return
		}
		if err != nil {
			t.Fatalf("AppendSigned: %v (the old path signed)", err)
		}
		if !bytes.HasPrefix(b, prefix) {
			t.Fatalf("AppendSigned did not append to dst %q: %q", prefix, b)
		}
		wire := b[len(prefix):]
		if !reflect.DeepEqual(sig, old[signatureMember]) {
			t.Fatalf("signature %v, the old path signed %v", sig, old[signatureMember])
		}
		signed := maps.Clone(doc)
		signed[signatureMember] = sig
		want, err := legacyCanonicalJSON(signed)
		if err != nil || !bytes.Equal(wire, want) {
			t.Fatalf("wire %s\n jcs %s (%v)", wire, want, err)
		}
		if err := Verify(signed, s.PublicKey()); err != nil {
			t.Fatalf("Verify: %v", err)
		}
		if err := VerifyBytes(wire, s.PublicKey()); err != nil {
			t.Fatalf("VerifyBytes: %v\n%s", err, wire)
		}
		if viaSign, err := s.Sign(doc); err != nil || !reflect.DeepEqual(viaSign[signatureMember], sig) {
			t.Fatalf("Sign gave %v, %v; AppendSigned %v", viaSign[signatureMember], err, sig)
		}
	})
}

// TestAppendSignedPlacement puts the signature member before, between
// and after the other members, in documents with and without an old
// signature.
func TestAppendSignedPlacement(t *testing.T) {
	s := testSigner(t)
	for _, doc := range []map[string]any{
		nil, {}, {"a": 1}, {"z": 1}, {"a": 1, "z": 2}, {"signature": "old"}, {"signature": "old", "a": 1},
		{"signaturf": 1, "signatur": 2, "signature\x00": 3}, {"é": 1, "t": []any{}},
	} {
		b, sig, err := s.AppendSigned([]byte("x"), doc)
		if err != nil {
			t.Fatal(err)
		}
		signed := maps.Clone(doc)
		if signed == nil {
			signed = map[string]any{}
		}
		signed[signatureMember] = sig
		want, err := legacyCanonicalJSON(signed)
		if err != nil || string(b) != "x"+string(want) {
			t.Errorf("AppendSigned(%v) = %s, want x%s (%v)", doc, b, want, err)
		}
	}
}

func TestDepthLimit(t *testing.T) {
	deep := func(n int) map[string]any {
		var v any = "leaf"
		for range n - 1 {
			v = []any{v}
		}
		return map[string]any{"a": v}
	}
	if _, err := signingInput(deep(canon.MaxWriteDepth)); err != nil {
		t.Errorf("%d levels: %v", canon.MaxWriteDepth, err)
	}
	_, err := signingInput(deep(canon.MaxWriteDepth + 1))
	if !errors.Is(err, ErrUnsignable) || !strings.Contains(err.Error(), "nested more than 10000") {
		t.Errorf("%d levels: %v", canon.MaxWriteDepth+1, err)
	}
	if _, err := legacySigningInput(deep(canon.MaxWriteDepth + 1)); err == nil {
		t.Errorf("jcs accepted %d levels; canon.MaxWriteDepth no longer matches it", canon.MaxWriteDepth+1)
	}
	if _, err := legacySigningInput(deep(canon.MaxWriteDepth)); err != nil {
		t.Errorf("jcs refused %d levels: %v", canon.MaxWriteDepth, err)
	}
}

// sharedVectors returns the path of a folder under ../shared/vectors, or
// skips the test: a user's clone has no ../shared.
func sharedVectors(t testing.TB, sub string) string {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "shared", "vectors", sub)
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("public vectors not present (%s): %v", dir, err)
	}
	return dir
}

// TestCyberphoneVectors: the encoder on the decoded JCS reference inputs
// gives the reference outputs.
func TestCyberphoneVectors(t *testing.T) {
	dir := sharedVectors(t, "jcs-cyberphone")
	inputs, _ := filepath.Glob(filepath.Join(dir, "input", "*.json"))
	if len(inputs) == 0 {
		t.Fatal("no JCS input files")
	}
	for _, in := range inputs {
		raw, err := os.ReadFile(in)
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join(dir, "output", filepath.Base(in)))
		if err != nil {
			t.Fatal(err)
		}
		v, err := canon.Decode(raw, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := canonical(v)
		if err != nil || !bytes.Equal(got, bytes.TrimRight(want, "\n")) {
			t.Errorf("%s: %v\n got %s\nwant %s", filepath.Base(in), err, got, want)
		}
	}
}
