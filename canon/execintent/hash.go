package execintent

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"reflect"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/aqlstore/aqlstore/canon"
)

// Hash returns the intentHash of doc: the lowercase hex sha256 of the
// RFC 8785 bytes of doc without its intentHash member (any intentHash in
// doc is ignored; doc is not modified). doc may hold, besides canon's
// value model, Go numbers (int…, uint…, float64; not NaN or ±Inf),
// json.Number, []string, map[string]string and time.Time (written as an
// RFC 3339 UTC string); anything else is ErrUnsupportedValue. Hash does
// not validate: Seal does.
func Hash(doc map[string]any) (string, error) {
	v, err := normalize(doc, "")
	if err != nil {
		return "", err
	}
	sum, e := hashDoc(v.(map[string]any))
	if e != nil {
		return "", e
	}
	return sum, nil
}

// Seal returns a copy of doc, in canon's value model, with intentHash set
// to Hash(doc), after checking that the result is a valid intent (Parse
// would accept its canonical bytes). doc is not modified. Values are
// converted as Hash converts them.
func Seal(doc map[string]any) (map[string]any, error) {
	v, err := normalize(doc, "")
	if err != nil {
		return nil, err
	}
	sealed := v.(map[string]any)
	sum, e := hashDoc(sealed)
	if e != nil {
		return nil, ErrorList{e}
	}
	sealed["intentHash"] = sum
	if _, err := ParseValue(sealed); err != nil {
		return nil, fmt.Errorf("seal: %w", err)
	}
	return sealed, nil
}

// hashDoc hashes a document in canon's value model, without intentHash.
func hashDoc(doc map[string]any) (string, *Error) {
	without := maps.Clone(doc)
	delete(without, "intentHash")
	c, err := canonicalize(without)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(c)
	return hex.EncodeToString(sum[:]), nil
}

// canonicalize re-encodes v and puts it through canon.Canonicalize, which
// turns each number's literal text into its RFC 8785 form. The limits
// are the encoding's own: the document was bounded when it was decoded.
func canonicalize(v any) ([]byte, *Error) {
	b := canon.AppendValue(nil, v)
	lim := canon.Limits{MaxBytes: len(b) + 1, MaxDepth: 1 << 20, MaxMembers: 1 << 30}.WithoutPathLimits()
	c, err := canon.Canonicalize(nil, b, &lim)
	if err != nil {
		e := &Error{Message: "no RFC 8785 form: " + err.Error(), Err: ErrInvalid, cause: err}
		var se *canon.SyntaxError
		if errors.As(err, &se) {
			e.Pointer = se.Pointer
		}
		return nil, e
	}
	return c, nil
}

// normalize deep-copies v into canon's value model.
func normalize(v any, ptr string) (any, error) {
	switch v := v.(type) {
	case nil, bool:
		return v, nil
	case canon.Number:
		return number(string(v), ptr)
	case string:
		if !utf8.ValidString(v) {
			return nil, unsupported(ptr, "a string that is not UTF-8")
		}
		return v, nil
	case json.Number:
		return number(string(v), ptr)
	case float64:
		return goFloat(v, ptr)
	case float32:
		return goFloat(float64(v), ptr)
	case time.Time:
		return v.UTC().Format(time.RFC3339Nano), nil
	case map[string]any:
		return normalizeMap(v, ptr)
	case map[string]string:
		m := make(map[string]any, len(v))
		for k, s := range v {
			m[k] = s
		}
		return normalizeMap(m, ptr)
	case []any:
		return normalizeSlice(v, ptr)
	case []string:
		a := make([]any, len(v))
		for i, s := range v {
			a[i] = s
		}
		return normalizeSlice(a, ptr)
	}
	return goInteger(v, ptr)
}

func normalizeMap(m map[string]any, ptr string) (any, error) {
	out := make(map[string]any, len(m))
	for k, e := range m {
		n, err := normalize(e, ptr+"/"+string(canon.EscapeSegment(nil, k)))
		if err != nil {
			return nil, err
		}
		out[k] = n
	}
	return out, nil
}

func normalizeSlice(a []any, ptr string) (any, error) {
	out := make([]any, len(a))
	for i, e := range a {
		n, err := normalize(e, ptr+"/"+strconv.Itoa(i))
		if err != nil {
			return nil, err
		}
		out[i] = n
	}
	return out, nil
}

// goInteger converts Go's integer kinds; any other type has no JSON form.
func goInteger(v any, ptr string) (any, error) {
	r := reflect.ValueOf(v)
	switch r.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return canon.Number(strconv.FormatInt(r.Int(), 10)), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return canon.Number(strconv.FormatUint(r.Uint(), 10)), nil
	}
	return nil, unsupported(ptr, fmt.Sprintf("a %T", v))
}

func goFloat(f float64, ptr string) (any, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, unsupported(ptr, strconv.FormatFloat(f, 'g', -1, 64))
	}
	return canon.Number(strconv.FormatFloat(f, 'g', -1, 64)), nil
}

// number admits a literal only if it is one JSON number: canon.AppendValue
// writes a Number's text as is, so `1,"x":2` would smuggle in a member the
// map does not show.
func number(s, ptr string) (any, error) {
	if !isJSONNumber(s) {
		return nil, unsupported(ptr, fmt.Sprintf("the number literal %q", s))
	}
	return canon.Number(s), nil
}

// isJSONNumber reports whether s is exactly one RFC 8259 number:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func isJSONNumber(s string) bool {
	i := 0
	digits := func() int {
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i - j
	}
	if i < len(s) && s[i] == '-' {
		i++
	}
	if i < len(s) && s[i] == '0' {
		i++
	} else if digits() == 0 {
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

// checkModel reports the first value of v outside canon's value model.
func checkModel(v any, ptr string) *Error {
	switch v := v.(type) {
	case nil, bool:
		return nil
	case string:
		if !utf8.ValidString(v) {
			return unsupported(ptr, "a string that is not UTF-8")
		}
		return nil
	case canon.Number:
		if !isJSONNumber(string(v)) {
			return unsupported(ptr, fmt.Sprintf("the number literal %q", v))
		}
		return nil
	case []any:
		for i, e := range v {
			if err := checkModel(e, ptr+"/"+strconv.Itoa(i)); err != nil {
				return err
			}
		}
		return nil
	case map[string]any:
		for _, k := range canon.SortedKeys(v) {
			if err := checkModel(v[k], ptr+"/"+string(canon.EscapeSegment(nil, k))); err != nil {
				return err
			}
		}
		return nil
	}
	return unsupported(ptr, fmt.Sprintf("a %T", v))
}

func unsupported(ptr, what string) *Error {
	return &Error{Pointer: ptr, Message: what + " has no JSON form", Err: ErrUnsupportedValue}
}
