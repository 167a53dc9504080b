package sign

// The signer before it wrote RFC 8785 itself: plain JSON, then
// gowebpki/jcs re-parsing it into canonical form. It stays as the oracle
// the one-pass encoder is held to, and as the old path in the benchmarks.

import (
	"crypto/ed25519"
	"encoding/base64"
	"fmt"
	"maps"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/gowebpki/jcs"
)

// legacySigningInput is signingInput as it was.
func legacySigningInput(doc map[string]any) ([]byte, error) {
	body := make(map[string]any, len(doc))
	for k, v := range doc {
		if k != signatureMember {
			body[k] = v
		}
	}
	return legacyCanonicalJSON(body)
}

// legacySign is Signer.Sign as it was.
func legacySign(s *Signer, doc map[string]any) (map[string]any, error) {
	msg, err := legacySigningInput(doc)
	if err != nil {
		return nil, err
	}
	value := base64.RawURLEncoding.EncodeToString(ed25519.Sign(s.priv, msg))
	out := maps.Clone(doc)
	if out == nil {
		out = map[string]any{}
	}
	out[signatureMember] = map[string]any{"alg": AlgEdDSA, "kid": s.kid, "value": value}
	return out, nil
}

// legacyCanonicalJSON returns the RFC 8785 bytes of v. v is first written as
// plain JSON (with the literal text of canon.Numbers), and jcs then brings
// numbers and strings to their canonical form, so 1.0 and 1 sign alike.
func legacyCanonicalJSON(v any) ([]byte, error) {
	raw, err := legacyAppendJSON(nil, v)
	if err != nil {
		return nil, err
	}
	out, err := jcs.Transform(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: no RFC 8785 form (numbers must fit an IEEE 754 double): %v", ErrUnsignable, err)
	}
	return out, nil
}

// legacyAppendJSON writes v as JSON. It accepts the decoded-document model
// (canon.Decode's types) and, for documents built in Go, the usual Go
// numbers, []string and map[string]string.
func legacyAppendJSON(dst []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case []any:
		return legacyAppendArray(dst, v)
	case map[string]any:
		return legacyAppendObject(dst, v)
	case []string:
		return legacyAppendArray(dst, legacyToAnySlice(v))
	case []map[string]any:
		return legacyAppendArray(dst, legacyToAnySlice(v))
	case map[string]string:
		return legacyAppendObject(dst, legacyToAnyMap(v))
	}
	return legacyAppendScalar(dst, v)
}

func legacyAppendArray(dst []byte, a []any) ([]byte, error) {
	dst = append(dst, '[')
	for i, e := range a {
		if i > 0 {
			dst = append(dst, ',')
		}
		var err error
		if dst, err = legacyAppendJSON(dst, e); err != nil {
			return nil, err
		}
	}
	return append(dst, ']'), nil
}

func legacyAppendObject(dst []byte, m map[string]any) ([]byte, error) {
	dst = append(dst, '{')
	for i, k := range canon.SortedKeys(m) {
		if i > 0 {
			dst = append(dst, ',')
		}
		var err error
		if dst, err = legacyAppendString(dst, k); err != nil {
			return nil, fmt.Errorf("%w at %q: member name is not valid UTF-8", ErrUnsignable, k)
		}
		dst = append(dst, ':')
		if dst, err = legacyAppendJSON(dst, m[k]); err != nil {
			return nil, err
		}
	}
	return append(dst, '}'), nil
}

// legacyAppendScalar writes a JSON scalar; numbers need not be canonical yet.
func legacyAppendScalar(dst []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case bool:
		return strconv.AppendBool(dst, v), nil
	case string:
		return legacyAppendString(dst, v)
	case canon.Number:
		return legacyAppendNumber(dst, string(v))
	case float64:
		return legacyAppendFloat(dst, v, 64)
	case float32:
		return legacyAppendFloat(dst, float64(v), 32)
	}
	return legacyAppendInteger(dst, v)
}

func legacyAppendString(dst []byte, s string) ([]byte, error) {
	if !utf8.ValidString(s) {
		return nil, fmt.Errorf("%w: %s", ErrUnsignable, "string is not valid UTF-8")
	}
	return jsontext.AppendQuote(dst, s)
}

func legacyAppendNumber(dst []byte, n string) ([]byte, error) {
	if v, err := canon.Decode([]byte(n), nil); err != nil || strings.TrimSpace(n) != n || v != canon.Number(n) {
		return nil, fmt.Errorf("%w: %s", ErrUnsignable, fmt.Sprintf("canon.Number %s is not a JSON number", n))
	}
	return append(dst, n...), nil
}

func legacyAppendFloat(dst []byte, f float64, bits int) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, fmt.Errorf("%w: %s", ErrUnsignable, fmt.Sprintf("%v has no JSON form", f))
	}
	return strconv.AppendFloat(dst, f, 'g', -1, bits), nil
}

func legacyAppendInteger(dst []byte, v any) ([]byte, error) {
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
	return nil, fmt.Errorf("%w: %s", ErrUnsignable, fmt.Sprintf("Go type %T has no JSON form here (use the types canon.Decode returns)", v))
}

func legacyToAnySlice[T any](s []T) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

func legacyToAnyMap(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
