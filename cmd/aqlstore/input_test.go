package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aqlstore/aqlstore/internal/corpus"
)

func TestReadDocsLines(t *testing.T) {
	cases := []struct {
		name, in string
		lines    []int
	}{
		{"ndjson", "{\"a\":1}\n{\"b\":\n 2}\n\n{\"c\":3}\n{\"d\":\"\xff\"}\n", []int{1, 2, 5, 6}},
		{"array", "[\n {\"a\":1},\n {\"b\":2}\n]\n", []int{2, 3}},
		{"single pretty", "\n\n{\n  \"a\": 1\n}\n", []int{3}},
	}
	for _, c := range cases {
		var got []int
		_, err := readDocs(strings.NewReader(c.in), c.name, func(d *rawDoc) error {
			got = append(got, d.line)
			return nil
		})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if len(got) != len(c.lines) {
			t.Fatalf("%s: lines %v, want %v", c.name, got, c.lines)
		}
		for i := range got {
			if got[i] != c.lines[i] {
				t.Errorf("%s: lines %v, want %v", c.name, got, c.lines)
				break
			}
		}
	}
}

// TestReadLinesEqualsReadDocs reads inputs of one JSON object per line —
// blank lines, CRLF, blanks around a line, no newline at the end — with
// readLines and readDocs: the same documents (body, line, index) in the
// same order. An input that is not one object per line is refused.
func TestReadLinesEqualsReadDocs(t *testing.T) {
	type doc struct {
		body        string
		line, index int
	}
	read := func(f func(r *strings.Reader, source string, fn func(*rawDoc) error) (int, error), in string) ([]doc, error) {
		var got []doc
		_, err := f(strings.NewReader(in), "in", func(d *rawDoc) error {
			got = append(got, doc{string(d.body), d.line, d.index})
			return nil
		})
		return got, err
	}
	for _, in := range []string{
		"{\"a\":1}\n{\"b\":2}\n",
		"\n\n{\"a\":1}\r\n\r\n  {\"b\": [1, 2]}\t \n{\"c\":\"x y\"}",
		"{\"a\":\"\xff\"}\n\n\n{}\n",
		"",
	} {
		want, err := read(func(r *strings.Reader, s string, fn func(*rawDoc) error) (int, error) { return readDocs(r, s, fn) }, in)
		if err != nil {
			t.Fatalf("%q: readDocs: %v", in, err)
		}
		got, err := read(func(r *strings.Reader, s string, fn func(*rawDoc) error) (int, error) { return readLines(r, s, fn) }, in)
		if err != nil {
			t.Fatalf("%q: readLines: %v", in, err)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%q: readLines %v, readDocs %v", in, got, want)
		}
	}
	for _, in := range []string{"[{\"a\":1}]\n", "{\"a\":1}\n\"x\"\n"} {
		if _, err := readLines(strings.NewReader(in), "in", func(*rawDoc) error { return nil }); !errors.Is(err, errNotLines) {
			t.Errorf("%q: %v, want errNotLines", in, err)
		}
	}
}

// TestPutBadLineInLargeNDJSON puts an NDJSON file of thousands of
// documents with a malformed line and a duplicate member in the middle:
// both are reported as when the input is read value by value (line,
// column, JSON Pointer), the documents are counted, and nothing is
// stored.
func TestPutBadLineInLargeNDJSON(t *testing.T) {
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "store")
	run(t, dir, "", "init")
	var b bytes.Buffer
	for i := 1; i <= 4000; i++ {
		switch i {
		case 1501:
			b.WriteString("{\"offer_id\": }\n")
		case 2750:
			fmt.Fprintf(&b, "{\"x\":1,\"x\":2,\"offer_id\":\"o-%d\"}\n", i)
		default:
			fmt.Fprintf(&b, "{\"offer_id\":\"o-%d\",\"price\":%d,\"title\":\"thing %d\"}\n", i, i, i)
		}
	}
	p := writeFile(t, tmp, "big.ndjson", b.String())
	code, _, errs := run(t, dir, "", "put", p)
	for _, want := range []string{
		"big.ndjson:1501 (document 1501): invalid JSON at line 1501, column 14, at /offer_id: missing value after object name",
		"big.ndjson:2750 (document 2750): line 2750, column 8 (at /x): duplicate member name",
		"2 of 4000 documents rejected; nothing was stored",
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	code, out, _ := run(t, dir, "", "--json", "stats")
	if code != 0 || !strings.Contains(out, `"documents":0`) || !strings.Contains(out, `"receipts":0`) {
		t.Fatalf("bad input changed the store: %s", out)
	}
}

// TestReadLinesAcrossBlocks reads inputs with readLines in blocks far
// smaller than their lines, through a reader that returns a few bytes
// per call: the same documents as readDocs, and every body intact after
// later blocks were read (a line is a slice of its block, which must
// not be written again).
func TestReadLinesAcrossBlocks(t *testing.T) {
	defer func(b int) { lineBlock = b }(lineBlock)
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		var in strings.Builder
		docs := rng.IntN(12)
		for d := range docs {
			in.WriteString(strings.Repeat("\n", rng.IntN(3)))
			fmt.Fprintf(&in, "%s{\"n\":%d,\"s\":%q}%s", strings.Repeat(" ", rng.IntN(3)), d, strings.Repeat("x", rng.IntN(40)), strings.Repeat("\r", rng.IntN(2)))
			if d < docs-1 || rng.IntN(2) == 0 { // the last line may have no newline
				in.WriteString("\n")
			}
		}
		text := in.String()
		var want []string
		if _, err := readDocs(strings.NewReader(text), "in", func(d *rawDoc) error {
			want = append(want, fmt.Sprintf("%s %d %d", d.body, d.line, d.index))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		lineBlock = 1 + rng.IntN(16)
		var bodies [][]byte
		var got []string
		_, err := readLines(&trickle{s: text, rng: rng}, "in", func(d *rawDoc) error {
			bodies = append(bodies, d.body)
			got = append(got, fmt.Sprintf("%s %d %d", d.body, d.line, d.index))
			return nil
		})
		if err != nil {
			t.Fatalf("trial %d, %q: %v", trial, text, err)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("trial %d, block %d, %q:\nreadLines %v\nreadDocs  %v", trial, lineBlock, text, got, want)
		}
		for i, b := range bodies { // still what they were when handed over
			if !strings.HasPrefix(got[i], string(b)+" ") {
				t.Fatalf("trial %d: body %d changed to %q after later reads (%s)", trial, i, b, got[i])
			}
		}
	}
}

// TestReadLinesGivesUpOnEmptyReads: a reader that returns nothing and
// no error, forever, ends readLines with io.ErrNoProgress, not a hang.
func TestReadLinesGivesUpOnEmptyReads(t *testing.T) {
	_, err := readLines(emptyReader{}, "in", func(*rawDoc) error { return nil })
	if !errors.Is(err, io.ErrNoProgress) {
		t.Fatalf("readLines: %v, want io.ErrNoProgress", err)
	}
}

type emptyReader struct{}

func (emptyReader) Read([]byte) (int, error) { return 0, nil }

// trickle is a reader of s that returns 1 to 5 bytes per Read.
type trickle struct {
	s   string
	rng *rand.Rand
}

func (r *trickle) Read(p []byte) (int, error) {
	if len(r.s) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), 1+r.rng.IntN(5))], r.s)
	r.s = r.s[n:]
	return n, nil
}

// BenchmarkReadLines splits 10,000 generated manifests, one per line,
// as put reads an NDJSON file.
func BenchmarkReadLines(b *testing.B) {
	var in bytes.Buffer
	for i := range 10_000 {
		body, _ := corpus.Document("manifest", 1, i, nil)
		in.Write(body)
		in.WriteByte('\n')
	}
	b.SetBytes(int64(in.Len()))
	for b.Loop() {
		if _, err := readLines(bytes.NewReader(in.Bytes()), "in", func(*rawDoc) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzReadLines holds readLines, at any block size and any read sizes,
// to a reference that splits the whole input with bufio's ReadBytes, as
// readLines did before it read in blocks: the same documents, lines and
// indexes, and the same refusal of an input that is not one object per
// line.
func FuzzReadLines(f *testing.F) {
	f.Add([]byte("{\"a\":1}\n\n  {\"b\":2}\r\n{\"c\":3}"), uint8(3), uint64(1))
	f.Add([]byte("{\"a\":1}\n[1]\n"), uint8(1), uint64(2))
	f.Add([]byte("\n\n\n"), uint8(0), uint64(3))
	f.Fuzz(func(t *testing.T, in []byte, block uint8, seed uint64) {
		reference := func() ([]string, error) {
			var got []string
			br := bufio.NewReader(bytes.NewReader(in))
			n, line := 0, 0
			for {
				b, err := br.ReadBytes('\n')
				line++
				if body := trimBlank(b); len(body) > 0 {
					if body[0] != '{' {
						return got, errNotLines
					}
					got = append(got, fmt.Sprintf("%q %d %d", body, line, n))
					n++
				}
				if err != nil {
					return got, nil
				}
			}
		}
		want, wantErr := reference()
		defer func(b int) { lineBlock = b }(lineBlock)
		lineBlock = 1 + int(block)
		var got []string
		_, err := readLines(&trickle{s: string(in), rng: rand.New(rand.NewPCG(seed, 0))}, "in", func(d *rawDoc) error {
			got = append(got, fmt.Sprintf("%q %d %d", d.body, d.line, d.index))
			return nil
		})
		if !errors.Is(err, wantErr) && !(err == nil && wantErr == nil) {
			t.Fatalf("readLines: %v, want %v", err, wantErr)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("readLines %v\nReadBytes %v", got, want)
		}
	})
}
