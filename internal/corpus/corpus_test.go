package corpus

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"testing"
)

func TestKinds(t *testing.T) {
	want := []string{"candidate", "knowledge", "manifest", "message", "offer"}
	if got := Kinds(); !slices.Equal(got, want) {
		t.Fatalf("Kinds() = %v, want %v", got, want)
	}
}

func TestUnknownKind(t *testing.T) {
	_, err := New(Config{Kind: "receipt", N: 1})
	if !errors.Is(err, ErrUnknownKind) {
		t.Fatalf("New(receipt) error = %v, want ErrUnknownKind", err)
	}
	for _, k := range Kinds() {
		if !strings.Contains(err.Error(), k) {
			t.Errorf("error %q does not list kind %q", err, k)
		}
	}
	if _, err := Document("nope", 1, 0, nil); !errors.Is(err, ErrUnknownKind) {
		t.Errorf("Document(nope) error = %v, want ErrUnknownKind", err)
	}
	if Predicates("nope") != nil {
		t.Error("Predicates(nope) is not nil")
	}
}

func TestNegative(t *testing.T) {
	if _, err := New(Config{Kind: KindOffer, N: -1}); !errors.Is(err, ErrNegative) {
		t.Errorf("New(N=-1) error = %v, want ErrNegative", err)
	}
	if _, err := Document(KindOffer, 1, -1, nil); !errors.Is(err, ErrNegative) {
		t.Errorf("Document(i=-1) error = %v, want ErrNegative", err)
	}
}

// TestDeterminism checks that a document depends only on (kind, seed, i):
// the Generator's sequence, Document out of order, and a second seed.
func TestDeterminism(t *testing.T) {
	const n = 500
	for _, kind := range Kinds() {
		t.Run(kind, func(t *testing.T) {
			seq := generate(t, kind, 7, n)
			for _, i := range []int{n - 1, 0, 250, 13} { // out of order on purpose
				doc, err := Document(kind, 7, i, []byte("prefix"))
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(doc[len("prefix"):], seq[i]) {
					t.Fatalf("Document(%d) differs from the generator's document %d", i, i)
				}
			}
			again := generate(t, kind, 7, n)
			other := generate(t, kind, 8, n)
			same := 0
			for i := range seq {
				if !bytes.Equal(seq[i], again[i]) {
					t.Fatalf("document %d differs between two runs with seed 7", i)
				}
				if bytes.Equal(seq[i], other[i]) {
					same++
				}
			}
			if same > 0 {
				t.Errorf("%d of %d documents equal under seeds 7 and 8", same, n)
			}
		})
	}
}

func TestWriteNDJSON(t *testing.T) {
	const n = 3000 // several flushes of the write buffer
	g, err := New(Config{Kind: KindManifest, Seed: 3, N: n})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := g.WriteNDJSON(&out); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(&out)
	sc.Buffer(nil, 1<<20)
	i := 0
	for ; sc.Scan(); i++ {
		want, _ := Document(KindManifest, 3, i, nil)
		if !bytes.Equal(sc.Bytes(), want) {
			t.Fatalf("line %d differs from Document(%d)", i+1, i)
		}
	}
	if i != n {
		t.Fatalf("got %d lines, want %d", i, n)
	}
	if _, ok := g.Next(nil); ok {
		t.Error("Next after WriteNDJSON returned a document")
	}
}

func TestWriteNDJSONError(t *testing.T) {
	g, _ := New(Config{Kind: KindOffer, N: 10})
	if err := g.WriteNDJSON(failWriter{}); !errors.Is(err, io.ErrShortWrite) {
		t.Fatalf("WriteNDJSON error = %v, want the writer's error", err)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, io.ErrShortWrite }

// TestValidJSON checks every document is one compact JSON object with no
// duplicate member names (encoding/json alone would accept duplicates).
func TestValidJSON(t *testing.T) {
	for _, kind := range Kinds() {
		t.Run(kind, func(t *testing.T) {
			for i, doc := range generate(t, kind, 1, 2000) {
				if err := checkStrictJSON(doc); err != nil {
					t.Fatalf("document %d: %v\n%s", i, err, doc)
				}
			}
		})
	}
}

func checkStrictJSON(doc []byte) error {
	if !json.Valid(doc) {
		return errors.New("invalid JSON")
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, doc); err != nil || !bytes.Equal(compact.Bytes(), doc) {
		return errors.New("not compact")
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	if err := checkValue(dec, ""); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("trailing data")
	}
	return nil
}

// checkValue consumes one value from dec, failing on a duplicate name.
func checkValue(dec *json.Decoder, ptr string) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch tok {
	case json.Delim('{'):
		seen := map[string]bool{}
		for dec.More() {
			name, err := dec.Token()
			if err != nil {
				return err
			}
			k := name.(string)
			if seen[k] {
				return fmt.Errorf("duplicate member %s/%s", ptr, k)
			}
			seen[k] = true
			if err := checkValue(dec, ptr+"/"+k); err != nil {
				return err
			}
		}
	case json.Delim('['):
		for j := 0; dec.More(); j++ {
			if err := checkValue(dec, fmt.Sprintf("%s/%d", ptr, j)); err != nil {
				return err
			}
		}
	default:
		return nil
	}
	_, err = dec.Token() // the closing delimiter
	return err
}

func TestEncMilli(t *testing.T) {
	for m, want := range map[int]string{0: "0", 5: "0.005", 50: "0.05", 500: "0.5", 990: "0.99", 999: "0.999", 1000: "1", 1234: "1.234"} {
		e := enc{}
		e.milli(m)
		if string(e.b) != want {
			t.Errorf("milli(%d) = %s, want %s", m, e.b, want)
		}
	}
}

func TestEncStringEscapes(t *testing.T) {
	e := enc{}
	e.str("a\"b\\c\n\x01")
	var got string
	if err := json.Unmarshal(e.b, &got); err != nil || got != "a\"b\\c\n\x01" {
		t.Fatalf("str round trip = %q, %v (encoded %s)", got, err, e.b)
	}
}

// generate returns documents 0..n-1 of kind under seed from a Generator.
func generate(tb testing.TB, kind string, seed uint64, n int) [][]byte {
	tb.Helper()
	g, err := New(Config{Kind: kind, Seed: seed, N: n})
	if err != nil {
		tb.Fatal(err)
	}
	docs := make([][]byte, 0, n)
	for {
		doc, ok := g.Next(nil)
		if !ok {
			return docs
		}
		docs = append(docs, doc)
	}
}

func BenchmarkGenerate(b *testing.B) {
	for _, kind := range Kinds() {
		b.Run(kind, func(b *testing.B) {
			g, err := New(Config{Kind: kind, Seed: 1, N: math.MaxInt})
			if err != nil {
				b.Fatal(err)
			}
			buf := make([]byte, 0, 16<<10)
			total := 0
			for b.Loop() {
				buf, _ = g.Next(buf[:0])
				total += len(buf)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "docs/s")
			b.ReportMetric(float64(total)/float64(b.N), "bytes/doc")
		})
	}
}

func BenchmarkWriteNDJSON(b *testing.B) {
	const n = 20000
	for b.Loop() {
		g, _ := New(Config{Kind: KindManifest, Seed: 1, N: n})
		if err := g.WriteNDJSON(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "docs/s")
}
