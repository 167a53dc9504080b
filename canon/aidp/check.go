package aidp

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aqlstore/aqlstore/canon"
)

// checker gathers the problems of one validation stage. Every problem of
// a stage gets the stage's code, so a stage reads as a list of rules.
type checker struct {
	code string
	errs ErrorList
}

func (c *checker) fail(ptr, format string, args ...any) {
	c.errs = append(c.errs, &Error{Code: c.code, Pointer: ptr, Message: fmt.Sprintf(format, args...)})
}

// obj is an object under validation and where it sits. Its methods read
// one member each, report what is wrong with it and return the zero value
// then, so that parsing goes on and every problem of the stage is listed.
// An obj whose m is nil (absent or not an object, already reported) reads
// as empty and reports nothing more.
type obj struct {
	c   *checker
	ptr string
	m   map[string]any
}

// at returns the pointer of member name.
func (o obj) at(name string) string { return o.ptr + "/" + string(canon.EscapeSegment(nil, name)) }

// get returns member name; a missing required member is reported.
func (o obj) get(name string, required bool) (any, bool) {
	if o.m == nil {
		return nil, false
	}
	v, ok := o.m[name]
	if !ok && required {
		o.c.fail(o.at(name), "missing required member %q", name)
	}
	return v, ok
}

func (o obj) wrongType(name, want string, v any) {
	o.c.fail(o.at(name), "%s is %s, want %s", name, typeName(v), want)
}

// str reads a string member; a present string must not be empty, because
// every string the draft requires names or identifies something.
func (o obj) str(name string, required bool) string {
	v, ok := o.get(name, required)
	if !ok {
		return ""
	}
	s, isStr := v.(string)
	switch {
	case !isStr:
		o.wrongType(name, "a string", v)
	case s == "":
		o.c.fail(o.at(name), "%s is empty, want a non-empty string", name)
	}
	return s
}

// id reads a string that becomes part of a store key. The key joins ids
// with NUL (see ObservationKey), so an id holding NUL would make two
// different keys equal; it is rejected here, where its pointer is known.
func (o obj) id(name string) string {
	s := o.str(name, true)
	if strings.IndexByte(s, 0) >= 0 {
		o.c.fail(o.at(name), "%s contains U+0000, which cannot be part of a key", name)
		return ""
	}
	return s
}

// enum reads a string member that must be one of values.
func (o obj) enum(name string, required bool, values ...string) string {
	s := o.str(name, required)
	if s == "" {
		return ""
	}
	for _, v := range values {
		if s == v {
			return s
		}
	}
	o.c.fail(o.at(name), "%s is %q, want one of %s", name, s, strings.Join(values, ", "))
	return ""
}

// object reads an object member.
func (o obj) object(name string, required bool) obj {
	v, ok := o.get(name, required)
	if !ok {
		return obj{c: o.c, ptr: o.at(name)}
	}
	m, isObj := v.(map[string]any)
	if !isObj {
		o.wrongType(name, "an object", v)
	}
	return obj{c: o.c, ptr: o.at(name), m: m}
}

// array reads an array member; the draft allows every array it names to
// be empty.
func (o obj) array(name string, required bool) []any {
	v, ok := o.get(name, required)
	if !ok {
		return nil
	}
	a, isArr := v.([]any)
	if !isArr {
		o.wrongType(name, "an array", v)
	}
	return a
}

// instant reads an RFC 3339 date-time, parsed as canon.ParseInstant does
// so that the index and the evaluator read the same instant.
func (o obj) instant(name string, required bool) (time.Time, bool) {
	s := o.str(name, required)
	if s == "" {
		return time.Time{}, false
	}
	t, ok := canon.ParseInstant(s)
	if !ok {
		o.c.fail(o.at(name), "%s is %q, want an RFC 3339 date-time such as 2026-01-13T09:14:00+02:00", name, s)
	}
	return t, ok
}

// boolean reads a boolean member.
func (o obj) boolean(name string) *bool {
	v, ok := o.get(name, false)
	if !ok {
		return nil
	}
	b, isBool := v.(bool)
	if !isBool {
		o.wrongType(name, "a boolean", v)
		return nil
	}
	return &b
}

// count reads an optional non-negative integer member (a count, a number
// of seconds).
func (o obj) count(name string) *int64 {
	v, ok := o.get(name, false)
	if !ok {
		return nil
	}
	n, isNum := v.(canon.Number)
	if !isNum {
		o.wrongType(name, "a non-negative integer", v)
		return nil
	}
	// Canonical numbers (the message is decoded from its RFC 8785 form)
	// write integers as plain digits, so 2.0 arrives here as "2".
	i, err := strconv.ParseInt(string(n), 10, 64)
	if err != nil || i < 0 {
		o.c.fail(o.at(name), "%s is %s, want a non-negative integer", name, n)
		return nil
	}
	return &i
}

// number reads an optional non-negative number member.
func (o obj) number(name string) canon.Number {
	v, ok := o.get(name, false)
	if !ok {
		return ""
	}
	n, isNum := v.(canon.Number)
	if !isNum {
		o.wrongType(name, "a non-negative number", v)
		return ""
	}
	if strings.HasPrefix(string(n), "-") {
		o.c.fail(o.at(name), "%s is %s, want a non-negative number", name, n)
		return ""
	}
	return n
}

// closed rejects members outside known: §18 requires it for the
// security-critical sub-objects, where an unknown member could carry
// authority a validator ignores but an executor honours (§11.6.5).
func (o obj) closed(known ...string) {
	for _, k := range canon.SortedKeys(o.m) {
		if !slices.Contains(known, k) {
			o.c.fail(o.at(k), "unknown member %q in a security-critical object (known: %s)", k, strings.Join(known, ", "))
		}
	}
}

// typeName is canon.TypeName, with a number's text ("the number 3"):
// AIDP's problems name the value that broke a rule.
func typeName(v any) string {
	if n, ok := v.(canon.Number); ok {
		return "the number " + string(n)
	}
	return canon.TypeName(v)
}
