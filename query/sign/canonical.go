package sign

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/gowebpki/jcs"
)

// signatureMember is the top-level member that carries the signature and
// is left out of the bytes it signs.
const signatureMember = "signature"

// signingInput returns the bytes a signature over doc covers: the RFC 8785
// form of doc without its top-level "signature" member.
func signingInput(doc map[string]any) ([]byte, error) {
	body := make(map[string]any, len(doc))
	for k, v := range doc {
		if k != signatureMember {
			body[k] = v
		}
	}
	return canonicalJSON(body)
}

// canonicalJSON returns the RFC 8785 bytes of v. v is first written as
// plain JSON (with the literal text of canon.Numbers), and jcs then brings
// numbers and strings to their canonical form, so 1.0 and 1 sign alike.
func canonicalJSON(v any) ([]byte, error) {
	raw, err := appendJSON(nil, v)
	if err != nil {
		return nil, err
	}
	out, err := jcs.Transform(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: no RFC 8785 form (numbers must fit an IEEE 754 double): %v", ErrUnsignable, err)
	}
	return out, nil
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

// appendJSON writes v as JSON. It accepts the decoded-document model
// (canon.Decode's types) and, for documents built in Go, the usual Go
// numbers, []string and map[string]string.
func appendJSON(dst []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case []any:
		return appendArray(dst, v)
	case map[string]any:
		return appendObject(dst, v)
	case []string:
		return appendArray(dst, toAnySlice(v))
	case []map[string]any:
		return appendArray(dst, toAnySlice(v))
	case map[string]string:
		return appendObject(dst, toAnyMap(v))
	}
	return appendScalar(dst, v)
}

func appendArray(dst []byte, a []any) ([]byte, error) {
	dst = append(dst, '[')
	for i, e := range a {
		if i > 0 {
			dst = append(dst, ',')
		}
		var err error
		if dst, err = appendJSON(dst, e); err != nil {
			return nil, within(err, strconv.Itoa(i))
		}
	}
	return append(dst, ']'), nil
}

func appendObject(dst []byte, m map[string]any) ([]byte, error) {
	dst = append(dst, '{')
	for i, k := range canon.SortedKeys(m) {
		if i > 0 {
			dst = append(dst, ',')
		}
		var err error
		if dst, err = appendString(dst, k); err != nil {
			return nil, within(&valueError{reason: "member name is not valid UTF-8"}, k)
		}
		dst = append(dst, ':')
		if dst, err = appendJSON(dst, m[k]); err != nil {
			return nil, within(err, k)
		}
	}
	return append(dst, '}'), nil
}

// appendScalar writes a JSON scalar; numbers need not be canonical yet.
func appendScalar(dst []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case bool:
		return strconv.AppendBool(dst, v), nil
	case string:
		return appendString(dst, v)
	case canon.Number:
		return appendNumber(dst, string(v))
	case float64:
		return appendFloat(dst, v, 64)
	case float32:
		return appendFloat(dst, float64(v), 32)
	}
	return appendInteger(dst, v)
}

func appendString(dst []byte, s string) ([]byte, error) {
	if !utf8.ValidString(s) {
		return nil, &valueError{reason: "string is not valid UTF-8"}
	}
	return jsontext.AppendQuote(dst, s)
}

func appendNumber(dst []byte, n string) ([]byte, error) {
	if !validNumber(n) {
		return nil, &valueError{reason: fmt.Sprintf("canon.Number %s is not a JSON number", quoteShort(n))}
	}
	return append(dst, n...), nil
}

func appendFloat(dst []byte, f float64, bits int) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, &valueError{reason: fmt.Sprintf("%v has no JSON form", f)}
	}
	return strconv.AppendFloat(dst, f, 'g', -1, bits), nil
}

func appendInteger(dst []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case int:
		return strconv.AppendInt(dst, int64(v), 10), nil
	case int8:
		return strconv.AppendInt(dst, int64(v), 10), nil
	case int16:
		return strconv.AppendInt(dst, int64(v), 10), nil
	case int32:
		return strconv.AppendInt(dst, int64(v), 10), nil
	case int64:
		return strconv.AppendInt(dst, v, 10), nil
	case uint:
		return strconv.AppendUint(dst, uint64(v), 10), nil
	case uint8:
		return strconv.AppendUint(dst, uint64(v), 10), nil
	case uint16:
		return strconv.AppendUint(dst, uint64(v), 10), nil
	case uint32:
		return strconv.AppendUint(dst, uint64(v), 10), nil
	case uint64:
		return strconv.AppendUint(dst, v, 10), nil
	}
	return nil, &valueError{reason: fmt.Sprintf("Go type %T has no JSON form here (use the types canon.Decode returns)", v)}
}

// validNumber reports whether s is exactly a JSON number (RFC 8259 §6),
// so that a hand-made canon.Number cannot smuggle other JSON into the
// signed bytes.
func validNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		i = skipDigits(s, i)
	default:
		return false
	}
	if i < len(s) && s[i] == '.' {
		if j := skipDigits(s, i+1); j > i+1 {
			i = j
		} else {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		j := skipDigits(s, i)
		if j == i {
			return false
		}
		i = j
	}
	return i == len(s)
}

func skipDigits(s string, i int) int {
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

func toAnySlice[T any](s []T) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

func toAnyMap(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
