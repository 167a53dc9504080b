package canon

import (
	"bufio"
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gowebpki/jcs"
)

func TestValidNumber(t *testing.T) {
	for s, want := range map[string]bool{
		"0": true, "-0": true, "1.5": true, "1e5": true, "1E+5": true, "-1.0e-5": true, "123": true,
		"": false, "-": false, "01": false, "1.": false, ".5": false, "1e": false, "+1": false, "1 ": false, "0x10": false, "NaN": false,
	} {
		if validNumber(s) != want {
			t.Errorf("validNumber(%q) = %v", s, !want)
		}
	}
}

func TestCompareUTF16(t *testing.T) {
	// RFC 8785 §3.2.3's example order, plus the surrogate/E000 crossing.
	order := []string{"\r", "1", "a", "ab", "\u0080", "\u00f6", "\u20ac", "\U0001F600", "\U0001F601", "\U00020000", "\U0010FFFF", "\ufb33", "\uFFFD", "\uFFFF"}
	for i := range order {
		for j := range order {
			if got := compareUTF16(order[i], order[j]); sgn(got) != sgn(i-j) {
				t.Errorf("compareUTF16(%q, %q) = %d", order[i], order[j], got)
			}
		}
	}
}

func sgn(n int) int {
	switch {
	case n < 0:
		return -1
	case n > 0:
		return 1
	}
	return 0
}

// TestES6Numbers: AppendFloat on the reference doubles of the JCS suites.
func TestES6Numbers(t *testing.T) {
	for _, file := range []string{"jcs-cyberphone/es6numbers/es6testfile-first10k.txt",
		"jcs-lattice-json-canon/numbers/golden_vectors.csv", "jcs-lattice-json-canon/rfc8785/appendix_b.csv"} {
		path := filepath.Join(sharedVectors(t, filepath.Dir(file)), filepath.Base(file))
		fh, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			hexBits, want, _ := strings.Cut(sc.Text(), ",")
			want, _, _ = strings.Cut(want, ",")
			bits, err := strconv.ParseUint(hexBits, 16, 64)
			if err != nil {
				continue // header
			}
			f := math.Float64frombits(bits)
			if math.IsNaN(f) || math.IsInf(f, 0) {
				continue
			}
			if got := AppendFloat(nil, f); string(got) != want {
				t.Errorf("%s: %s → %s, want %s", file, hexBits, got, want)
			}
			n++
		}
		fh.Close()
		if n == 0 {
			t.Errorf("%s: no vectors", file)
		}
	}
}

// TestAppendCanonicalVectors: the writer on the decoded JCS reference
// inputs gives the reference outputs, as Canonicalize does on their bytes.
func TestAppendCanonicalVectors(t *testing.T) {
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
		v, err := Decode(raw, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := AppendCanonical(nil, v)
		if err != nil || !bytes.Equal(got, bytes.TrimRight(want, "\n")) {
			t.Errorf("%s: %v\n got %s\nwant %s", filepath.Base(in), err, got, want)
		}
	}
}

// TestAppendNumber: every literal of a number denotes the double it rounds
// to, written one way.
func TestAppendNumber(t *testing.T) {
	for in, want := range map[Number]string{
		"1": "1", "1.0": "1", "1e0": "1", "1E+2": "100", "-0": "0", "-0.0": "0", "0.30000000000000001": "0.3",
		"9007199254740993": "9007199254740992", "123456789012345678901234567890": "1.2345678901234568e+29",
		"1e21": "1e+21", "1e-7": "1e-7", "0.000001": "0.000001", "1e-400": "0", "-1.5e3": "-1500",
	} {
		got, err := AppendNumber([]byte("x"), in)
		if err != nil || string(got) != "x"+want {
			t.Errorf("AppendNumber(%s) = %s, %v; want %s", in, got, err, want)
		}
	}
	for _, in := range []Number{"1e400", "-1e309", "01", "1.", "", `1,"a":2`} {
		got, err := AppendNumber([]byte("x"), in)
		if !errors.Is(err, ErrNotCanonicalizable) || string(got) != "x" {
			t.Errorf("AppendNumber(%q) = %q, %v; want ErrNotCanonicalizable and dst unchanged", in, got, err)
		}
	}
}

// TestAppendCanonicalErrors: a value without a form is named by its
// pointer and leaves dst as it was; AppendValue writes null in its place.
func TestAppendCanonicalErrors(t *testing.T) {
	for _, c := range []struct {
		v       any
		ptr     string
		lenient string
	}{
		{map[string]any{"a": []any{Number("1.0"), math.NaN()}}, "/a/1", `{"a":[1,null]}`},
		{map[string]any{"a/b": Number("1e400")}, "/a~1b", `{"a/b":1e400}`},
		{[]any{Number(`1,"x":2`)}, "/0", `[null]`},
		{[]any{"\xff"}, "/0", `[null]`},
		{struct{}{}, "/", `null`},
	} {
		got, err := AppendCanonical([]byte("x"), c.v)
		var ve *ValueError
		if !errors.As(err, &ve) || ve.Pointer() != c.ptr || !errors.Is(err, ErrNotCanonicalizable) || string(got) != "x" {
			t.Errorf("AppendCanonical(%v) = %q, %v; want an error at %s", c.v, got, err, c.ptr)
		}
		if got := AppendValue(nil, c.v); string(got) != c.lenient {
			t.Errorf("AppendValue(%v) = %s, want %s", c.v, got, c.lenient)
		}
	}
}

// FuzzAppendNumberAgainstJCS holds the one number formatter to
// gowebpki/jcs: for any JSON number literal, the same text, or both
// refuse it.
func FuzzAppendNumberAgainstJCS(f *testing.F) {
	for _, s := range []string{"1", "1.0", "-0", "0.30000000000000001", "9007199254740993", "1e400", "1e-400",
		"123456789012345678901234567890", "5e-324", "1.7976931348623157e308", "1e21", "999999999999999999999", "0.000001", "1e-7"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if v, err := Decode([]byte(s), nil); err != nil || v != Number(s) {
			return // not exactly one number literal
		}
		got, err := AppendNumber(nil, Number(s))
		want, jerr := jcs.Transform([]byte(s))
		switch {
		case (err == nil) != (jerr == nil):
			t.Fatalf("%s: ours %q (%v), jcs %q (%v)", s, got, err, want, jerr)
		case err == nil && !bytes.Equal(got, want):
			t.Fatalf("%s: ours %s, jcs %s", s, got, want)
		}
	})
}

// FuzzCanonicalizeAgainstAppendCanonical: the put path, which rewrites
// bytes, and the writer, which writes values, give the same bytes.
func FuzzCanonicalizeAgainstAppendCanonical(f *testing.F) {
	fuzzSeeds(f)
	f.Add([]byte(`{"b":[1.0,1e2,-0.0,0.30000000000000001],"a":"\u00e9\n","\ud83d\ude00":1,"\ufb33":2}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := Canonicalize(nil, b, nil)
		if err != nil {
			return
		}
		v, err := Decode(b, nil)
		if err != nil {
			t.Fatalf("%q: canonicalized, but Decode refuses it: %v", b, err)
		}
		w, err := AppendCanonical(nil, v)
		if err != nil || !bytes.Equal(c, w) {
			t.Fatalf("%q:\nCanonicalize    %s\nAppendCanonical %s (%v)", b, c, w, err)
		}
	})
}

// TestCheckCanonicalRewritesNumbers: a number the put path's bytes carry
// in another form than AppendNumber's is rewritten in place, the rest
// kept, and the limits still checked.
func TestCheckCanonicalRewritesNumbers(t *testing.T) {
	in := []byte(`prefix{"a":[1.0,2,-0,"1.0",1e2],"b":{"c":0.30000000000000001}}`)
	got, ok := checkCanonical(in, len("prefix"), DefaultLimits())
	if want := `prefix{"a":[1,2,0,"1.0",100],"b":{"c":0.3}}`; !ok || string(got) != want {
		t.Errorf("got %s (%v), want %s", got, ok, want)
	}
	if _, ok := checkCanonical([]byte(`[[1.5]]`), 0, Limits{MaxDepth: 1, MaxMembers: 10}); ok {
		t.Error("depth limit not checked")
	}
}

// TestRoundedNumbers: put's warning names exactly the numbers whose value
// the stored form changes, at their pointers.
func TestRoundedNumbers(t *testing.T) {
	doc := `{"keep":[1.0,1e2,0.1,-0,123456789012345,1.5e-300,"0.30000000000000001"],
		"a":0.30000000000000001,"b":{"c/d":[9007199254740993]},"big":123456789012345678901234567890,
		"tiny":1e-400,"long":1.2500000000000000000000}`
	var got []string
	for _, r := range RoundedNumbers([]byte(doc)) {
		got = append(got, r.Pointer+" "+r.Literal+" "+r.Stored)
	}
	want := []string{"/a 0.30000000000000001 0.3", "/b/c~1d/0 9007199254740993 9007199254740992",
		"/big 123456789012345678901234567890 1.2345678901234568e+29", "/tiny 1e-400 0"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if r := RoundedNumbers([]byte(`{"a":1.5,"b":[12345678901234,"9007199254740993"]}`)); r != nil {
		t.Errorf("nothing rounds, got %v", r)
	}
	// A parsed document answers the same, and skips the scan when the
	// parse met no number that might round.
	d, err := ParseDocument([]byte(doc), KindJSON, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.numbersExact || len(d.Rounded([]byte(doc))) != len(want) {
		t.Errorf("parsed: numbersExact %v, %d rounded, want false and %d", d.numbersExact, len(d.Rounded([]byte(doc))), len(want))
	}
	exact := `{"a":1.5,"b":[12345678901234,"9007199254740993",1e2,-0.25]}`
	if d, err = ParseDocument([]byte(exact), KindJSON, nil); err != nil {
		t.Fatal(err)
	}
	if !d.numbersExact || d.Rounded([]byte(exact)) != nil {
		t.Errorf("parsed %s: numbersExact %v, rounded %v; want true, nil", exact, d.numbersExact, d.Rounded([]byte(exact)))
	}
}

// FuzzRoundedNumbers: the cheap scan never hides a number whose value
// the stored form changes.
func FuzzRoundedNumbers(f *testing.F) {
	fuzzSeeds(f)
	f.Add([]byte(`[0.30000000000000001,1e-400,9007199254740993,0.000000000000000000000000000001]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := Decode(b, nil)
		if err != nil {
			return
		}
		want := 0
		walkNumbers(v, "", func(_ string, n Number) bool {
			if c, err := AppendNumber(nil, n); err == nil && !sameDecimal(string(n), string(c)) {
				want++
			}
			return true
		})
		if got := len(RoundedNumbers(b)); got != want {
			t.Fatalf("%q: %d rounded numbers listed, %d in the document", b, got, want)
		}
		if d, err := ParseDocument(b, KindJSON, nil); err == nil {
			if got := len(d.Rounded(b)); got != want {
				t.Fatalf("%q: %d rounded numbers listed by the parsed document, %d in it", b, got, want)
			}
		}
	})
}

// TestRawValue: a RawValue is copied as it is wherever it sits; an empty
// one is refused by AppendCanonical, at its pointer, and written as null
// by AppendValue.
func TestRawValue(t *testing.T) {
	doc := map[string]any{"b": RawValue(`{"x":[1,"é"]}`), "a": []any{RawValue(`2`)}}
	got, err := AppendCanonical(nil, doc)
	if want := `{"a":[2],"b":{"x":[1,"é"]}}`; err != nil || string(got) != want {
		t.Fatalf("AppendCanonical = %s, %v; want %s", got, err, want)
	}
	_, err = AppendCanonical(nil, map[string]any{"c": RawValue(nil)})
	var ve *ValueError
	if !errors.As(err, &ve) || ve.Pointer() != "/c" {
		t.Fatalf("an empty RawValue: %v, want a ValueError at /c", err)
	}
	if got := AppendValue(nil, map[string]any{"c": RawValue(nil)}); string(got) != `{"c":null}` {
		t.Fatalf("AppendValue = %s", got)
	}
}

// TestAppendString: AppendString writes what AppendCanonical writes for
// a string, and refuses invalid UTF-8 leaving dst as it was.
func TestAppendString(t *testing.T) {
	for _, s := range []string{"", "plain", "q\"b\\s", "\t\n\u0001\u001f", "é—🏃\u2028"} {
		want, _ := AppendCanonical([]byte("x"), s)
		if got, err := AppendString([]byte("x"), s); err != nil || string(got) != string(want) {
			t.Errorf("AppendString(%q) = %s, %v; want %s", s, got, err, want)
		}
	}
	if got, err := AppendString([]byte("x"), "\xff"); !errors.Is(err, ErrNotCanonicalizable) || string(got) != "x" {
		t.Errorf("invalid UTF-8: %q, %v", got, err)
	}
}
