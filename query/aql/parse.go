package aql

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/aqlstore/aqlstore/canon"
)

// Parse strictly decodes an intent, validates all of it and compiles it.
// opts may be nil for the defaults.
//
// Validation does not stop at the first problem: the error is an
// *InvalidError listing every problem found (up to Options.MaxProblems),
// each with the JSON Pointer of the offending node, so that an issuer fixes
// an intent in one round trip. A document that is not JSON (or has a
// duplicate member name) yields a single problem carrying canon's line and
// column. The returned Intent is owned by the caller; it is immutable once
// returned and safe for concurrent use by evaluators.
func Parse(b []byte, opts *Options) (*Intent, error) {
	o := optionsOrDefault(opts)
	if len(b) > o.MaxBytes {
		return nil, &InvalidError{Problems: []Problem{{Code: CodeLimit,
			Message: fmt.Sprintf("intent is %d bytes, over the limit of %d (Options.MaxBytes); shorten it (fewer constraints, shorter sets) or raise the limit", len(b), o.MaxBytes)}}}
	}
	v, err := canon.Decode(b, &o.Limits)
	if err != nil {
		return nil, decodeError(err)
	}
	return compile(v, o)
}

// ParseValue validates and compiles an intent that is already decoded in
// canon's value model (nil, bool, string, canon.Number, []any,
// map[string]any), e.g. one read back from the store. Options.MaxBytes and
// Options.Limits do not apply: the value was bounded when it was decoded.
// The Intent's Document is v itself, not a copy, its numbers brought to
// their RFC 8785 form in place (as the store's already are).
func ParseValue(v any, opts *Options) (*Intent, error) {
	return compile(v, optionsOrDefault(opts))
}

func compile(v any, o *Options) (*Intent, error) {
	c := &checker{o: o}
	var at [16]segment
	c.numbers(v, at[:0])
	in := c.intent(v)
	if len(c.problems) > 0 {
		return nil, &InvalidError{Problems: c.problems}
	}
	return in, nil
}

// decodeError turns canon's positioned error into the single problem an
// undecodable intent has.
func decodeError(err error) error {
	var se *canon.SyntaxError
	if !errors.As(err, &se) {
		return &InvalidError{Problems: []Problem{{Code: CodeSyntax, Message: err.Error()}}, cause: err}
	}
	code := CodeSyntax
	switch {
	case errors.Is(se, canon.ErrDuplicateName):
		code = CodeDuplicateName
	case errors.Is(se, canon.ErrLimit):
		code = CodeLimit
	}
	msg := fmt.Sprintf("line %d, column %d: %s", se.Line, se.Column, se.Reason)
	if se.Fix != "" {
		msg += "; " + se.Fix
	}
	return &InvalidError{Problems: []Problem{{Pointer: se.Pointer, Code: code, Message: msg}}, cause: err}
}

// checker walks a decoded intent once, collecting problems and building
// the compiled Intent at the same time: the two cannot drift apart, and a
// rule checked is a value compiled.
type checker struct {
	o        *Options
	problems []Problem
	capped   bool // MaxProblems reached: later problems are dropped
	// badNumbers holds the pointers of numbers without a value, reported
	// once by numbers and not again by the rule that reads them.
	badNumbers map[string]bool
	// extension is set while checking a part whose shape the published
	// schema leaves open or lacks (a leaf's value, payment_constraints),
	// so that the problems found there are not Schema ones.
	extension bool
	nodes     int             // constraint nodes compiled so far
	limits    map[string]bool // node and depth limits already reported
}

// schemaf reports a problem the published schema reports too.
func (c *checker) schemaf(ptr, code, format string, args ...any) {
	c.report(Problem{Pointer: ptr, Code: code, Message: fmt.Sprintf(format, args...), Schema: !c.extension})
}

// rulef reports a problem only RFC 0020's text, the README's AQL rules or Options
// state; oap-intent.schema.json alone would let it through.
func (c *checker) rulef(ptr, code, format string, args ...any) {
	c.report(Problem{Pointer: ptr, Code: code, Message: fmt.Sprintf(format, args...)})
}

func (c *checker) report(p Problem) {
	if c.capped || c.badNumbers[p.Pointer] && p.Code == CodeBadValue {
		return // a number without a value is reported once, by numbers
	}
	if len(c.problems) == c.o.MaxProblems {
		c.capped = true
		p = Problem{Code: CodeLimit,
			Message: fmt.Sprintf("more than %d problems (Options.MaxProblems); fix the ones listed and parse again", c.o.MaxProblems)}
	}
	c.problems = append(c.problems, p)
}

// limitOnce reports a limit the first time it is crossed: one oversized
// tree is one problem, not a thousand.
func (c *checker) limitOnce(name, ptr, format string, args ...any) {
	if c.limits[name] {
		return
	}
	if c.limits == nil {
		c.limits = make(map[string]bool)
	}
	c.limits[name] = true
	c.rulef(ptr, CodeLimit, format, args...)
}

// extend runs check as a part the published schema does not check.
func (c *checker) extend(check func()) {
	prev := c.extension
	c.extension = true
	check()
	c.extension = prev
}

// child returns the pointer of member name of the node at ptr. Every
// member the checker visits gets one, so a name without ~ or / (nearly
// all) is joined in one allocation.
func child(ptr, name string) string {
	if !strings.ContainsAny(name, "~/") {
		return ptr + "/" + name
	}
	return string(canon.EscapeSegment(append([]byte(ptr), '/'), name))
}

// elem returns the pointer of element i of the array at ptr.
func elem(ptr string, i int) string { return ptr + "/" + strconv.Itoa(i) }
