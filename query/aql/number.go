package aql

import (
	"strconv"

	"github.com/aqlstore/aqlstore/canon"
)

// numbers brings every number of a decoded intent to its RFC 8785 form,
// in place: a number in an intent denotes the IEEE 754 double it rounds
// to, as the same literal does in a stored document, so
// 0.30000000000000001 is 0.3 and 9007199254740993 is 9007199254740992 on
// both sides (decimal strings keep every digit). A number outside the
// double range has no such value and is a problem at its pointer.
func (c *checker) numbers(v any, at []segment) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			at := append(at, segment{name: k})
			if n, ok := e.(canon.Number); ok {
				v[k] = c.canonicalNumber(n, at)
			} else {
				c.numbers(e, at)
			}
		}
	case []any:
		for i, e := range v {
			at := append(at, segment{index: i, elem: true})
			if n, ok := e.(canon.Number); ok {
				v[i] = c.canonicalNumber(n, at)
			} else {
				c.numbers(e, at)
			}
		}
	}
}

// segment is one step of the walk numbers makes: a member's name or an
// element's index. The walk keeps its steps and makes a pointer of them
// only for a number it reports: an intent has tens of members, and a
// pointer string per member cost a tenth of Parse's allocations.
type segment struct {
	name  string
	index int
	elem  bool
}

// pointerOf returns the JSON Pointer of the steps at.
func pointerOf(at []segment) string {
	var b []byte
	for _, s := range at {
		b = append(b, '/')
		if s.elem {
			b = strconv.AppendInt(b, int64(s.index), 10)
		} else {
			b = canon.EscapeSegment(b, s.name)
		}
	}
	return string(b)
}

// canonicalNumber returns n in RFC 8785 form; n itself when it has none, after
// reporting it.
func (c *checker) canonicalNumber(n canon.Number, at []segment) canon.Number {
	var scratch [32]byte
	f, err := canon.AppendNumber(scratch[:0], n)
	if err != nil {
		ptr := pointerOf(at)
		c.rulef(ptr, CodeBadValue, "the number %.40s is outside the IEEE 754 double range (about ±1.8e308), so it has no value; write it as a decimal string (\"%.40s\") to keep it exact", n, n)
		if c.badNumbers == nil {
			c.badNumbers = map[string]bool{}
		}
		c.badNumbers[ptr] = true
		return n
	}
	if string(f) == string(n) {
		return n
	}
	return canon.Number(f)
}
