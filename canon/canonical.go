package canon

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
)

// ContentID is the sha256 of a document's canonical bytes: its identity.
type ContentID [sha256.Size]byte

// String returns the lowercase hex form used everywhere ids are printed.
func (id ContentID) String() string { return hex.EncodeToString(id[:]) }

// IsZero reports whether id is the zero id (no document).
func (id ContentID) IsZero() bool { return id == ContentID{} }

// ParseContentID parses the lowercase (or uppercase) hex form of an id.
func ParseContentID(s string) (ContentID, error) {
	var id ContentID
	if len(s) != 2*len(id) {
		return id, fmt.Errorf("canon: content id %q: want %d hex digits, got %d", s, 2*len(id), len(s))
	}
	if _, err := hex.Decode(id[:], []byte(s)); err != nil {
		// hex.Decode fills id up to the bad digit: return the zero id,
		// never a partial one a caller could take for a real id.
		return ContentID{}, fmt.Errorf("canon: content id %q: %v", s, err)
	}
	return id, nil
}

// Sum returns the content id of canonical bytes.
func Sum(canonical []byte) ContentID { return sha256.Sum256(canonical) }

// Canonicalize strictly validates b and returns its RFC 8785 canonical
// bytes, appended to dst. It enforces everything Decode does (duplicate
// names, UTF-8, one value, the Limits) but builds no tree: this is the
// put path.
//
// A valid document is canonicalized in one pass over its bytes
// (canonicalizeOnePass); the rest, and every error, go through
// canonicalizeTokens, which says where the document is broken. The tests
// hold the result byte-identical to AppendCanonical of the decoded
// document and to gowebpki/jcs.
func Canonicalize(dst, b []byte, lim *Limits) ([]byte, error) {
	l := limitsOrDefault(lim)
	c := onePassPool.Get().(*onePass)
	defer c.release()
	return c.canonicalize(dst, b, &l)
}

// canonicalize is Canonicalize with c's scratch space; after it, c holds
// the root object's members when the one pass wrote the document.
func (c *onePass) canonicalize(dst, b []byte, l *Limits) ([]byte, error) {
	if len(b) > l.MaxBytes {
		_, err := Decode(b, l) // the size error, with its fix
		return dst, err
	}
	if out, ok := c.run(dst, b, l); ok {
		return out, nil
	}
	c.rootOK = false
	return canonicalizeTokens(dst, b, l)
}

// canonicalizeTokens is Canonicalize through jsontext: it orders the
// members and escapes the strings in place, and every number it wrote is
// then passed through AppendNumber, the one number formatter.
func canonicalizeTokens(dst, b []byte, l *Limits) ([]byte, error) {
	start := len(dst)
	v := jsontext.Value(append(dst, b...)[start:]) // in place, after what dst holds
	if err := v.Canonicalize(); err != nil {
		return dst, explain(b, l, err)
	}
	c, ok := checkCanonical(append(dst, v...), start, *l)
	if !ok {
		return dst, explain(b, l, nil)
	}
	if bytes.Contains(c[start:], maxFloatText) {
		if err := checkOverflow(b, l); err != nil {
			return dst, err
		}
	}
	return c, nil
}

// maxFloatText is what jsontext writes for a number beyond the double
// range: it clamps instead of failing, which would silently change data.
var maxFloatText = []byte("1.7976931348623157e+308")

// checkOverflow rejects a document holding a number outside the IEEE 754
// double range (RFC 8785 §3.2.2.3 has no form for it).
func checkOverflow(b []byte, l *Limits) error {
	v, err := Decode(b, l)
	if err != nil {
		return err
	}
	bad, found := "", false
	walkNumbers(v, "", func(ptr string, n Number) bool {
		if _, err := strconv.ParseFloat(string(n), 64); err != nil {
			bad, found = ptr, true
			return false
		}
		return true
	})
	if !found {
		return nil
	}
	off := numberOffset(b, bad)
	line, col := LineColumn(b, off)
	return &SyntaxError{Offset: off, Line: line, Column: col, Pointer: bad, Err: ErrNotCanonicalizable,
		Reason: "number outside the IEEE 754 double range has no RFC 8785 form",
		Fix:    "keep large or exact values in strings"}
}

// numberOffset returns the byte offset in b of the number at JSON Pointer
// ptr, 0 when b has no number there.
func numberOffset(b []byte, ptr string) int64 {
	dec := jsontext.NewDecoder(bytes.NewReader(b), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	for {
		tok, err := dec.ReadToken()
		if err != nil {
			return 0
		}
		// A number token's text is its raw bytes; after it, StackPointer
		// names it.
		if tok.Kind() == '0' && string(dec.StackPointer()) == ptr {
			return dec.InputOffset() - int64(len(tok.String()))
		}
	}
}

// walkNumbers calls fn with the pointer and value of every number in v.
func walkNumbers(v any, ptr string, fn func(string, Number) bool) bool {
	switch v := v.(type) {
	case Number:
		return fn(ptr, v)
	case []any:
		for i, e := range v {
			if !walkNumbers(e, ptr+"/"+strconv.Itoa(i), fn) {
				return false
			}
		}
	case map[string]any:
		for _, k := range SortedKeys(v) {
			if !walkNumbers(v[k], ptr+"/"+string(EscapeSegment(nil, k)), fn) {
				return false
			}
		}
	}
	return true
}

// explain turns a failure of the fast path into the precise error the
// strict decoder gives (line, column, pointer, fix). Errors are rare, so
// paying for a second, slower parse here keeps the fast path lean.
func explain(b []byte, l *Limits, fast error) error {
	if _, err := Decode(b, l); err != nil {
		return err
	}
	reason := "no RFC 8785 form"
	if fast != nil {
		reason += ": " + fast.Error()
	}
	return &SyntaxError{Line: 1, Column: 1, Err: ErrNotCanonicalizable, Reason: reason,
		Fix: "numbers must fit an IEEE 754 double; keep large or exact values in strings"}
}

// checkCanonical checks the canonical bytes c[start:] against the limits
// of their shape (depth, members per container, and the path limits of
// pathlimits.go) and writes each number in them that is not a short
// integer through AppendNumber: the one walk the put path makes over a
// document before storing it. It returns c, or a copy where a number was
// rewritten.
func checkCanonical(c []byte, start int, l Limits) ([]byte, bool) {
	type level struct {
		count int  // members or elements so far
		path  int  // the container's path bytes
		array bool // elements take path+1
	}
	var levels [8]level // reused for the common shallow case
	stack := levels[:0]
	var paths pathBound
	next := 0 // path bytes of the value that starts next
	element := func(top *level) bool {
		next = top.path + 1
		paths.add(next)
		return next <= l.MaxPathBytes
	}
	var out []byte // nil until a number is rewritten, then c[:done] rewritten
	done := 0
	for i := start; i < len(c); i++ {
		switch ch := c[i]; {
		case ch == '"':
			end := skipString(c, i)
			if end < len(c) && c[end] == ':' { // a member name
				n := nameBytes(c[i:end])
				next = stack[len(stack)-1].path + n + 1
				paths.add(next)
				if n > l.MaxNameBytes || next > l.MaxPathBytes {
					return c, false
				}
			}
			i = end - 1
		case ch == '{' || ch == '[':
			if len(stack) == l.MaxDepth {
				return c, false
			}
			n := 0
			if c[i+1] != '}' && c[i+1] != ']' {
				n = 1
			}
			stack = append(stack, level{n, next, ch == '['})
			if top := &stack[len(stack)-1]; top.array && n == 1 && !element(top) {
				return c, false
			}
		case ch == ',':
			top := &stack[len(stack)-1]
			if top.count++; top.count > l.MaxMembers {
				return c, false
			}
			if top.array && !element(top) {
				return c, false
			}
		case ch == '}' || ch == ']':
			stack = stack[:len(stack)-1]
		case ch == '-' || isDigit(ch):
			j := i + 1
			for j < len(c) && !isDelim(c[j]) {
				j++
			}
			if !shortInteger(c[i:j]) {
				out, done = reformatNumber(out, c, done, i, j)
			}
			i = j - 1
		}
	}
	if !paths.within(&l) && !pathsWithinCanonical(c[start:], &l) {
		return c, false
	}
	if out == nil {
		return c, true
	}
	return append(out, c[done:]...), true
}

// nameBytes is the length of the member name q (quoted, canonical)
// unescaped.
func nameBytes(q []byte) int {
	if bytes.IndexByte(q, '\\') < 0 {
		return len(q) - 2
	}
	s, _ := RawString(q)
	return len(s)
}

// reformatNumber writes the number c[i:j] through AppendNumber. out is
// nil until a number changes; from then on it is a new slice holding c up
// to done, rewritten.
func reformatNumber(out, c []byte, done, i, j int) ([]byte, int) {
	var scratch [32]byte
	f, err := AppendNumber(scratch[:0], Number(c[i:j]))
	if err != nil || bytes.Equal(f, c[i:j]) {
		return out, done
	}
	if out == nil {
		out = make([]byte, 0, len(c)+len(f))
	}
	out = append(append(out, c[done:i]...), f...)
	return out, j
}

// Canonical strictly decodes b and returns its RFC 8785 canonical bytes
// together with the decoded value (decoded from the canonical bytes, so
// its Numbers are in canonical form).
func Canonical(b []byte, lim *Limits) ([]byte, any, error) {
	c, err := Canonicalize(nil, b, lim)
	if err != nil {
		return nil, nil, err
	}
	v, err := DecodeCanonical(c)
	return c, v, err
}
