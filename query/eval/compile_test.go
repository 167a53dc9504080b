package eval

import (
	"fmt"
	"strings"
	"time"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/query/aql"
	"github.com/cockroachdb/apd/v3"
)

// This file is a small, test-only stand-in for the intent compiler of
// query/aql: it turns a decoded constraint ({"path","operator","value"},
// {"all_of": [...]}, {"any_of": [...]}, {"not": node or [...]}, or a
// top-level array) into the compiled Node the evaluator reads.

// defaultMatchTimeout is the tests' regex time bound.
const defaultMatchTimeout = time.Second

type testCompiler struct {
	timeout time.Duration
}

func compileJSON(src string, timeout time.Duration) (*aql.Node, error) {
	// Numbers in RFC 8785 form, as aql.Parse leaves an intent's.
	_, v, err := canon.Canonical([]byte(src), nil)
	if err != nil {
		return nil, err
	}
	return testCompiler{timeout: timeout}.node(v, "/constraints")
}

func (c testCompiler) node(v any, ptr string) (*aql.Node, error) {
	if arr, ok := v.([]any); ok {
		return c.group(aql.NodeAllOf, arr, ptr)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: a constraint is an object", ptr)
	}
	if sub, ok := m["all_of"]; ok {
		return c.groupValue(aql.NodeAllOf, sub, ptr+"/all_of")
	}
	if sub, ok := m["any_of"]; ok {
		return c.groupValue(aql.NodeAnyOf, sub, ptr+"/any_of")
	}
	if sub, ok := m["not"]; ok {
		return c.not(sub, ptr+"/not")
	}
	leaf, err := c.leaf(m)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ptr, err)
	}
	return &aql.Node{Kind: aql.NodeLeaf, Leaf: leaf, Pointer: ptr}, nil
}

func (c testCompiler) groupValue(kind aql.NodeKind, v any, ptr string) (*aql.Node, error) {
	arr, ok := v.([]any)
	if !ok || len(arr) == 0 {
		return nil, fmt.Errorf("%s: a non-empty array", ptr)
	}
	return c.group(kind, arr, ptr)
}

func (c testCompiler) group(kind aql.NodeKind, arr []any, ptr string) (*aql.Node, error) {
	n := &aql.Node{Kind: kind, Pointer: ptr}
	for i, sub := range arr {
		child, err := c.node(sub, fmt.Sprintf("%s/%d", ptr, i))
		if err != nil {
			return nil, err
		}
		n.Children = append(n.Children, child)
	}
	return n, nil
}

// not normalizes "none of" (an array) to Not{AnyOf}.
func (c testCompiler) not(v any, ptr string) (*aql.Node, error) {
	var child *aql.Node
	var err error
	if arr, ok := v.([]any); ok {
		child, err = c.groupValue(aql.NodeAnyOf, arr, ptr)
	} else {
		child, err = c.node(v, ptr)
	}
	if err != nil {
		return nil, err
	}
	return &aql.Node{Kind: aql.NodeNot, Children: []*aql.Node{child}, Pointer: ptr}, nil
}

func (c testCompiler) leaf(m map[string]any) (*aql.Leaf, error) {
	path, _ := m["path"].(string)
	p, err := canon.ParsePointer(path)
	if err != nil {
		return nil, err
	}
	name, _ := m["operator"].(string)
	op, ok := aql.ParseOperator(name)
	if !ok {
		return nil, fmt.Errorf("unknown operator %q", name)
	}
	l := &aql.Leaf{Path: p, Operator: op, Value: m["value"]}
	return l, c.operand(l)
}

// operand compiles the value the way the intent compiler does.
func (c testCompiler) operand(l *aql.Leaf) error {
	switch l.Operator {
	case aql.OpLt, aql.OpLte, aql.OpGt, aql.OpGte:
		l.Decimal = testDecimal(l.Value)
		l.Instant, l.IsTime = testInstant(l.Value)
	case aql.OpBefore, aql.OpAfter:
		l.Instant, l.IsTime = testInstant(l.Value)
	case aql.OpWithin, aql.OpOutside:
		return testInterval(l)
	case aql.OpIn, aql.OpNotIn:
		return testSet(l)
	case aql.OpMatches:
		return c.regex(l)
	case aql.OpExists:
		b, ok := l.Value.(bool)
		l.Exists = b
		return wrongType(ok, "exists", "a boolean")
	}
	return nil
}

func wrongType(ok bool, op, want string) error {
	if ok {
		return nil
	}
	return fmt.Errorf("%s needs %s", op, want)
}

func testDecimal(v any) *apd.Decimal {
	var text string
	switch x := v.(type) {
	case canon.Number:
		text = string(x)
	case string:
		if !canon.IsDecimal(x) {
			return nil
		}
		text = x
	default:
		return nil
	}
	d, _, err := apd.NewFromString(text)
	if err != nil {
		return nil
	}
	return d
}

func testInstant(v any) (canon.Instant, bool) {
	s, ok := v.(string)
	if !ok {
		return canon.Instant{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	// time.Parse keeps nine fraction digits; the rest, trailing zeros
	// dropped, order instants that agree to the nanosecond.
	sub := ""
	if _, frac, ok := strings.Cut(s, "."); ok {
		frac = frac[:strings.IndexFunc(frac+"Z", func(r rune) bool { return r < '0' || r > '9' })]
		if len(frac) > 9 {
			sub = strings.TrimRight(frac[9:], "0")
		}
	}
	return canon.Instant{T: t.UTC(), Sub: sub}, err == nil
}

func testInterval(l *aql.Leaf) error {
	var from, to any
	switch x := l.Value.(type) {
	case []any:
		if len(x) == 2 {
			from, to = x[0], x[1]
		}
	case map[string]any:
		from, to = x["from"], x["to"]
	}
	start, ok1 := testInstant(from)
	end, ok2 := testInstant(to)
	l.Interval = aql.Interval{Start: start, End: end}
	return wrongType(ok1 && ok2, l.Operator.String(), "[start, end] or {from, to} timestamps")
}

func testSet(l *aql.Leaf) error {
	arr, ok := l.Value.([]any)
	l.Set = arr
	return wrongType(ok, l.Operator.String(), "an array")
}

func (c testCompiler) regex(l *aql.Leaf) error {
	s, ok := l.Value.(string)
	if !ok {
		return wrongType(false, "matches", "a string")
	}
	re, err := aql.CompileRegex(s)
	if err != nil {
		return err
	}
	re.MatchTimeout = c.timeout
	l.Regex = re
	return nil
}
