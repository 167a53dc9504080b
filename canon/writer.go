package canon

import (
	"fmt"
	"slices"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// This file is aqlstore's one RFC 8785 writer for values: documents built
// or decoded in Go, responses, signatures, cursor and intent digests all
// go through AppendCanonical (or AppendValue, its form for values that
// have one by construction). Canonicalize, the put path, rewrites bytes
// without a tree; its numbers go through the same formatter (number.go),
// and the tests hold it byte-identical to AppendCanonical of the decoded
// document and both to gowebpki/jcs.

// RawValue is a value already in RFC 8785 form (written by this writer,
// or canonical bytes of a stored document): AppendCanonical copies it as
// it is, without checking it, so that a value written once to bytes can
// be placed in a document built in Go. An empty RawValue is an error (a
// writer that failed leaves one).
type RawValue []byte

// MaxWriteDepth is the nesting AppendCanonical accepts: what gowebpki/jcs
// accepts, so that a hostile Go value cannot exhaust the stack.
const MaxWriteDepth = 10000

// AppendCanonical appends the RFC 8785 form of v to dst: members in UTF-16
// order of their names (SortedKeys' order), numbers as ECMAScript writes
// them (so 1.0, 1 and 1e0 are all written 1), strings with the minimal
// escapes. v holds the decoded-document model (Decode's types) and, for
// documents built in Go, the Go integer and float types, []string,
// []map[string]any, map[string]string and RawValue.
//
// A value without an RFC 8785 form (NaN, a number outside the double
// range, invalid UTF-8, another Go type, nesting past MaxWriteDepth) is an
// error: a *ValueError naming its JSON Pointer, wrapping
// ErrNotCanonicalizable; dst is then returned unchanged. The returned
// slice is dst extended. Safe for concurrent use.
func AppendCanonical(dst []byte, v any) ([]byte, error) {
	e := newWriter(dst)
	defer e.release()
	if err := e.value(v); err != nil {
		return dst, err
	}
	return e.buf, nil
}

// AppendCanonicalExcept appends the RFC 8785 form of doc without its
// member named skip (the bytes a signature member covers, for instance)
// and returns the offset in b at which that member belongs: before the
// first name that sorts after skip, else before the closing brace. skip
// must be ASCII. Errors as AppendCanonical.
func AppendCanonicalExcept(dst []byte, doc map[string]any, skip string) (b []byte, at int, err error) {
	e := newWriter(dst)
	defer e.release()
	if at, err = e.objectExcept(doc, skip); err != nil {
		return dst, 0, err
	}
	return e.buf, at, nil
}

// AppendString appends s as an RFC 8785 string, quoted with the minimal
// escapes: what AppendCanonical writes for it, without boxing s in an
// interface. Invalid UTF-8 is an error wrapping ErrNotCanonicalizable,
// and dst is then returned unchanged.
func AppendString(dst []byte, s string) ([]byte, error) {
	e := writer{buf: dst}
	if err := e.str(s); err != nil {
		return dst, err
	}
	return e.buf, nil
}

// AppendValue appends the RFC 8785 form of v, for values that have one by
// construction (documents Decode returned, values built from them). Where
// a part of v has none, AppendValue does not fail: a number outside the
// double range (1e400) keeps its literal text, so that Canonicalize or
// any RFC 8785 reader of the bytes still refuses it rather than the data
// changing silently; any other such part is written as null. Code that
// takes values from outside uses AppendCanonical and reports the error.
func AppendValue(dst []byte, v any) []byte {
	e := newWriter(dst)
	defer e.release()
	e.lenient = true
	_ = e.value(v) // lenient: never fails
	return e.buf
}

// writer writes the RFC 8785 form of a Go value in one pass.
type writer struct {
	buf     []byte
	keys    []string // names of the objects being written, innermost last
	depth   int
	lenient bool // write null for a value without a form, do not fail
}

// writers keeps finished writers for their names: a response has an
// object per candidate, record and evaluation whose names are sorted.
var writers = sync.Pool{New: func() any { return new(writer) }}

func newWriter(dst []byte) *writer {
	e := writers.Get().(*writer)
	e.buf, e.depth, e.lenient = dst, 0, false
	return e
}

// release returns e to the pool; its buffer belongs to the caller.
func (e *writer) release() {
	clear(e.keys[:cap(e.keys)]) // do not pin the callers' strings
	e.keys, e.buf = e.keys[:0], nil
	writers.Put(e)
}

// objectExcept writes doc without its member skip; see
// AppendCanonicalExcept.
func (e *writer) objectExcept(doc map[string]any, skip string) (int, error) {
	if err := e.enter(); err != nil {
		return 0, err
	}
	base := len(e.keys)
	keys := pushKeys(e, doc)
	defer func() { e.keys = e.keys[:base] }()
	e.buf = append(e.buf, '{')
	at, n := -1, 0
	for _, k := range keys {
		if k == skip {
			continue
		}
		// skip is ASCII, so byte order agrees with UTF-16 order.
		if at < 0 && k > skip {
			at = len(e.buf)
		}
		if err := e.member(n, k, doc[k]); err != nil {
			return 0, err
		}
		n++
	}
	if at < 0 {
		at = len(e.buf)
	}
	e.buf = append(e.buf, '}')
	e.depth--
	return at, nil
}

func (e *writer) value(v any) error {
	mark, depth := len(e.buf), e.depth
	err := e.anyValue(v)
	if err != nil && e.lenient {
		e.buf, e.depth = append(e.buf[:mark], "null"...), depth
		if n, ok := v.(Number); ok && validNumber(string(n)) {
			e.buf = append(e.buf[:mark], n...)
		}
		return nil
	}
	return err
}

func (e *writer) anyValue(v any) error {
	switch v := v.(type) {
	case string:
		return e.str(v)
	case Number:
		return e.number(v)
	case map[string]any:
		return writeObject(e, v)
	case []any:
		return writeArray(e, v, (*writer).value)
	case bool:
		e.buf = strconv.AppendBool(e.buf, v)
		return nil
	case nil:
		e.buf = append(e.buf, "null"...)
		return nil
	case []string:
		return writeArray(e, v, (*writer).str)
	case []map[string]any:
		return writeArray(e, v, writeObject[any])
	case map[string]string:
		return writeObject(e, v)
	case RawValue:
		if len(v) == 0 {
			return &ValueError{Reason: "empty RawValue: a value written elsewhere failed"}
		}
		e.buf = append(e.buf, v...)
		return nil
	}
	return e.goNumber(v)
}

// writeObject writes m with its members in RFC 8785 order.
func writeObject[V any](e *writer, m map[string]V) error {
	if err := e.enter(); err != nil {
		return err
	}
	base := len(e.keys)
	e.buf = append(e.buf, '{')
	for i, k := range pushKeys(e, m) {
		if err := e.member(i, k, m[k]); err != nil {
			e.keys = e.keys[:base]
			return err
		}
	}
	e.buf = append(e.buf, '}')
	e.keys = e.keys[:base]
	e.depth--
	return nil
}

// member writes the i-th member of an object.
func (e *writer) member(i int, name string, v any) error {
	if i > 0 {
		e.buf = append(e.buf, ',')
	}
	if err := e.str(name); err != nil {
		return within(&ValueError{Reason: "member name is not valid UTF-8"}, name)
	}
	e.buf = append(e.buf, ':')
	return within(e.value(v), name)
}

// writeArray writes a with each element written by elem.
func writeArray[T any](e *writer, a []T, elem func(*writer, T) error) error {
	if err := e.enter(); err != nil {
		return err
	}
	e.buf = append(e.buf, '[')
	for i, v := range a {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		if err := elem(e, v); err != nil {
			return within(err, strconv.Itoa(i))
		}
	}
	e.buf = append(e.buf, ']')
	e.depth--
	return nil
}

func (e *writer) enter() error {
	if e.depth++; e.depth > MaxWriteDepth {
		return &ValueError{Reason: fmt.Sprintf("nested more than %d arrays and objects deep", MaxWriteDepth)}
	}
	return nil
}

// str writes s quoted. Plain ASCII, by far the common case, is copied as
// it is; anything else goes through jsontext, whose escaping is RFC 8785's
// (§3.2.2.2: \b \t \n \f \r \" \\, other controls as \u00xx, the rest
// verbatim).
func (e *writer) str(s string) error {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			out, err := jsontext.AppendQuote(e.buf, s)
			if err != nil {
				return &ValueError{Reason: "string is not valid UTF-8"}
			}
			e.buf = out
			return nil
		}
	}
	e.buf = append(e.buf, '"')
	e.buf = append(e.buf, s...)
	e.buf = append(e.buf, '"')
	return nil
}

// pushKeys appends m's names to e.keys, sorts them as RFC 8785 §3.2.3 does
// (by UTF-16 code units) and returns them. The caller truncates e.keys
// back when the object is written.
func pushKeys[V any](e *writer, m map[string]V) []string {
	base := len(e.keys)
	for k := range m {
		e.keys = append(e.keys, k)
	}
	keys := e.keys[base:]
	slices.SortFunc(keys, compareUTF16)
	return keys
}

// compareUTF16 orders strings by their UTF-16 code units. That is byte
// order except where a character above U+FFFF (a surrogate pair,
// D800–DFFF) meets one in E000–FFFF, which UTF-8 orders the other way.
func compareUTF16[T string | []byte](a, b T) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	switch {
	case i == n:
		return len(a) - len(b)
	case a[i] < utf8.RuneSelf || b[i] < utf8.RuneSelf:
		return int(a[i]) - int(b[i])
	}
	for i > 0 && !utf8.RuneStart(a[i]) {
		i--
	}
	ra, na := utf8.DecodeRuneInString(string(a[i:]))
	rb, nb := utf8.DecodeRuneInString(string(b[i:]))
	if na == 1 || nb == 1 { // invalid UTF-8, refused when written
		return int(a[i]) - int(b[i])
	}
	return utf16Unit(ra) - utf16Unit(rb)
}

// utf16Unit is the first UTF-16 code unit of r, with the rest of r below
// it so that distinct runes stay distinct: a supplementary rune sorts by
// its high surrogate, which code point order within the plane keeps.
func utf16Unit(r rune) int {
	if r < 0x10000 {
		return int(r) << 20
	}
	return (0xD800+int(r-0x10000)>>10)<<20 | int(r&0xFFFFF)
}

// ValueError locates a value without an RFC 8785 form. It wraps
// ErrNotCanonicalizable.
type ValueError struct {
	rev    []string // member names and indices, innermost first
	Reason string   // what is wrong with the value, and how to mend it
}

// Pointer returns the JSON Pointer of the value at fault, "/" for the
// value itself.
func (e *ValueError) Pointer() string {
	path := slices.Clone(e.rev)
	slices.Reverse(path)
	if ptr := JoinPointer(path...); ptr != "" {
		return ptr
	}
	return "/"
}

func (e *ValueError) Error() string {
	return fmt.Sprintf("%v at %s: %s", ErrNotCanonicalizable, e.Pointer(), e.Reason)
}

func (e *ValueError) Unwrap() error { return ErrNotCanonicalizable }

// within adds one step to the location of a ValueError from below; the
// path is built from the inside out as the error climbs back.
func within(err error, step string) error {
	if ve, ok := err.(*ValueError); ok {
		ve.rev = append(ve.rev, step)
	}
	return err
}
