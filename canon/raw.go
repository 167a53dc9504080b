package canon

import (
	"bytes"

	"github.com/go-json-experiment/json/jsontext"
)

// Raw access to canonical bytes. Canonical JSON (RFC 8785) has no
// whitespace, minimal string escapes and validated UTF-8, so it can be
// navigated with a tiny scanner instead of a decoder: no allocation, no
// tree. These functions assume canonical (or at least valid, whitespace
// free) input; on anything else they return "not found", never panic.

// SkipValue returns the index just past the JSON value starting at b[i],
// or -1 when b is malformed there.
func SkipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		return skipContainer(b, i)
	}
	for i < len(b) && !isDelim(b[i]) {
		i++
	}
	return i
}

func isDelim(c byte) bool { return c == ',' || c == '}' || c == ']' || c == ':' }

// skipString returns the index past the string starting at b[i]. It jumps
// from quote to quote; a quote preceded by an odd run of backslashes is
// escaped.
func skipString(b []byte, i int) int {
	for j := i + 1; ; j++ {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return -1
		}
		j += k
		n := 0
		for p := j - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return j + 1
		}
	}
}

// skipContainer returns the index past the object or array at b[i].
func skipContainer(b []byte, i int) int {
	depth := 0
	for ; i < len(b); i++ {
		if !structural[b[i]] {
			continue
		}
		switch b[i] {
		case '"':
			if i = skipString(b, i) - 1; i < 0 {
				return -1
			}
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth == 0 {
				return i + 1
			}
		}
	}
	return -1
}

// structural marks the bytes skipContainer must look at.
var structural = [256]bool{'"': true, '{': true, '[': true, '}': true, ']': true}

// Member returns the raw value of member name of the object b.
func Member(b []byte, name string) ([]byte, bool) {
	found := []byte(nil)
	EachMember(b, func(key, value []byte) bool {
		if rawStringEquals(key, name) {
			found = value
			return false
		}
		return true
	})
	return found, found != nil
}

// EachMember calls fn with the raw key (quoted) and raw value of every
// member of the object b, in order, until fn returns false.
func EachMember(b []byte, fn func(key, value []byte) bool) {
	if len(b) < 2 || b[0] != '{' {
		return
	}
	for i := 1; i < len(b) && b[i] == '"'; {
		k := skipString(b, i)
		if k < 0 || k >= len(b) || b[k] != ':' {
			return
		}
		v := SkipValue(b, k+1)
		if v < 0 || !fn(b[i:k], b[k+1:v]) {
			return
		}
		if v >= len(b) || b[v] != ',' {
			return
		}
		i = v + 1
	}
}

// EachElement calls fn with every raw element of the array b until fn
// returns false.
func EachElement(b []byte, fn func(elem []byte) bool) {
	if len(b) < 2 || b[0] != '[' || b[1] == ']' {
		return
	}
	for i := 1; i < len(b); {
		v := SkipValue(b, i)
		if v < 0 || !fn(b[i:v]) {
			return
		}
		if v >= len(b) || b[v] != ',' {
			return
		}
		i = v + 1
	}
}

// Lookup follows member names from the object b and returns the raw value.
func Lookup(b []byte, names ...string) ([]byte, bool) {
	for _, n := range names {
		v, ok := Member(b, n)
		if !ok {
			return nil, false
		}
		b = v
	}
	return b, true
}

// rawStringEquals reports whether the quoted string q decodes to s.
func rawStringEquals(q []byte, s string) bool { return rawNameEquals(q, s) }

// RawString decodes the quoted JSON string q.
func RawString(q []byte) (string, bool) {
	if len(q) < 2 || q[0] != '"' || q[len(q)-1] != '"' {
		return "", false
	}
	body := q[1 : len(q)-1]
	for _, c := range body {
		if c == '\\' {
			u, err := jsontext.AppendUnquote(nil, q)
			return string(u), err == nil
		}
	}
	return string(body), true
}
