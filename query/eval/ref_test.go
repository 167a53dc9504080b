package eval

import (
	"math/big"
	"regexp"
	"strings"
	"time"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/query/aql"
)

// The reference evaluator: deliberately naive and independent of the
// evaluator's code. It reads the raw constraint (not the compiled Leaf),
// resolves with ResolveAll, compares decimals with math/big.Rat, instants
// with time.Parse, and compiles regexes itself.

// refLeaf is one leaf's reference outcome.
type refLeaf struct {
	raw    map[string]any
	vals   []any
	passed bool
	// notFailed: the outermost not above the leaf failed, so a leaf that
	// passed says it held under it.
	notFailed bool
}

var (
	refDecimalRE = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?$`)
	refTimeRE    = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?([Zz]|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$`)
)

// refEval evaluates every leaf (no short-circuit) and appends the leaves'
// outcomes in tree order.
func refEval(c any, doc any, leaves *[]refLeaf) bool {
	if arr, ok := c.([]any); ok {
		return refAll(arr, doc, leaves)
	}
	m := c.(map[string]any)
	if sub, ok := m["all_of"]; ok {
		return refAll(sub.([]any), doc, leaves)
	}
	if sub, ok := m["any_of"]; ok {
		return refAny(sub.([]any), doc, leaves)
	}
	if sub, ok := m["not"]; ok {
		from := len(*leaves)
		var holds bool
		if arr, ok := sub.([]any); ok {
			holds = !refAny(arr, doc, leaves)
		} else {
			holds = !refEval(sub, doc, leaves)
		}
		// Nots are left innermost first, so the outermost one writes last.
		for i := from; i < len(*leaves); i++ {
			(*leaves)[i].notFailed = !holds
		}
		return holds
	}
	l := refEvalLeaf(m, doc)
	*leaves = append(*leaves, l)
	return l.passed
}

func refAll(arr []any, doc any, leaves *[]refLeaf) bool {
	all := true
	for _, c := range arr {
		if !refEval(c, doc, leaves) {
			all = false
		}
	}
	return all
}

func refAny(arr []any, doc any, leaves *[]refLeaf) bool {
	some := false
	for _, c := range arr {
		if refEval(c, doc, leaves) {
			some = true
		}
	}
	return some
}

func refEvalLeaf(m map[string]any, doc any) refLeaf {
	vals := canon.MustParsePointer(m["path"].(string)).ResolveAll(doc, nil)
	l := refLeaf{raw: m, vals: vals}
	op, want := m["operator"].(string), m["value"]
	if op == "exists" {
		l.passed = (len(vals) > 0) == want.(bool)
		return l
	}
	for _, v := range vals {
		if refOp(op, v, want) {
			l.passed = true
		}
	}
	return l
}

func refOp(op string, v, want any) bool {
	switch op {
	case "eq":
		return refEqual(v, want)
	case "ne":
		return !refEqual(v, want)
	case "lt", "lte", "gt", "gte":
		return refOrder(op, v, want)
	case "in":
		return refMember(v, want.([]any))
	case "not_in":
		return !refMember(v, want.([]any))
	case "contains":
		return refContains(v, want)
	case "matches":
		return refMatches(v, want.(string))
	}
	return refTemporal(op, v, want)
}

func refEqual(a, b any) bool {
	switch x := a.(type) {
	case canon.Number:
		y, ok := b.(canon.Number)
		return ok && refRat(string(x)).Cmp(refRat(string(y))) == 0
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !refEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k := range x {
			if _, ok := y[k]; !ok || !refEqual(x[k], y[k]) {
				return false
			}
		}
		return true
	}
	return a == b // nil, bool, string
}

func refRat(s string) *big.Rat {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		panic("reference: bad number " + s)
	}
	return r
}

func refMember(v any, set []any) bool {
	for _, s := range set {
		if refEqual(v, s) {
			return true
		}
	}
	return false
}

func refDecimal(x any) (*big.Rat, bool) {
	switch x := x.(type) {
	case canon.Number:
		return refRat(string(x)), true
	case string:
		if refDecimalRE.MatchString(x) {
			return refRat(x), true
		}
	}
	return nil, false
}

func refTime(x any) (time.Time, bool) {
	s, ok := x.(string)
	if !ok || !refTimeRE.MatchString(s) {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, strings.ToUpper(s))
	return t, err == nil // leap seconds: never generated, time.Parse refuses them
}

func refOrder(op string, v, want any) bool {
	c, ok := 0, false
	if a, ok1 := refDecimal(v); ok1 {
		if b, ok2 := refDecimal(want); ok2 {
			c, ok = a.Cmp(b), true
		}
	}
	if a, ok1 := refTime(v); ok1 {
		if b, ok2 := refTime(want); ok2 {
			c, ok = a.Compare(b), true
		}
	}
	if !ok {
		return false
	}
	return op == "lt" && c < 0 || op == "lte" && c <= 0 || op == "gt" && c > 0 || op == "gte" && c >= 0
}

func refContains(v, want any) bool {
	switch x := v.(type) {
	case string:
		w, ok := want.(string)
		return ok && strings.Contains(x, w)
	case []any:
		w, ok := want.([]any)
		if !ok {
			return refMember(want, x)
		}
		for _, e := range w {
			if !refMember(e, x) {
				return false
			}
		}
		return true
	}
	return false
}

func refMatches(v any, pattern string) bool {
	s, ok := v.(string)
	if !ok {
		return false
	}
	re, err := aql.CompileRegex(pattern)
	if err != nil {
		return false
	}
	re.MatchTimeout = time.Second
	found, err := aql.MatchString(re, s)
	return err == nil && found
}

func refTemporal(op string, v, want any) bool {
	t, ok := refTime(v)
	if !ok {
		return false
	}
	switch op {
	case "before", "after":
		w, ok := refTime(want)
		return ok && (op == "before" && t.Before(w) || op == "after" && t.After(w))
	}
	from, to := refInterval(want)
	in := !t.Before(from) && !t.After(to)
	return in == (op == "within")
}

func refInterval(want any) (time.Time, time.Time) {
	var a, b any
	if arr, ok := want.([]any); ok {
		a, b = arr[0], arr[1]
	} else {
		m := want.(map[string]any)
		a, b = m["from"], m["to"]
	}
	from, _ := refTime(a)
	to, _ := refTime(b)
	return from, to
}
