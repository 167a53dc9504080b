package aql

import (
	"errors"
	"strings"

	"github.com/aqlstore/aqlstore/canon"
)

// path compiles a leaf's path. The schema's pattern ^/.* makes "" (which
// canon reads as the whole document) invalid here: OAP writes the root "/".
func (c *checker) path(v any, ptr string) *canon.Pointer {
	s, ok := c.str(v, ptr, "path")
	if !ok {
		return nil
	}
	if !strings.HasPrefix(s, "/") {
		c.schemaf(ptr, CodeBadPointer, `path %s must start with "/" ("/" alone is the whole document)`, quoteShort(s))
		return nil
	}
	return c.pointer(s, ptr)
}

// operator reads an operator of the closed set: one outside it would ask
// the resolver to trust the issuer with semantics it cannot check (RFC
// 0020 §3.2, A.8), so it makes the whole intent invalid.
func (c *checker) operator(v any, ptr string) (Operator, bool) {
	s, ok := c.str(v, ptr, "operator")
	if !ok {
		return 0, false
	}
	op, ok := ParseOperator(s)
	if !ok {
		c.schemaf(ptr, CodeUnknownOperator, "unknown operator %s (one of %s)%s", quoteShort(s), operatorList,
			didYouMean(s, operatorAliases, operatorNames[1:]))
	}
	return op, ok
}

// operandCompilers check a leaf's value against its operator and compile
// it, so that evaluation never re-parses an operand. Indexed by Operator.
var operandCompilers = [...]func(c *checker, l *Leaf, v any, ptr string){
	OpEq:       (*checker).anyValue,
	OpNe:       (*checker).anyValue,
	OpLt:       (*checker).ordered,
	OpLte:      (*checker).ordered,
	OpGt:       (*checker).ordered,
	OpGte:      (*checker).ordered,
	OpIn:       (*checker).set,
	OpNotIn:    (*checker).set,
	OpContains: (*checker).anyValue,
	OpMatches:  (*checker).regex,
	OpBefore:   (*checker).instant,
	OpAfter:    (*checker).instant,
	OpWithin:   (*checker).interval,
	OpOutside:  (*checker).interval,
	OpExists:   (*checker).exists,
}

// anyValue accepts every JSON value: eq, ne and contains compare
// structurally.
func (c *checker) anyValue(*Leaf, any, string) {}

// ordered compiles lt..gte's operand: an exact decimal (a number or a
// decimal string) or an instant.
func (c *checker) ordered(l *Leaf, v any, ptr string) {
	if d, ok := ParseDecimal(v); ok {
		l.Decimal = d
		return
	}
	switch v := v.(type) {
	case canon.Number:
		c.rulef(ptr, CodeBadValue, "number %s is outside the supported range; use a smaller exponent", shorten(string(v)))
	case string:
		if t, ok := canon.ParseInstantFull(v); ok {
			l.Instant, l.IsTime = t, true
			return
		}
		c.rulef(ptr, CodeBadValue, `%s compares numbers, decimal strings such as "100.00" and RFC 3339 timestamps; %s is none of these`, l.Operator, quoteShort(v))
	default:
		c.rulef(ptr, CodeBadType, "%s takes a number, a decimal string or an RFC 3339 timestamp, not %s", l.Operator, describe(v))
	}
}

// set compiles in/not_in's operand, which must be an array.
func (c *checker) set(l *Leaf, v any, ptr string) {
	a, ok := v.([]any)
	if !ok {
		c.rulef(ptr, CodeBadType, `%s takes an array of values such as ["DE", "AT"], not %s; for one value use eq`, l.Operator, describe(v))
		return
	}
	l.Set = a
}

// exists compiles exists' operand: whether the path must resolve.
func (c *checker) exists(l *Leaf, v any, ptr string) {
	b, ok := v.(bool)
	if !ok {
		c.rulef(ptr, CodeBadType, "exists takes true (the path must resolve) or false (it must not), not %s", describe(v))
		return
	}
	l.Exists = b
}

// instant compiles before/after's operand.
func (c *checker) instant(l *Leaf, v any, ptr string) {
	s, ok := v.(string)
	if !ok {
		c.rulef(ptr, CodeBadType, "%s takes %s, not %s", l.Operator, instantHint, describe(v))
		return
	}
	t, ok := canon.ParseInstantFull(s)
	if !ok {
		c.rulef(ptr, CodeBadValue, "%s takes %s; %s is not one", l.Operator, instantHint, quoteShort(s))
		return
	}
	l.Instant, l.IsTime = t, true
}

// regex compiles matches' operand as an ECMA-262 regular expression with
// a match timeout: a backtracking engine without one can spin for tens of
// seconds on ^(a+)+$ (README).
func (c *checker) regex(l *Leaf, v any, ptr string) {
	s, ok := v.(string)
	if !ok {
		c.rulef(ptr, CodeBadType, "matches takes an ECMA-262 regular expression as a string, not %s", describe(v))
		return
	}
	if len(s) > c.o.MaxRegexBytes {
		c.rulef(ptr, CodeLimit, "pattern is %d bytes, over the limit of %d (Options.MaxRegexBytes); shorten it", len(s), c.o.MaxRegexBytes)
		return
	}
	re, err := CompileRegex(s)
	var syn *ecmaSyntaxError
	switch {
	case errors.As(err, &syn): // says what to write instead
		c.rulef(ptr, CodeBadRegex, "%s is not an ECMA-262 regular expression: %v", quoteShort(s), err)
		return
	case err != nil:
		c.rulef(ptr, CodeBadRegex, "%s is not an ECMA-262 regular expression: %v; fix the pattern (it is searched unanchored, as RegExp.test)", quoteShort(s), err)
		return
	}
	re.MatchTimeout = c.o.RegexTimeout
	l.Regex = re
}

var intervalShape = &shape{what: "an interval", fields: []field{
	{"from", true, instantHint},
	{"to", true, instantHint},
}}

// interval compiles within/outside's operand: [start, end] or
// {"from", "to"}, both RFC 3339 timestamps, start not after end.
func (c *checker) interval(l *Leaf, v any, ptr string) {
	var bounds [2]any
	var ptrs [2]string
	switch v := v.(type) {
	case []any:
		if len(v) != 2 {
			c.rulef(ptr, CodeBadInterval, "%s takes [start, end], two RFC 3339 timestamps, not %d elements", l.Operator, len(v))
			return
		}
		bounds, ptrs = [2]any{v[0], v[1]}, [2]string{elem(ptr, 0), elem(ptr, 1)}
	case map[string]any:
		c.members(v, ptr, intervalShape)
		bounds, ptrs = [2]any{v["from"], v["to"]}, [2]string{child(ptr, "from"), child(ptr, "to")}
		if !hasAll(v, intervalShape) {
			return
		}
	default:
		c.rulef(ptr, CodeBadType, `%s takes an interval, ["<start>", "<end>"] or {"from": ..., "to": ...}, not %s`, l.Operator, describe(v))
		return
	}
	c.bounds(l, bounds, ptrs, ptr)
}

// bounds compiles the two ends of an interval.
func (c *checker) bounds(l *Leaf, bounds [2]any, ptrs [2]string, ptr string) {
	start, ok1 := c.bound(bounds[0], ptrs[0])
	end, ok2 := c.bound(bounds[1], ptrs[1])
	if ok1 && ok2 && start.Compare(end) > 0 {
		c.rulef(ptr, CodeBadInterval, "interval starts at %s, after its end %s; swap the two", start, end)
		return
	}
	l.Interval = Interval{Start: start, End: end}
}

func (c *checker) bound(v any, ptr string) (canon.Instant, bool) {
	s, _ := v.(string)
	t, ok := canon.ParseInstantFull(s)
	if !ok {
		c.rulef(ptr, CodeBadInterval, "an interval bound must be %s, not %s", instantHint, describe(v))
	}
	return t, ok
}

func hasAll(m map[string]any, s *shape) bool {
	for _, f := range s.fields {
		if _, ok := m[f.name]; !ok {
			return false
		}
	}
	return true
}
