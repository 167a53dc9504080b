package index

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/internal/corpus"
)

// postingLog records what an extractor emits, one line per posting.
type postingLog struct{ b bytes.Buffer }

func (l *postingLog) emit(p []byte, fam byte, value []byte) {
	fmt.Fprintf(&l.b, "%x %c %x\n", p, fam, value)
}

// textEvery makes every path with an odd number of bytes a text path, so
// that trigram postings are emitted at some paths and not at others.
func textEvery(p []byte) bool { return len(p)%2 == 1 }

// extractBoth returns the postings of the canonical document c from the
// extractor and from the oracle (the walk of index format v4 as it was
// written first), under the text paths text.
func extractBoth(c []byte, text func([]byte) bool) (got, want string) {
	var gl, wl postingLog
	x := extractor{emit: gl.emit, text: text}
	x.walk(c)
	o := oracleExtractor{emit: wl.emit, text: text}
	o.walk(c)
	return gl.b.String(), wl.b.String()
}

func checkAgainstOracle(t *testing.T, name string, c []byte) {
	t.Helper()
	for _, text := range []func([]byte) bool{nil, textEvery, func([]byte) bool { return true }} {
		if got, want := extractBoth(c, text); got != want {
			t.Fatalf("%s: %.200s\nextractor:\n%.2000s\noracle:\n%.2000s", name, c, got, want)
		}
	}
}

// TestExtractMatchesOracle: on generated documents of every kind, and on
// the canon package's fuzz corpus, the extractor emits exactly the
// oracle's postings (path, family, value), in the oracle's order.
func TestExtractMatchesOracle(t *testing.T) {
	n := 0
	for _, kind := range corpus.Kinds() {
		for i := range 200 {
			raw, err := corpus.Document(kind, 7, i, nil)
			if err != nil {
				t.Fatal(err)
			}
			c, err := canon.Canonicalize(nil, raw, nil)
			if err != nil {
				t.Fatalf("%s %d: %v", kind, i, err)
			}
			checkAgainstOracle(t, fmt.Sprintf("%s %d", kind, i), c)
			n++
		}
	}
	files, _ := filepath.Glob("../canon/testdata/fuzz/*/*")
	files2, _ := filepath.Glob("testdata/fuzz/FuzzExtractMatchesOracle/*")
	for _, f := range append(files, files2...) {
		for _, in := range fuzzFileBytes(t, f) {
			if c, err := canon.Canonicalize(nil, in, nil); err == nil {
				checkAgainstOracle(t, f, c)
				n++
			}
		}
	}
	if n < 1000 {
		t.Fatalf("only %d documents compared", n)
	}
}

// fuzzFileBytes reads the []byte values of a Go fuzz corpus file.
func fuzzFileBytes(t *testing.T, name string) [][]byte {
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for _, line := range strings.Split(string(b), "\n") {
		if q, ok := strings.CutPrefix(line, "[]byte("); ok {
			if s, err := strconv.Unquote(strings.TrimSuffix(q, ")")); err == nil {
				out = append(out, []byte(s))
			}
		}
	}
	return out
}

// FuzzExtractMatchesOracle: on any document canon accepts, the extractor
// emits the oracle's postings; on any bytes at all it does not panic.
func FuzzExtractMatchesOracle(f *testing.F) {
	for _, s := range []string{`{"a":1,"b":[true,false,null,"x"]}`, `{"a\"b":{"c\\d":"e\u0000f"}}`, `[[["2025-09-10T18:51:27Z"]]]`,
		`{"n":[0,-0.5,1e21,1.5e-7,123456789012345680000,0.000001,-7]}`, `{"d":["007.50","-0.00","1.","-","12345678901234567890123456789012345678901234567890"]}`,
		`"2026-01-01t00:00:00.1234567891+01:00"`, `{"s":"ab","t":"abc","u":"` + strings.Repeat("x", 200) + `"}`, `7`, `"é😀abc"`, `{}`, `[]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var l postingLog
		x := extractor{emit: l.emit, text: textEvery}
		x.walk(b) // any bytes: no panic
		if c, err := canon.Canonicalize(nil, b, nil); err == nil {
			checkAgainstOracle(t, "fuzz", c)
		}
	})
}

// FuzzDecimalText: appendDecimalText gives AppendNumberKey's key for every
// text it reads, and reads every plain decimal of up to maxPlainDigits
// digits; isDecimal is canon.IsDecimal.
func FuzzDecimalText(f *testing.F) {
	for _, s := range []string{"0", "-0", "1.50", "007.5", "-0.001", "1e5", "12.", ".5", "-", "", "1.2.3", "99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if isDecimal([]byte(s)) != canon.IsDecimal(s) {
			t.Fatalf("%q: isDecimal %v, canon.IsDecimal %v", s, isDecimal([]byte(s)), canon.IsDecimal(s))
		}
		got, ok := appendDecimalText([]byte("x"), []byte(s))
		want, err := AppendNumberKey([]byte("x"), s)
		if ok && (err != nil || !bytes.Equal(got, want)) {
			t.Fatalf("%q: %x, AppendNumberKey %x (%v)", s, got, want, err)
		}
		digits := strings.Count(s, "") - 1 - strings.Count(s, "-") - strings.Count(s, ".")
		if !ok && isDecimal([]byte(s)) && digits <= maxPlainDigits {
			t.Fatalf("%q: a plain decimal not read", s)
		}
	})
}

// TestExtractSeveralValues: a path through an array gets the typed
// posting once per document and the several-values posting only when
// the document has a second value of the type there, with the values
// counted afresh for each document an extractor walks (Extract reuses
// them), in documents with few array paths and with more than
// rangeSeenLinear.
func TestExtractSeveralValues(t *testing.T) {
	var many strings.Builder
	many.WriteString(`{"m":[{`)
	for i := range 3 * rangeSeenLinear {
		fmt.Fprintf(&many, `"p%02d":[%d,"%d.5","2026-01-0%dT00:00:00Z"],`, i, i, i, 1+i%2)
	}
	many.WriteString(`"q":1}]}`)
	docs := []struct {
		body        string
		typed, many int // postings of each family
	}{
		{`{"a":[1],"b":["2026-01-01T00:00:00Z"],"c":2}`, 3, 0},
		{`{"a":[1,"2.50",3],"b":["2026-01-01T00:00:00Z","x"]}`, 2, 1},
		{`{"a":[{"x":1},{"x":2},{"y":3}]}`, 2, 1},
		{`{"a":[[1,2],[3]],"t":["2026-01-01T00:00:00Z","2026-01-02T00:00:00Z"]}`, 2, 2},
		{`{"a":[1]}`, 1, 0}, // after a document with several: counted afresh
		{many.String(), 6*rangeSeenLinear + 1, 3 * rangeSeenLinear},
	}
	var x extractor
	for _, d := range docs {
		c, err := canon.Canonicalize(nil, []byte(d.body), nil)
		if err != nil {
			t.Fatal(err)
		}
		checkAgainstOracle(t, d.body, c)
		typed, several := 0, 0
		x.emit = func(_ []byte, fam byte, _ []byte) {
			switch fam {
			case famTyped:
				typed++
			case famMulti:
				several++
			}
		}
		x.walk(c)
		if typed != d.typed || several != d.many {
			t.Errorf("%.80s: %d typed and %d several-values postings, want %d and %d", d.body, typed, several, d.typed, d.many)
		}
	}
}
