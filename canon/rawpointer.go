package canon

import (
	"bytes"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
)

// Resolving pointers over canonical bytes. Canonical JSON writes object
// members in RFC 8785 order, which is the order Resolve visits them in, so
// a walk over the bytes in byte order meets the selected values in exactly
// Resolve's document order. No tree is built: the values handed out are
// subslices of the input.

// ResolveRaw calls fn with the raw bytes of every value p selects in the
// canonical JSON b, in the order of Resolve over the decoded b, and stops
// as soon as fn returns false; it returns false if it stopped early. Each
// value is visited once, however many routes select it. The slices fn
// receives are subslices of b: they stay valid as long as b does, and fn
// must not change them.
//
// b must be canonical (RFC 8785, e.g. a stored document's body). On other
// whitespace-free JSON the selection is the same but members come in byte
// order; on malformed bytes ResolveRaw selects less, never panics.
//
// Pointers without wildcards resolve without allocating; pointers with
// wildcards borrow a RawWalker from a pool, which allocates only while the
// pool warms up. Callers on a hot path may keep their own RawWalker.
func (p *Pointer) ResolveRaw(b []byte, fn func(v []byte) bool) bool {
	if !p.HasWildcard() {
		v, ok := p.lookupRaw(b)
		return !ok || fn(v)
	}
	w := rawWalkers.Get().(*RawWalker)
	ok := w.walk(p, b, nil, fn, nil)
	rawWalkers.Put(w)
	return ok
}

var rawWalkers = sync.Pool{New: func() any { return new(RawWalker) }}

// lookupRaw resolves a pointer without wildcards: a loop over segments that
// neither allocates nor recurses.
func (p *Pointer) lookupRaw(b []byte) ([]byte, bool) {
	if p == nil {
		return b, true
	}
	for i := range p.segs {
		var ok bool
		if b, ok = rawChild(b, &p.segs[i]); !ok {
			return nil, false
		}
	}
	return b, true
}

// rawChild selects the child a SegName segment names in the raw value b:
// a member by name, or an element by its RFC 6901 index.
func rawChild(b []byte, s *Segment) ([]byte, bool) {
	if len(b) < 2 {
		return nil, false
	}
	switch b[0] {
	case '{':
		_, v, ok := rawMember(b, s.Name)
		return v, ok
	case '[':
		if s.Index >= 0 {
			return rawElement(b, s.Index)
		}
	}
	return nil, false
}

// rawMember finds member name in the object b: its raw key and value.
func rawMember(b []byte, name string) (key, value []byte, ok bool) {
	for i := 1; i > 0; {
		k, v, next := memberAt(b, i)
		if v == nil {
			return nil, nil, false
		}
		if rawNameEquals(k, name) {
			return k, v, true
		}
		i = next
	}
	return nil, nil, false
}

// rawElement returns element idx of the array b.
func rawElement(b []byte, idx int) ([]byte, bool) {
	for i, n := 1, 0; i > 0; n++ {
		v, next := elementAt(b, i)
		if v == nil {
			return nil, false
		}
		if n == idx {
			return v, true
		}
		i = next
	}
	return nil, false
}

// memberAt reads the member of the object b whose key starts at b[i]. It
// returns the raw key (quoted), the raw value and the offset of the next
// member's key, or -1 after the last; a nil value means malformed bytes
// or no member at i.
func memberAt(b []byte, i int) (key, value []byte, next int) {
	if i >= len(b) || b[i] != '"' {
		return nil, nil, -1
	}
	k := skipString(b, i)
	if k < 0 || k+1 >= len(b) || b[k] != ':' {
		return nil, nil, -1
	}
	v := SkipValue(b, k+1)
	if v <= k+1 {
		return nil, nil, -1
	}
	return b[i:k], b[k+1 : v], after(b, v)
}

// elementAt reads the array element of b starting at b[i], as memberAt.
func elementAt(b []byte, i int) (value []byte, next int) {
	if i >= len(b) {
		return nil, -1
	}
	v := SkipValue(b, i)
	if v <= i {
		return nil, -1
	}
	return b[i:v], after(b, v)
}

// after is the offset of the next member or element when b[v] is a comma,
// else -1.
func after(b []byte, v int) int {
	if v < len(b) && b[v] == ',' {
		return v + 1
	}
	return -1
}

// rawNameEquals reports whether the quoted JSON string q decodes to name.
// It compares as it decodes, without allocating. A body without a
// backslash is compared as it is; once there is one, bytes are equal only
// after unescaping (the body `a\\b` is the three characters a, \ and b).
func rawNameEquals(q []byte, name string) bool {
	if len(q) < 2 || q[0] != '"' || q[len(q)-1] != '"' {
		return false
	}
	body := q[1 : len(q)-1]
	i := bytes.IndexByte(body, '\\')
	if i < 0 {
		return string(body) == name
	}
	if len(name) < i || string(body[:i]) != name[:i] {
		return false
	}
	j := i
	for i < len(body) {
		if body[i] != '\\' {
			if j >= len(name) || name[j] != body[i] {
				return false
			}
			i, j = i+1, j+1
			continue
		}
		r, n := unescapeAt(body, i)
		if n == 0 {
			return false
		}
		var buf [utf8.UTFMax]byte
		w := utf8.EncodeRune(buf[:], r)
		if len(name)-j < w || name[j:j+w] != string(buf[:w]) {
			return false
		}
		i, j = i+n, j+w
	}
	return j == len(name)
}

// unescapeAt decodes the escape sequence at body[i] (a backslash): the
// rune and the bytes it spans, or n == 0 when it is malformed. A
// surrogate pair written as two \u escapes is one rune; a lone surrogate
// decodes to U+FFFD, as jsontext does.
func unescapeAt(body []byte, i int) (r rune, n int) {
	if i+1 >= len(body) {
		return 0, 0
	}
	switch c := body[i+1]; c {
	case '"', '\\', '/':
		return rune(c), 2
	case 'b':
		return '\b', 2
	case 'f':
		return '\f', 2
	case 'n':
		return '\n', 2
	case 'r':
		return '\r', 2
	case 't':
		return '\t', 2
	case 'u':
		r, ok := hex4(body, i+2)
		if !ok {
			return 0, 0
		}
		if utf16.IsSurrogate(r) {
			if r2, ok := hex4(body, i+8); ok && i+7 < len(body) && body[i+6] == '\\' && body[i+7] == 'u' {
				if pair := utf16.DecodeRune(r, r2); pair != utf8.RuneError {
					return pair, 12
				}
			}
			return utf8.RuneError, 6
		}
		return r, 6
	}
	return 0, 0
}

// hex4 reads four hex digits at body[i].
func hex4(body []byte, i int) (rune, bool) {
	if i+4 > len(body) {
		return 0, false
	}
	var r rune
	for _, c := range body[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
