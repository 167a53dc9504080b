package execintent

import (
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aqlstore/aqlstore/canon"
)

// checker gathers problems; obj reads one object's members against the
// schema, reporting what is wrong and returning zero values so that
// every problem is listed. An obj with a nil m (absent or mistyped,
// already reported) reads as empty.
type checker struct{ errs ErrorList }

func (c *checker) fail(sentinel error, ptr, format string, args ...any) {
	c.errs = append(c.errs, &Error{Pointer: ptr, Message: fmt.Sprintf(format, args...), Err: sentinel})
}

type obj struct {
	c   *checker
	ptr string
	m   map[string]any
}

func (o obj) at(name string) string { return o.ptr + "/" + string(canon.EscapeSegment(nil, name)) }

// members checks required and additionalProperties: false.
func (o obj) members(required, known []string) {
	if o.m == nil {
		return
	}
	for _, name := range required {
		if _, ok := o.m[name]; !ok {
			o.c.fail(ErrSchema, o.at(name), "missing required member %q", name)
		}
	}
	for _, k := range canon.SortedKeys(o.m) {
		if !slices.Contains(known, k) {
			o.c.fail(ErrSchema, o.at(k), "unknown member %q (additionalProperties is false; known: %s)", k, strings.Join(known, ", "))
		}
	}
}

func (o obj) get(name string) (any, bool) {
	if o.m == nil {
		return nil, false
	}
	v, ok := o.m[name]
	return v, ok
}

// str reads a string of minLen..maxLen characters; JSON Schema counts
// code points, not bytes.
func (o obj) str(name string, minLen, maxLen int) string {
	v, ok := o.get(name)
	if !ok {
		return ""
	}
	s, isStr := v.(string)
	if !isStr {
		o.c.fail(ErrSchema, o.at(name), "%s is %s, want a string", name, canon.TypeName(v))
		return ""
	}
	if n := utf8.RuneCountInString(s); n < minLen || n > maxLen {
		o.c.fail(ErrSchema, o.at(name), "%s has %d characters, want %d to %d", name, n, minLen, maxLen)
	}
	return s
}

// key reads a string that is part of a store key: the keys join parts
// with NUL, so a part holding NUL would make two keys collide.
func (o obj) key(name string, minLen, maxLen int) string {
	s := o.str(name, minLen, maxLen)
	if strings.IndexByte(s, 0) >= 0 {
		o.c.fail(ErrInvalid, o.at(name), "%s contains U+0000, which cannot be part of a key", name)
	}
	return s
}

// constant reads a member that must equal want.
func (o obj) constant(name, want string) {
	if v, ok := o.get(name); ok && v != want {
		o.c.fail(ErrSchema, o.at(name), "%s must be %q", name, want)
	}
}

// enum reads a string member that must be one of values.
func (o obj) enum(name string, values ...string) string {
	v, ok := o.get(name)
	if !ok {
		return ""
	}
	s, isStr := v.(string)
	if !isStr || !slices.Contains(values, s) {
		o.c.fail(ErrSchema, o.at(name), "%s is %s, want one of %s", name, describe(v), strings.Join(values, ", "))
		return ""
	}
	return s
}

// hex64 reads a lowercase hex sha256 (^[0-9a-f]{64}$).
func (o obj) hex64(name string) string {
	v, ok := o.get(name)
	if !ok {
		return ""
	}
	s, isStr := v.(string)
	if !isStr || !isHex64(s) {
		o.c.fail(ErrSchema, o.at(name), "%s is %s, want 64 lowercase hex digits", name, describe(v))
		return ""
	}
	return s
}

func isHex64(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

func (o obj) boolean(name string) bool {
	v, ok := o.get(name)
	b, isBool := v.(bool)
	if ok && !isBool {
		o.c.fail(ErrSchema, o.at(name), "%s is %s, want a boolean", name, canon.TypeName(v))
	}
	return b
}

// maxSafe is 2^53−1, the largest integer every IEEE double near it
// represents exactly (I-JSON, RFC 7493 §2.2).
var maxSafe = new(big.Rat).SetInt64(1<<53 - 1)

// integer reads an integer ≥ minimum. JSON Schema's integer is any
// number with a zero fraction, so 5.0 and 5e2 are integers too.
func (o obj) integer(name string, minimum int64) int64 {
	v, ok := o.get(name)
	if !ok {
		return 0
	}
	n, isNum := v.(canon.Number)
	if !isNum {
		o.c.fail(ErrSchema, o.at(name), "%s is %s, want an integer", name, canon.TypeName(v))
		return 0
	}
	r, ok := exactNumber(n)
	switch {
	case !ok:
		o.c.fail(ErrInvalid, o.at(name), "%s is %s, outside the range of an IEEE double, which RFC 8785 requires", name, n)
	case !r.IsInt():
		o.c.fail(ErrSchema, o.at(name), "%s is %s, want an integer", name, n)
	case r.Cmp(new(big.Rat).SetInt64(minimum)) < 0:
		o.c.fail(ErrSchema, o.at(name), "%s is %s, want at least %d", name, n, minimum)
	case new(big.Rat).Abs(r).Cmp(maxSafe) > 0:
		o.c.fail(ErrInvalid, o.at(name), "%s is %s, beyond 2^53-1: RFC 8785 would hash a rounded value", name, n)
	default:
		return r.Num().Int64()
	}
	return 0
}

// exactNumber parses a JSON number exactly. An exponent beyond ±400 is
// refused before big.Rat expands it (1e999999999 would take gigabytes);
// such a literal is beyond the double range or rounds towards zero, and
// no count of cents is written so, so refusing it is conservative.
func exactNumber(n canon.Number) (*big.Rat, bool) {
	s := string(n)
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		exp, err := strconv.Atoi(s[i+1:])
		if err != nil || exp > 400 || exp < -400 {
			return nil, false
		}
	}
	return new(big.Rat).SetString(s)
}

// instant reads an RFC 3339 date-time (JSON Schema "format": "date-time"),
// parsed as canon.ParseInstant reads timestamps everywhere in aqlstore.
func (o obj) instant(name string) time.Time {
	v, ok := o.get(name)
	if !ok {
		return time.Time{}
	}
	s, isStr := v.(string)
	t, valid := canon.ParseInstant(s)
	if !isStr || !valid {
		o.c.fail(ErrSchema, o.at(name), "%s is %s, want an RFC 3339 date-time such as 2026-04-05T12:00:00Z", name, describe(v))
	}
	return t
}

// object reads an object member.
func (o obj) object(name string) obj {
	v, ok := o.get(name)
	m, isObj := v.(map[string]any)
	if ok && !isObj {
		o.c.fail(ErrSchema, o.at(name), "%s is %s, want an object", name, canon.TypeName(v))
	}
	return obj{c: o.c, ptr: o.at(name), m: m}
}

// describe quotes a string value and names the type of anything else.
func describe(v any) string {
	if s, ok := v.(string); ok {
		if len(s) > 80 {
			s = s[:80] + "…"
		}
		return strconv.Quote(s)
	}
	return canon.TypeName(v)
}
