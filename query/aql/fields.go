package aql

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/cockroachdb/apd/v3"
)

// field is one member an object of the schema may have.
type field struct {
	name     string
	required bool
	hint     string // what the member holds: the fix when it is missing
}

// shape is an object of the schema with "additionalProperties": false.
type shape struct {
	what   string // how messages name the object, e.g. "budget"
	fields []field
}

func (s *shape) has(name string) bool {
	for _, f := range s.fields {
		if f.name == name {
			return true
		}
	}
	return false
}

// hasStray reports whether m has a member s does not allow.
func (s *shape) hasStray(m map[string]any) bool {
	for k := range m {
		if !s.has(k) {
			return true
		}
	}
	return false
}

func (s *shape) names() string {
	names := make([]string, len(s.fields))
	for i, f := range s.fields {
		names[i] = f.name
	}
	return strings.Join(names, ", ")
}

// object returns v as an object, or reports that it is not one.
func (c *checker) object(v any, ptr, what string) (map[string]any, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		c.schemaf(ptr, CodeBadType, "%s must be an object, not %s", what, describe(v))
	}
	return m, ok
}

// members reports the required members m lacks and the members s does not
// allow, in a deterministic order (shape order, then RFC 8785 order).
func (c *checker) members(m map[string]any, ptr string, s *shape) {
	for _, f := range s.fields {
		if _, ok := m[f.name]; f.required && !ok {
			c.schemaf(child(ptr, f.name), CodeMissingField, "%s needs member %q: add %s", s.what, f.name, f.hint)
		}
	}
	c.unknown(m, ptr, s)
}

// unknown reports the members of m that s does not allow. Sorting the
// names is for the order of the reports: an object without a stray member,
// as nearly every intent is, is not sorted.
func (c *checker) unknown(m map[string]any, ptr string, s *shape) {
	if !s.hasStray(m) {
		return
	}
	for _, k := range canon.SortedKeys(m) {
		if !s.has(k) {
			c.schemaf(child(ptr, k), CodeExtraField, "%s has no member %s (it may have %s); remove it or fix its spelling",
				s.what, quoteShort(k), s.names())
		}
	}
}

// str returns v as a string, or reports that it is not one.
func (c *checker) str(v any, ptr, what string) (string, bool) {
	s, ok := v.(string)
	if !ok {
		c.schemaf(ptr, CodeBadType, "%s must be a string, not %s", what, describe(v))
	}
	return s, ok
}

// pattern returns v when it is a string matching re; hint is the fix.
func (c *checker) pattern(v any, ptr, what string, p *schemaPattern, hint string) (string, bool) {
	s, ok := c.str(v, ptr, what)
	if ok && !p.re.MatchString(s) {
		c.schemaf(ptr, CodeBadPattern, "%s %s does not match %s: write %s", what, quoteShort(s), p.text, hint)
		return s, false
	}
	return s, ok
}

// enum returns v when it is one of allowed.
func (c *checker) enum(v any, ptr, what string, allowed ...string) (string, bool) {
	s, ok := v.(string)
	for _, a := range allowed {
		if ok && s == a {
			return s, true
		}
	}
	hint := ""
	if ok {
		hint = didYouMean(s, nil, allowed)
	}
	c.schemaf(ptr, CodeBadValue, "%s must be one of %s, not %s%s", what, strings.Join(allowed, ", "), describe(v), hint)
	return "", false
}

// boolean returns v as a bool, or reports that it is not one.
func (c *checker) boolean(v any, ptr, what string) (bool, bool) {
	b, ok := v.(bool)
	if !ok {
		c.schemaf(ptr, CodeBadType, "%s must be true or false, not %s", what, describe(v))
	}
	return b, ok
}

// number returns v as an exact decimal when it is a JSON number.
func (c *checker) number(v any, ptr, what string) (*apd.Decimal, bool) {
	n, ok := v.(canon.Number)
	if !ok {
		c.schemaf(ptr, CodeBadType, "%s must be a number, not %s", what, describe(v))
		return nil, false
	}
	d, ok := ParseDecimal(n)
	if !ok {
		c.rulef(ptr, CodeBadValue, "%s %s is outside the supported range (exponents within ±%d)", what, n, apd.MaxExponent)
	}
	return d, ok
}

// unit returns v when it is a number in [0, 1] (a score, a share).
func (c *checker) unit(v any, ptr, what string) (*apd.Decimal, bool) {
	d, ok := c.number(v, ptr, what)
	if ok && (d.Sign() < 0 || d.Cmp(decimalOne) > 0) {
		c.schemaf(ptr, CodeBadValue, "%s must be between 0 and 1, not %s", what, v)
		return d, false
	}
	return d, ok
}

var decimalOne = apd.New(1, 0)

// integer returns v when it is an integer (in the JSON Schema sense: 5.0
// and 5e0 count) of at least min.
func (c *checker) integer(v any, ptr, what string, min int64) (int, bool) {
	if _, ok := v.(canon.Number); !ok {
		c.schemaf(ptr, CodeBadType, "%s must be an integer, not %s", what, describe(v))
		return 0, false
	}
	d, ok := c.number(v, ptr, what)
	if !ok {
		return 0, false
	}
	var frac apd.Decimal
	if d.Modf(nil, &frac); !frac.IsZero() {
		c.schemaf(ptr, CodeBadType, "%s must be an integer, not %s", what, v)
		return 0, false
	}
	if d.Cmp(apd.New(min, 0)) < 0 {
		c.schemaf(ptr, CodeBadValue, "%s must be at least %d, not %s", what, min, v)
		return 0, false
	}
	n, err := d.Int64()
	if err != nil || n > math.MaxInt {
		c.rulef(ptr, CodeBadValue, "%s %s is too large (at most %d)", what, v, math.MaxInt)
		return 0, false
	}
	return int(n), true
}

// describe names a value's type, with the value itself when short, for
// messages like "must be a string, not the number 5".
func describe(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return strconv.FormatBool(v)
	case string:
		return "the string " + quoteShort(v)
	case canon.Number:
		return "the number " + shorten(string(v))
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// quoteShort quotes s, cut after 64 bytes, so that a hostile intent cannot
// flood an error message.
func quoteShort(s string) string {
	if len(s) <= maxQuoted {
		return strconv.Quote(s)
	}
	return strconv.Quote(cutRunes(s, maxQuoted)) + fmt.Sprintf("...(%d bytes)", len(s))
}

func shorten(s string) string {
	if len(s) <= maxQuoted {
		return s
	}
	return cutRunes(s, maxQuoted) + fmt.Sprintf("...(%d bytes)", len(s))
}

const maxQuoted = 64

func cutRunes(s string, n int) string {
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
