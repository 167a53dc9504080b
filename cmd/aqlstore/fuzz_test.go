package main

import (
	"bytes"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// FuzzReadDocs: the put command's splitter cuts any input into whole
// JSON values (duplicate names and bad UTF-8 are left for the parser),
// numbered in order, each with the line it starts on; its answer does
// not depend on how the input arrives (one byte at a time, or with the
// last read returning an error alongside data), nor does the line a
// refusal names; and a refusal names the source and a line of the input.
func FuzzReadDocs(f *testing.F) {
	for _, s := range []string{"{\"a\":1}\n{\"b\":\n 2}\n\n{\"c\":3}\n{\"d\":\"\xff\"}\n", "[\n {\"a\":1},\n {\"b\":2}\n]\n",
		"\n\n{\n  \"a\": 1\n}\n", "[]", "[1,2] [3]", "1 2 3", `{"a":1,"a":2}`, "{\"a\":1}\r\n{", "[{\"a\":1},", "\"\n\"", "]"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		docs, err := readAll(bytes.NewReader(b))
		checkDocs(t, b, docs, err)
		for _, r := range []func() ([]rawDoc, error){
			func() ([]rawDoc, error) { return readAll(&chunked{Reader: bytes.NewReader(b), max: 1}) },
			func() ([]rawDoc, error) { return readAll(&chunked{Reader: bytes.NewReader(b), max: 7, dataErr: true}) },
		} {
			again, err2 := r()
			if !reflect.DeepEqual(again, docs) || errWhere(err2) != errWhere(err) {
				t.Fatalf("%q read in other chunks gives %v, %v; want %v, %v", b, again, err2, docs, err)
			}
		}
	})
}

// chunked reads at most max bytes at a time, and with dataErr returns
// io.EOF with the last bytes (as iotest.DataErrReader); it can still seek
// and read at an offset, as the files put reads can.
type chunked struct {
	*bytes.Reader
	max     int
	dataErr bool
}

func (c *chunked) Read(p []byte) (int, error) {
	if len(p) > c.max {
		p = p[:c.max]
	}
	n, err := c.Reader.Read(p)
	if err == nil && c.dataErr && c.Reader.Len() == 0 {
		err = io.EOF
	}
	return n, err
}

func readAll(r interface{ Read([]byte) (int, error) }) ([]rawDoc, error) {
	var docs []rawDoc
	_, err := readDocs(r, "in", func(d *rawDoc) error {
		if d.err != nil { // the first bad document ends the read, as it must for a reader that cannot seek
			return fmt.Errorf("%s:%d: %w", d.source, d.line, d.err)
		}
		docs = append(docs, *d)
		return nil
	})
	return docs, err
}

// errWhere is the position an error names ("in:3"): the decoder's own
// wording may differ with the chunks it read (a rune it had whole, or one
// byte of it), the line may not.
func errWhere(err error) string {
	if err == nil {
		return ""
	}
	where, _, _ := strings.Cut(err.Error(), ": ")
	return where
}

// checkDocs checks each document against where it sits in b.
func checkDocs(t *testing.T, b []byte, docs []rawDoc, err error) {
	pos := 0
	for i, d := range docs {
		if d.index != i || d.source != "in" {
			t.Fatalf("document %d numbered %d from %q", i, d.index, d.source)
		}
		if !jsontext.Value(d.body).IsValid(jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)) {
			t.Fatalf("document %d is not one JSON value: %q", i, d.body)
		}
		at := bytes.Index(b[pos:], d.body)
		if at < 0 {
			t.Fatalf("document %d %q is not in the input after byte %d", i, d.body, pos)
		}
		pos += at
		if want := 1 + bytes.Count(b[:pos], []byte("\n")); d.line != want {
			t.Fatalf("document %d starts on line %d, read as line %d", i, want, d.line)
		}
		pos += len(d.body)
	}
	if err == nil {
		return
	}
	msg := err.Error()
	rest, ok := strings.CutPrefix(msg, "in:")
	line, _, _ := strings.Cut(rest, ":")
	n, cerr := strconv.Atoi(line)
	if !ok || cerr != nil || n < 1 || n > 1+bytes.Count(b, []byte("\n")) || !strings.Contains(msg, "invalid JSON") {
		t.Fatalf("error %q names no line of the input", msg)
	}
}

// FuzzParseSize: a size is accepted only as a whole, non-negative number
// of bytes or of KiB, MiB or GiB that fits in 62 bits; the number of
// bytes it gives reads back as itself.
func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"0", "1048576", "64MiB", "2GiB", "512 KiB", "100B", "", "MiB", "-1", "1.5GiB", "64MB",
		"4611686018427387904GiB", "ten", "+5", " 7 ", "0x10"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := parseSize(s)
		if err != nil {
			if n != 0 || !strings.Contains(err.Error(), strconv.Quote(s)) {
				t.Fatalf("parseSize(%q) = %d, %v", s, n, err)
			}
			return
		}
		if n < 0 || n > 1<<62 {
			t.Fatalf("parseSize(%q) = %d", s, n)
		}
		if back, err := parseSize(strconv.FormatInt(n, 10)); err != nil || back != n {
			t.Fatalf("parseSize(%q) = %d, which reads back as %d, %v", s, n, back, err)
		}
	})
}
