package sign

import (
	"fmt"
	"slices"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/go-json-experiment/json/jsontext"
)

// signatureMember is the top-level member that carries the signature and
// is left out of the bytes it signs.
const signatureMember = "signature"

// maxDepth is the nesting gowebpki/jcs accepts, which signing went through
// before it wrote RFC 8785 itself: a document signs under the same
// conditions as it did then, and a hostile Go value cannot exhaust the
// stack.
const maxDepth = 10000

// encoder writes the RFC 8785 form of a Go value in one pass: members in
// UTF-16 order of their names (canon.SortedKeys' order), numbers as
// ECMAScript writes them, strings with the minimal escapes. It accepts
// the decoded-document model (canon.Decode's types) and, for documents
// built in Go, the usual Go numbers, []string, []map[string]any and
// map[string]string.
type encoder struct {
	buf   []byte
	keys  []string // names of the objects being written, innermost last
	depth int
}

// encoders keeps finished encoders: their buffer, for the bytes signed
// and verified, which are not kept; and their names, since a response has
// an object per candidate, record and evaluation whose names are sorted.
var encoders = sync.Pool{New: func() any { return new(encoder) }}

// maxPooledBuf bounds the buffer an encoder keeps in the pool, so that
// one huge document does not pin its size.
const maxPooledBuf = 1 << 20

func newEncoder() *encoder {
	e := encoders.Get().(*encoder)
	e.buf, e.depth = e.buf[:0], 0
	return e
}

// release returns e to the pool; nothing may use e.buf afterwards.
func (e *encoder) release() {
	clear(e.keys[:cap(e.keys)]) // do not pin the callers' strings
	e.keys = e.keys[:0]
	if cap(e.buf) > maxPooledBuf {
		e.buf = nil
	}
	encoders.Put(e)
}

// body writes doc without its signature member, the bytes a signature
// covers, and returns the offset in e.buf at which that member belongs:
// before the first name that sorts after "signature", else before the
// closing brace.
func (e *encoder) body(doc map[string]any) (int, error) {
	e.depth = 1
	base := len(e.keys)
	keys := pushKeys(e, doc)
	defer func() { e.keys = e.keys[:base] }()
	e.buf = append(e.buf, '{')
	at, n := -1, 0
	for _, k := range keys {
		if k == signatureMember {
			continue
		}
		// "signature" is ASCII, so byte order agrees with UTF-16 order.
		if at < 0 && k > signatureMember {
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
	return at, nil
}

func (e *encoder) value(v any) error {
	switch v := v.(type) {
	case string:
		return e.str(v)
	case canon.Number:
		return e.number(v)
	case map[string]any:
		return e.object(v)
	case []any:
		return e.array(v)
	case bool:
		e.buf = strconv.AppendBool(e.buf, v)
		return nil
	case nil:
		e.buf = append(e.buf, "null"...)
		return nil
	case []string:
		return e.strings(v)
	case []map[string]any:
		return e.objects(v)
	case map[string]string:
		return writeObject(e, v)
	}
	return e.goNumber(v)
}

func (e *encoder) object(m map[string]any) error { return writeObject(e, m) }

// writeObject writes m with its members in RFC 8785 order.
func writeObject[V any](e *encoder, m map[string]V) error {
	if err := e.enter(); err != nil {
		return err
	}
	base := len(e.keys)
	e.buf = append(e.buf, '{')
	for i, k := range pushKeys(e, m) {
		if err := e.member(i, k, m[k]); err != nil {
			return err
		}
	}
	e.buf = append(e.buf, '}')
	e.keys = e.keys[:base]
	e.depth--
	return nil
}

// member writes the i-th member of an object.
func (e *encoder) member(i int, name string, v any) error {
	if i > 0 {
		e.buf = append(e.buf, ',')
	}
	if err := e.str(name); err != nil {
		return within(&valueError{reason: "member name is not valid UTF-8"}, name)
	}
	e.buf = append(e.buf, ':')
	return within(e.value(v), name)
}

func (e *encoder) array(a []any) error {
	if err := e.enter(); err != nil {
		return err
	}
	e.buf = append(e.buf, '[')
	for i, v := range a {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		if err := e.value(v); err != nil {
			return within(err, strconv.Itoa(i))
		}
	}
	e.buf = append(e.buf, ']')
	e.depth--
	return nil
}

func (e *encoder) strings(a []string) error {
	if err := e.enter(); err != nil {
		return err
	}
	e.buf = append(e.buf, '[')
	for i, s := range a {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		if err := e.str(s); err != nil {
			return within(err, strconv.Itoa(i))
		}
	}
	e.buf = append(e.buf, ']')
	e.depth--
	return nil
}

func (e *encoder) objects(a []map[string]any) error {
	if err := e.enter(); err != nil {
		return err
	}
	e.buf = append(e.buf, '[')
	for i, m := range a {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		if err := e.object(m); err != nil {
			return within(err, strconv.Itoa(i))
		}
	}
	e.buf = append(e.buf, ']')
	e.depth--
	return nil
}

func (e *encoder) enter() error {
	if e.depth++; e.depth > maxDepth {
		return &valueError{reason: fmt.Sprintf("nested more than %d arrays and objects deep", maxDepth)}
	}
	return nil
}

// str writes s quoted. Plain ASCII, by far the common case, is copied as
// it is; anything else goes through jsontext, whose escaping is RFC 8785's
// (§3.2.2.2: \b \t \n \f \r \" \\, other controls as \u00xx, the rest
// verbatim).
func (e *encoder) str(s string) error {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			out, err := jsontext.AppendQuote(e.buf, s)
			if err != nil {
				return &valueError{reason: "string is not valid UTF-8"}
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
func pushKeys[V any](e *encoder, m map[string]V) []string {
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
func compareUTF16(a, b string) int {
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
	ra, na := utf8.DecodeRuneInString(a[i:])
	rb, nb := utf8.DecodeRuneInString(b[i:])
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

// valueError locates a value without a JSON form. path is built from the
// inside out as the error climbs back through the containers.
type valueError struct {
	rev    []string // member names and indices, innermost first
	reason string
}

func (e *valueError) Error() string {
	path := slices.Clone(e.rev)
	slices.Reverse(path)
	ptr := canon.JoinPointer(path...)
	if ptr == "" {
		ptr = "/"
	}
	return fmt.Sprintf("%v at %s: %s", ErrUnsignable, ptr, e.reason)
}

func (e *valueError) Unwrap() error { return ErrUnsignable }

// within adds one step to the location of a valueError from below.
func within(err error, step string) error {
	if ve, ok := err.(*valueError); ok {
		ve.rev = append(ve.rev, step)
	}
	return err
}
