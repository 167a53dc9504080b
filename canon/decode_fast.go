package canon

import (
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// fastMaxDepth bounds the nesting decodeFast goes into; deeper documents
// take the token decoder, whose own bound (jsontext's, 10000) then
// applies exactly as before.
const fastMaxDepth = 1000

// decodeFast decodes a valid document in one pass over the bytes, with no
// tokens, for the hot paths (an intent per query, a document per put). It
// accepts exactly what the token decoder accepts, and gives the same value:
// on anything else — a syntax error, a duplicate name, invalid UTF-8, an
// escape it does not write itself, a limit — it reports false without
// saying why, and Decode asks the token decoder, which explains the error
// with its line, column and pointer. FuzzDecodeFast holds the two equal.
func decodeFast(b []byte, l Limits) (any, bool) {
	d := fastDecoder{b: b, maxDepth: min(l.MaxDepth, fastMaxDepth), maxMembers: l.MaxMembers,
		maxName: l.MaxNameBytes, maxPath: l.MaxPathBytes}
	v, ok := d.value(0, 0)
	if !ok {
		return nil, false
	}
	d.space()
	if d.i != len(b) {
		return nil, false
	}
	return v, d.paths.within(&l) || pathsWithinTree(v, &l)
}

type fastDecoder struct {
	b          []byte
	i          int
	maxDepth   int
	maxMembers int
	maxName    int       // Limits.MaxNameBytes
	maxPath    int       // Limits.MaxPathBytes
	paths      pathBound // the paths met, for MaxPaths and MaxPathsBytes
}

// space skips JSON whitespace (RFC 8259 §2: space, tab, LF, CR).
func (d *fastDecoder) space() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// value reads the value whose normalized path is pathBytes long.
func (d *fastDecoder) value(depth, pathBytes int) (any, bool) {
	d.space()
	if d.i >= len(d.b) {
		return nil, false
	}
	switch d.b[d.i] {
	case '{':
		return d.object(depth+1, pathBytes)
	case '[':
		return d.array(depth+1, pathBytes)
	case '"':
		if s, ok := d.string(); ok {
			return s, true
		}
		return nil, false
	case 't':
		return d.literal("true", true)
	case 'f':
		return d.literal("false", false)
	case 'n':
		return d.literal("null", nil)
	}
	return d.number()
}

func (d *fastDecoder) literal(text string, v any) (any, bool) {
	if len(d.b)-d.i < len(text) || string(d.b[d.i:d.i+len(text)]) != text {
		return nil, false
	}
	d.i += len(text)
	return v, true
}

func (d *fastDecoder) object(depth, pathBytes int) (any, bool) {
	if depth > d.maxDepth {
		return nil, false
	}
	d.i++ // {
	m := make(map[string]any)
	d.space()
	if d.i < len(d.b) && d.b[d.i] == '}' {
		d.i++
		return m, true
	}
	for {
		d.space()
		if d.i >= len(d.b) || d.b[d.i] != '"' {
			return nil, false
		}
		name, ok := d.string()
		if !ok {
			return nil, false
		}
		d.space()
		if d.i >= len(d.b) || d.b[d.i] != ':' {
			return nil, false
		}
		d.i++
		if len(m) == d.maxMembers {
			return nil, false
		}
		n := pathBytes + len(name) + 1
		if len(name) > d.maxName || n > d.maxPath {
			return nil, false
		}
		d.paths.add(n)
		v, ok := d.value(depth, n)
		if !ok {
			return nil, false
		}
		if _, dup := m[name]; dup {
			return nil, false
		}
		m[name] = v
		if more, ok := d.next('}'); !more {
			return m, ok
		}
	}
}

func (d *fastDecoder) array(depth, pathBytes int) (any, bool) {
	if depth > d.maxDepth {
		return nil, false
	}
	d.i++ // [
	a := []any{}
	d.space()
	if d.i < len(d.b) && d.b[d.i] == ']' {
		d.i++
		return a, true
	}
	for {
		if len(a) == d.maxMembers || pathBytes+1 > d.maxPath {
			return nil, false
		}
		d.paths.add(pathBytes + 1)
		v, ok := d.value(depth, pathBytes+1)
		if !ok {
			return nil, false
		}
		a = append(a, v)
		if more, ok := d.next(']'); !more {
			return a, ok
		}
	}
}

// next reads what follows a member or an element: a comma (more), or
// the container's closing bracket (ok); anything else is not ok.
func (d *fastDecoder) next(closing byte) (more, ok bool) {
	d.space()
	if d.i >= len(d.b) {
		return false, false
	}
	switch d.b[d.i] {
	case ',':
		d.i++
		return true, true
	case closing:
		d.i++
		return false, true
	}
	return false, false
}

// string reads the string at d.i. Without escapes it is the bytes
// between the quotes, checked for control characters and UTF-8; with
// escapes, jsontext.AppendUnquote decodes it under the token decoder's
// own rules.
func (d *fastDecoder) string() (string, bool) {
	start := d.i
	escaped, ascii := false, true
	for j := start + 1; j < len(d.b); j++ {
		switch c := d.b[j]; {
		case c == '"':
			d.i = j + 1
			if escaped {
				u, err := jsontext.AppendUnquote(nil, d.b[start:j+1])
				return string(u), err == nil
			}
			body := d.b[start+1 : j]
			if !ascii && !utf8.Valid(body) {
				return "", false
			}
			return string(body), true
		case c == '\\':
			escaped = true
			j++ // the escaped byte; AppendUnquote checks the escape
		case c < 0x20:
			return "", false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return "", false
}

// number reads a number by RFC 8259's grammar,
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, and keeps its text.
func (d *fastDecoder) number() (any, bool) {
	b, start := d.b, d.i
	i := start
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i >= len(b):
		return nil, false
	case b[i] == '0':
		i++
	case b[i] >= '1' && b[i] <= '9':
		i = skipDigits(b, i)
	default:
		return nil, false
	}
	if i < len(b) && b[i] == '.' {
		if j := skipDigits(b, i+1); j > i+1 {
			i = j
		} else {
			return nil, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if j := skipDigits(b, i); j > i {
			i = j
		} else {
			return nil, false
		}
	}
	d.i = i
	return Number(b[start:i]), true
}

// skipDigits returns the index past the decimal digits at b[i:].
func skipDigits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}
