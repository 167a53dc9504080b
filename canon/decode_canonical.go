package canon

import (
	"errors"
)

// errNotCanonical is returned by DecodeCanonical on bytes it cannot read.
var errNotCanonical = errors.New("canon: not canonical JSON")

// DecodeCanonical decodes bytes that are already canonical (RFC 8785: no
// whitespace, validated UTF-8, unique member names), such as a stored
// document's body. It skips the checks Decode makes, which those bytes
// passed when they were stored, and is several times faster. On other
// input it returns an error, never a wrong value it could detect.
func DecodeCanonical(c []byte) (any, error) {
	v, n, err := decodeCanonical(c, 0)
	if err != nil {
		return nil, err
	}
	if n != len(c) {
		return nil, errNotCanonical
	}
	return v, nil
}

func decodeCanonical(c []byte, i int) (any, int, error) {
	if i >= len(c) {
		return nil, i, errNotCanonical
	}
	switch c[i] {
	case '{':
		return decodeCanonicalObject(c, i)
	case '[':
		return decodeCanonicalArray(c, i)
	case '"':
		end := skipString(c, i)
		if end < 0 {
			return nil, i, errNotCanonical
		}
		s, ok := RawString(c[i:end])
		if !ok {
			return nil, i, errNotCanonical
		}
		return s, end, nil
	case 't':
		return literal(c, i, "true", true)
	case 'f':
		return literal(c, i, "false", false)
	case 'n':
		return literal(c, i, "null", nil)
	}
	end := i
	for end < len(c) && !isDelim(c[end]) {
		end++
	}
	if end == i {
		return nil, i, errNotCanonical
	}
	return Number(c[i:end]), end, nil
}

func literal(c []byte, i int, text string, v any) (any, int, error) {
	if len(c)-i < len(text) || string(c[i:i+len(text)]) != text {
		return nil, i, errNotCanonical
	}
	return v, i + len(text), nil
}

func decodeCanonicalObject(c []byte, i int) (any, int, error) {
	m := map[string]any{}
	i++
	for i < len(c) && c[i] != '}' {
		end := skipString(c, i)
		if end < 0 || end >= len(c) || c[end] != ':' {
			return nil, i, errNotCanonical
		}
		name, ok := RawString(c[i:end])
		if !ok {
			return nil, i, errNotCanonical
		}
		v, next, err := decodeCanonical(c, end+1)
		if err != nil {
			return nil, next, err
		}
		m[name] = v
		if i = next; i < len(c) && c[i] == ',' {
			i++
		}
	}
	if i >= len(c) {
		return nil, i, errNotCanonical
	}
	return m, i + 1, nil
}

func decodeCanonicalArray(c []byte, i int) (any, int, error) {
	a := []any{}
	i++
	for i < len(c) && c[i] != ']' {
		v, next, err := decodeCanonical(c, i)
		if err != nil {
			return nil, next, err
		}
		a = append(a, v)
		if i = next; i < len(c) && c[i] == ',' {
			i++
		}
	}
	if i >= len(c) {
		return nil, i, errNotCanonical
	}
	return a, i + 1, nil
}
