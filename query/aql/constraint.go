package aql

import (
	"strings"

	"github.com/aqlstore/aqlstore/canon"
)

var leafShape = &shape{what: "a constraint", fields: []field{
	{"path", true, `the JSON Pointer of the field tested, e.g. "/price/amount"`},
	{"operator", true, "one of " + operatorList},
	{"value", true, "the operand, e.g. \"EUR\" (a JSON value the operator accepts)"},
}}

var operatorList = strings.Join(operatorNames[1:], ", ")

// combinators name the boolean nodes, in the order a node is classified
// when it has several (it is then invalid anyway).
var combinators = []struct {
	key  string
	kind NodeKind
}{{"all_of", NodeAllOf}, {"any_of", NodeAnyOf}, {"not", NodeNot}}

// constraints compiles the intent's constraint tree. A top-level array
// means all_of (README), so the written array is the AllOf node.
func (c *checker) constraints(v any, ptr string, in *Intent) {
	if a, ok := v.([]any); ok {
		if c.admit(ptr, 1) {
			in.Constraints = c.list(NodeAllOf, "constraints", a, ptr, ptr, 1)
		}
		return
	}
	in.Constraints = c.node(v, ptr, 1)
}

// node compiles one constraint node; the root has depth 1.
func (c *checker) node(v any, ptr string, depth int) *Node {
	if !c.admit(ptr, depth) {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		c.schemaf(ptr, CodeBadType, `a constraint must be an object, {"path", "operator", "value"} or {"all_of"|"any_of"|"not": ...}, not %s`, describe(v))
		return nil
	}
	for _, cb := range combinators {
		if _, ok := m[cb.key]; ok {
			return c.combinator(m, ptr, cb.key, cb.kind, depth)
		}
	}
	return c.leaf(m, ptr)
}

// admit counts a node against MaxNodes and MaxTreeDepth, so that a
// hostile tree costs bounded work before anything is evaluated.
func (c *checker) admit(ptr string, depth int) bool {
	if depth > c.o.MaxTreeDepth {
		c.limitOnce("depth", ptr, "constraint tree depth %d is over the limit of %d (Options.MaxTreeDepth); flatten it: all_of and any_of take many children", depth, c.o.MaxTreeDepth)
		return false
	}
	if c.nodes >= c.o.MaxNodes {
		c.limitOnce("nodes", ptr, "constraint node %d is over the limit of %d nodes (Options.MaxNodes); split the intent or use in for sets of values", c.nodes+1, c.o.MaxNodes)
		return false
	}
	c.nodes++
	return true
}

// combinator compiles {key: ...}; any other member is extra, since a node
// is one thing (combine by nesting).
func (c *checker) combinator(m map[string]any, ptr, key string, kind NodeKind, depth int) *Node {
	for _, k := range canon.SortedKeys(m) {
		if k != key {
			c.schemaf(child(ptr, k), CodeExtraField, "a node with %q has no other member; remove %s or nest it in another node", key, quoteShort(k))
		}
	}
	v, inner := m[key], child(ptr, key)
	if kind == NodeNot {
		return c.not(v, ptr, inner, depth)
	}
	a, ok := v.([]any)
	if !ok {
		c.schemaf(inner, CodeBadType, "%s takes an array of constraints, not %s", key, describe(v))
		return nil
	}
	return c.list(kind, key, a, ptr, inner, depth)
}

// not compiles `not`: one node, or an array meaning "none of", which
// becomes Not{AnyOf{...}} with the array as the AnyOf node.
func (c *checker) not(v any, ptr, inner string, depth int) *Node {
	n := &Node{Kind: NodeNot, Pointer: ptr, Children: []*Node{nil}}
	a, ok := v.([]any)
	switch {
	case !ok:
		n.Children[0] = c.node(v, inner, depth+1)
	case c.admit(inner, depth+1):
		n.Children[0] = c.list(NodeAnyOf, "not", a, inner, inner, depth+1)
	}
	return n
}

// list compiles a non-empty array of constraints into one node at nodePtr
// whose children sit under arrPtr.
func (c *checker) list(kind NodeKind, key string, a []any, nodePtr, arrPtr string, depth int) *Node {
	if len(a) == 0 {
		c.schemaf(arrPtr, CodeBadValue, "%s needs at least one constraint; add one or remove the node", key)
		return nil
	}
	n := &Node{Kind: kind, Pointer: nodePtr, Children: make([]*Node, len(a))}
	for i, e := range a {
		n.Children[i] = c.node(e, elem(arrPtr, i), depth+1)
	}
	return n
}

// leaf compiles {path, operator, value}.
func (c *checker) leaf(m map[string]any, ptr string) *Node {
	if !hasAny(m, leafShape) {
		c.schemaf(ptr, CodeMissingField, `a constraint needs path, operator and value, or one of all_of, any_of, not: write e.g. {"path": "/category", "operator": "eq", "value": "shoes"}`)
		c.unknown(m, ptr, leafShape)
		return nil
	}
	c.members(m, ptr, leafShape)
	l := &Leaf{Value: m["value"]}
	if v, ok := m["path"]; ok {
		l.Path = c.path(v, child(ptr, "path"))
	}
	op, okOp := m["operator"]
	if okOp {
		l.Operator, okOp = c.operator(op, child(ptr, "operator"))
	}
	if v, ok := m["value"]; ok && okOp {
		c.extend(func() { operandCompilers[l.Operator](c, l, v, child(ptr, "value")) })
	}
	return &Node{Kind: NodeLeaf, Pointer: ptr, Leaf: l}
}

func hasAny(m map[string]any, s *shape) bool {
	for _, f := range s.fields {
		if _, ok := m[f.name]; ok {
			return true
		}
	}
	return false
}
