package main

import (
	"bufio"
	"bytes"
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
	err    error // the document is not JSON (a *docSyntaxError); body is nil
	fast   bool  // readLines found it: a fault in it is told by readDocs
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
// largest document. A document that is not JSON reaches fn with err set
// (a *docSyntaxError); when r can seek, reading resumes at the next
// document (the line of the fault when the bad document began on an
// earlier line, else the line after it), so that every bad line of an
// NDJSON input is reported, not only the first. Inside a top-level array
// there is no next document to resume at, and reading stops there.
func readDocs(r io.Reader, source string, fn func(*rawDoc) error) (int, error) {
	lr := &lineReader{r: r, lastNL: -1}
	opts := []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}
	dec := jsontext.NewDecoder(lr, opts...)
	base := int64(0) // offset in r of dec's first byte
	n := 0
	emit := func(v jsontext.Value) error {
		start := base + dec.InputOffset() - int64(len(v))
		d := &rawDoc{source: source, line: lr.lineAt(start), index: n, body: append([]byte(nil), v...)}
		lr.forget(start)
		n++
		return fn(d)
	}
	// bad hands fn the document that failed to decode with err, and
	// returns where to resume reading, or -1 when reading cannot go on.
	inArray := false
	bad := func(prevEnd int64, err error) (int64, error) {
		se := lr.syntax(base, dec, locate(r, prevEnd, base, err, opts))
		first := se.off // in an array, the element's start is not kept: the fault's line it is
		if !inArray {
			first = lr.firstByte(prevEnd, se.off)
		}
		d := &rawDoc{source: source, line: lr.lineAt(first), index: n, err: se}
		n++
		if err := fn(d); err != nil {
			return -1, err
		}
		if se.eof {
			return -1, nil
		}
		return lr.resync(first, se.off), nil
	}
	if dec.PeekKind() == '[' {
		inArray = true
		if _, err := dec.ReadToken(); err != nil {
			_, ferr := bad(0, err)
			return n, ferr
		}
		for dec.PeekKind() != ']' {
			v, err := dec.ReadValue()
			if err != nil {
				_, ferr := bad(0, err)
				return n, ferr
			}
			if err := emit(v); err != nil {
				return n, err
			}
		}
		if _, err := dec.ReadToken(); err != nil {
			_, ferr := bad(0, err)
			return n, ferr
		}
		inArray = false
	}
	for {
		prevEnd := base + dec.InputOffset()
		v, err := dec.ReadValue()
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			next, ferr := bad(prevEnd, err)
			if ferr != nil || next < 0 {
				return n, ferr
			}
			base = next
			dec.Reset(lr, opts...)
			continue
		}
		if err := emit(v); err != nil {
			return n, err
		}
	}
}

// firstByte returns the offset of the first byte of the bad document
// that failed at off, the first one not blank after prevEnd; off when the
// input cannot seek.
func (l *lineReader) firstByte(prevEnd, off int64) int64 {
	sk, ok := l.r.(io.Seeker)
	if !ok {
		return off
	}
	first, err := l.scan(sk, prevEnd, func(b byte) bool { return b != ' ' && b != '\t' && b != '\r' && b != '\n' })
	if err != nil || first > off {
		return off
	}
	return first
}

// resync moves the reader to the start of the document after a bad one
// that began at first and failed at off: the start of the fault's line
// when the bad document began on an earlier line (the fault is then
// likely the next document, as in `{"a":1,` followed by a whole line),
// else the line after the fault. It returns that offset, or -1 when the
// input cannot seek or ends first.
func (l *lineReader) resync(first, off int64) int64 {
	sk, ok := l.r.(io.Seeker)
	if !ok {
		return -1
	}
	var at int64
	if i := sort.Search(len(l.newlines), func(i int) bool { return l.newlines[i] >= off }); i > 0 && l.newlines[i-1] > first {
		at = l.newlines[i-1] + 1
	} else {
		nl, err := l.scan(sk, off, func(b byte) bool { return b == '\n' })
		if err != nil {
			return -1
		}
		at = nl + 1
	}
	if _, err := sk.Seek(at, io.SeekStart); err != nil {
		return -1
	}
	i := sort.Search(len(l.newlines), func(i int) bool { return l.newlines[i] >= at })
	l.newlines = l.newlines[:i]
	l.off = at
	return at
}

// scan returns the offset of the first byte at or after from for which
// stop is true, reading l.r directly (resync seeks it afterwards). It
// counts the newlines it passes that the decoder has not read yet.
func (l *lineReader) scan(sk io.Seeker, from int64, stop func(byte) bool) (int64, error) {
	if _, err := sk.Seek(from, io.SeekStart); err != nil {
		return 0, err
	}
	br := bufio.NewReader(l.r)
	for off := from; ; off++ {
		b, err := br.ReadByte()
		if err != nil {
			return 0, err
		}
		if b == '\n' && off >= l.off {
			l.newlines = append(l.newlines, off)
			l.off = off + 1
		}
		if stop(b) {
			return off, nil
		}
	}
}

// locate reads the bad value after prevEnd again, token by token, when r
// allows it: a decoder reading a whole value reports where the value
// began, a token at a time it reports the byte at fault and the JSON
// Pointer of the member. The error it returns has offsets relative to
// base, as the caller's decoder's have; err when it finds nothing better.
func locate(r io.Reader, prevEnd, base int64, err error, opts []jsontext.Options) error {
	ra, ok := r.(io.ReaderAt)
	if !ok {
		return err
	}
	dec := jsontext.NewDecoder(io.NewSectionReader(ra, prevEnd, 1<<62), opts...)
	for {
		if _, terr := dec.ReadToken(); terr != nil {
			var se *jsontext.SyntacticError
			if !errors.As(terr, &se) {
				return err
			}
			return &jsontext.SyntacticError{ByteOffset: prevEnd - base + se.ByteOffset, JSONPointer: se.JSONPointer, Err: se.Err}
		}
		if dec.StackDepth() == 0 && prevEnd > 0 {
			return err // a whole value: the fault is not in it
		}
	}
}

// docSyntaxError is a document that is not JSON: where (line and column
// in its source, JSON Pointer within the document) and why.
type docSyntaxError struct {
	Line, Column int
	Pointer      string
	Err          error
	off          int64 // offset of the fault in the source
	eof          bool  // the input ended inside the document
}

func (e *docSyntaxError) Error() string {
	at := fmt.Sprintf("line %d, column %d", e.Line, e.Column)
	if e.Pointer != "" {
		at += ", at " + e.Pointer
	}
	return fmt.Sprintf("invalid JSON at %s: %v (each document must be one JSON value; in NDJSON, one per line)", at, e.Err)
}

// syntax turns a decoder error into where it is in the source.
func (l *lineReader) syntax(base int64, dec *jsontext.Decoder, err error) *docSyntaxError {
	off := base + dec.InputOffset()
	ptr := ""
	var se *jsontext.SyntacticError
	if errors.As(err, &se) {
		off = base + se.ByteOffset
		ptr = string(se.JSONPointer)
		err = se.Err
	}
	eof := errors.Is(err, io.ErrUnexpectedEOF)
	if eof {
		err = errors.New("unexpected end of input (truncated document or unclosed bracket)")
	}
	line, col := l.lineColumnAt(off)
	return &docSyntaxError{Line: line, Column: col, Pointer: ptr, Err: err, off: off, eof: eof}
}

// lineReader counts lines as a decoder reads, remembering only the
// newlines after the last document it was told to forget.
type lineReader struct {
	r        io.Reader
	off      int64   // bytes read so far
	newlines []int64 // offsets of '\n' at or after the forget mark
	base     int     // newlines before newlines[0]
	lastNL   int64   // offset of the last newline before newlines[0], -1 for none
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

// lineColumnAt returns the 1-based line and column (in bytes) of off.
func (l *lineReader) lineColumnAt(off int64) (int, int) {
	i := sort.Search(len(l.newlines), func(i int) bool { return l.newlines[i] >= off })
	prev := l.lastNL
	if i > 0 {
		prev = l.newlines[i-1]
	}
	return l.base + i + 1, int(off - prev)
}

// forget drops the newlines before off; later lookups are at or after it.
func (l *lineReader) forget(off int64) {
	i := sort.Search(len(l.newlines), func(i int) bool { return l.newlines[i] >= off })
	if i > 0 {
		l.lastNL = l.newlines[i-1]
	}
	l.base += i
	l.newlines = append(l.newlines[:0], l.newlines[i:]...)
}

// readLines is readDocs for an input that holds one JSON object per line,
// without reading any document twice: each line, blank lines skipped and
// its blanks trimmed, reaches fn as a document (with fast set) for the
// parser to read, where readDocs scans every value with a decoder first
// to find where it ends. Lines are all it finds, so it has nothing to say
// of a fault: the first document of the input whose line does not start
// with '{' ends it with errNotLines, and a caller that finds a fast
// document at fault reads the input again with readDocs, which says
// exactly where (line, column, JSON Pointer) and reports every bad
// document. A document readLines hands over is the one readDocs would,
// with the same body, line and index, whenever the line holds one JSON
// value.
func readLines(r io.Reader, source string, fn func(*rawDoc) error) (int, error) {
	var lr blockLines
	n, line := 0, 0
	for {
		b, err := lr.next(r)
		if err != nil && err != io.EOF {
			return n, err
		}
		line++
		body := trimBlank(b)
		if len(body) > 0 {
			if body[0] != '{' {
				return n, errNotLines
			}
			if ferr := fn(&rawDoc{source: source, line: line, index: n, body: body, fast: true}); ferr != nil {
				return n, ferr
			}
			n++
		}
		if err == io.EOF {
			return n, nil
		}
	}
}

// lineBlock is how many bytes blockLines allocates at a time.
var lineBlock = 1 << 20

// blockLines splits its input into lines that are slices of the blocks
// it reads into, each block a new array: a line is handed over without a
// copy or an allocation of its own (bufio's ReadBytes made both, 0.9 of
// 79 CPU-s in a profile of putting 1,000,000 manifests; the blocks are
// allocated instead, a megabyte at a time), and stays valid as long as
// it is referenced.
type blockLines struct {
	buf   []byte // the block: lines handed over, then buf[start:], read and not yet handed over
	start int
	from  int  // where the search for the next newline goes on, past bytes searched
	eof   bool // the reader reported io.EOF
	empty int  // reads in a row that returned nothing
}

// maxEmptyReads is how many reads in a row may return no byte and no
// error before next gives up with io.ErrNoProgress, as bufio does.
const maxEmptyReads = 100

// next returns the next line with its newline, and io.EOF with the
// last, which has none (and may be empty), as ReadBytes does.
func (l *blockLines) next(r io.Reader) ([]byte, error) {
	for {
		if i := bytes.IndexByte(l.buf[l.from:], '\n'); i >= 0 {
			end := l.from + i + 1
			b := l.buf[l.start:end:end]
			l.start, l.from = end, end
			return b, nil
		}
		if l.eof {
			b := l.buf[l.start:len(l.buf):len(l.buf)]
			l.start, l.from = len(l.buf), len(l.buf)
			return b, io.EOF
		}
		l.from = len(l.buf)
		if len(l.buf) == cap(l.buf) { // full: the unfinished line moves to a new block
			rest := len(l.buf) - l.start
			nb := make([]byte, rest, max(lineBlock, 2*rest))
			copy(nb, l.buf[l.start:])
			l.buf, l.from, l.start = nb, rest, 0
		}
		m, err := r.Read(l.buf[len(l.buf):cap(l.buf)])
		l.buf = l.buf[:len(l.buf)+m]
		switch {
		case err == io.EOF:
			l.eof = true
		case err != nil:
			return nil, err
		case m > 0:
			l.empty = 0
		default:
			if l.empty++; l.empty == maxEmptyReads {
				return nil, io.ErrNoProgress
			}
		}
	}
}

// errNotLines is readLines finding an input that is not one JSON object
// per line.
var errNotLines = errors.New("the input is not one JSON object per line")

// trimBlank returns b without its leading and trailing JSON blanks.
func trimBlank(b []byte) []byte {
	blank := func(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }
	for len(b) > 0 && blank(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && blank(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}
