package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// rawDoc is one document read from an input, with where it came from.
type rawDoc struct {
	source string // file name, or "stdin"
	line   int    // line on which the document starts
	index  int    // position in its source, from 0
	body   []byte
}

// where names the document for error messages: file:line (document N).
func (d *rawDoc) where() string {
	return fmt.Sprintf("%s:%d (document %d)", d.source, d.line, d.index+1)
}

// inputFiles expands the put arguments: "-" is stdin, a directory means
// every *.json, *.ndjson and *.jsonl file below it, in name order.
func inputFiles(args []string) ([]string, error) {
	var files []string
	for _, a := range args {
		if a == "-" {
			files = append(files, a)
			continue
		}
		info, err := os.Stat(a)
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			files = append(files, a)
			continue
		}
		var found []string
		err = filepath.WalkDir(a, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && isDocumentFile(p) {
				found = append(found, p)
			}
			return err
		})
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("%s: no *.json, *.ndjson or *.jsonl files", a)
		}
		sort.Strings(found)
		files = append(files, found...)
	}
	return files, nil
}

func isDocumentFile(p string) bool {
	switch strings.ToLower(filepath.Ext(p)) {
	case ".json", ".ndjson", ".jsonl", ".pairl":
		return true
	}
	return false
}

// readDocs streams the documents of r to fn: a single JSON document,
// NDJSON (or any whitespace-separated JSON values), or one top-level JSON
// array whose elements are the documents. Memory stays bounded by the
// largest document.
func readDocs(r io.Reader, source string, fn func(*rawDoc) error) (int, error) {
	lr := &lineReader{r: r}
	dec := jsontext.NewDecoder(lr, jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	n := 0
	emit := func(v jsontext.Value) error {
		start := dec.InputOffset() - int64(len(v))
		d := &rawDoc{source: source, line: lr.lineAt(start), index: n, body: append([]byte(nil), v...)}
		lr.forget(start)
		n++
		return fn(d)
	}
	if dec.PeekKind() == '[' {
		if _, err := dec.ReadToken(); err != nil {
			return n, lr.syntax(source, dec, err)
		}
		for dec.PeekKind() != ']' {
			v, err := dec.ReadValue()
			if err != nil {
				return n, lr.syntax(source, dec, err)
			}
			if err := emit(v); err != nil {
				return n, err
			}
		}
		if _, err := dec.ReadToken(); err != nil {
			return n, lr.syntax(source, dec, err)
		}
	}
	for {
		v, err := dec.ReadValue()
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, lr.syntax(source, dec, err)
		}
		if err := emit(v); err != nil {
			return n, err
		}
	}
}

// syntax turns a decoder error into file:line: reason.
func (l *lineReader) syntax(source string, dec *jsontext.Decoder, err error) error {
	off := dec.InputOffset()
	var se *jsontext.SyntacticError
	if errors.As(err, &se) {
		off = se.ByteOffset
		err = se.Err
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		err = errors.New("unexpected end of input (truncated document or unclosed bracket)")
	}
	return fmt.Errorf("%s:%d: invalid JSON: %v", source, l.lineAt(off), err)
}

// lineReader counts lines as a decoder reads, remembering only the
// newlines after the last document it was told to forget.
type lineReader struct {
	r        io.Reader
	off      int64   // bytes read so far
	newlines []int64 // offsets of '\n' at or after the forget mark
	base     int     // newlines before newlines[0]
}

func (l *lineReader) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	for i, b := range p[:n] {
		if b == '\n' {
			l.newlines = append(l.newlines, l.off+int64(i))
		}
	}
	l.off += int64(n)
	return n, err
}

// lineAt returns the 1-based line of byte offset off.
func (l *lineReader) lineAt(off int64) int {
	i := sort.Search(len(l.newlines), func(i int) bool { return l.newlines[i] >= off })
	return l.base + i + 1
}

// forget drops the newlines before off; later lookups are at or after it.
func (l *lineReader) forget(off int64) {
	i := sort.Search(len(l.newlines), func(i int) bool { return l.newlines[i] >= off })
	l.base += i
	l.newlines = append(l.newlines[:0], l.newlines[i:]...)
}
