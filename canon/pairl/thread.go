package pairl

import (
	"fmt"
	"strings"
)

// Thread resolves message references for the cross-message rules: V4
// (strict_refs resolution), V7 (cycles) and V8 (budget over a thread). The
// store implements it over its messages; MessageSet implements it over a
// slice.
type Thread interface {
	// Lookup returns the message whose @mid is mid (the full
	// `ref:msg:<id>` text, as written in @parent and @deps).
	Lookup(mid string) (*Message, bool)
}

// MessageSet is a Thread over messages held in memory, keyed by @mid. It is
// safe for concurrent reads.
type MessageSet map[string]*Message

// NewMessageSet indexes msgs by @mid; messages without one are skipped,
// and of two with the same @mid the first wins.
func NewMessageSet(msgs ...*Message) MessageSet {
	s := make(MessageSet, len(msgs))
	for _, m := range msgs {
		if mid := m.MID(); mid != "" && s[mid] == nil {
			s[mid] = m
		}
	}
	return s
}

// Lookup implements Thread.
func (s MessageSet) Lookup(mid string) (*Message, bool) {
	m, ok := s[mid]
	return m, ok
}

// chain tries one Thread, then another: the messages handed to
// ValidateThread first, then the caller's store.
type chain struct{ first, then Thread }

// Lookup implements Thread.
func (c chain) Lookup(mid string) (*Message, bool) {
	if m, ok := c.first.Lookup(mid); ok {
		return m, true
	}
	if c.then == nil {
		return nil, false
	}
	return c.then.Lookup(mid)
}

// edge is one DAG edge a header declares: @parent or an @deps entry.
type edge struct {
	to   string
	name string // "parent" or "deps"
	line int
}

// edges returns the DAG edges of m (§0.3); @root is a thread label, not an
// edge.
func edges(m *Message) []edge {
	if m == nil {
		return nil
	}
	var out []edge
	for _, h := range m.Headers {
		switch h.Name {
		case "parent":
			out = append(out, edge{to: h.Value, name: h.Name, line: h.Line})
		case "deps":
			for _, d := range splitDeps(h.Value) {
				out = append(out, edge{to: d, name: h.Name, line: h.Line})
			}
		}
	}
	return out
}

// v4 applies Thread Integrity (§10 V4): with strict_refs (the option or
// `#rule strict_refs=true`), @parent and every @deps entry must resolve.
// §10 names only @parent; @deps are DAG edges of the same kind, so they
// are held to the same rule. Without a Thread nothing can be resolved, and
// the rule is skipped rather than failing every message.
func (v *validator) v4() {
	if v.opts.Thread == nil || (!v.opts.StrictRefs && v.m.rule("strict_refs") != "true") {
		return
	}
	for _, e := range edges(v.m) {
		if _, ok := v.opts.Thread.Lookup(e.to); !ok {
			v.found.add(hard, e.line, CodeV4, fmt.Sprintf("@%s %s does not resolve", e.name, e.to),
				"store the referenced message first, or drop strict_refs")
		}
	}
}

// v7 applies Circular Dependency Detection (§10 V7) to the cycles through
// this message: an edge to itself, or, with a Thread, an edge from which
// the message can be reached again.
func (v *validator) v7() {
	self := v.m.MID()
	if self == "" {
		return
	}
	for _, e := range edges(v.m) {
		if e.to == self {
			v.found.add(soft, e.line, CodeV7, fmt.Sprintf("@%s references the message itself", e.name), "remove the self-reference")
			continue
		}
		if v.opts.Thread == nil {
			continue
		}
		if path, ok := v.pathTo(e.to, self); ok {
			v.found.add(soft, e.line, CodeV7, fmt.Sprintf("@%s closes a cycle: %s", e.name, strings.Join(append([]string{self}, path...), " → ")),
				"a message may only reference earlier messages (§0.3)")
		}
	}
}

// pathTo searches breadth first from start along @parent/@deps for goal,
// visiting at most MaxWalk messages, and returns the path found.
func (v *validator) pathTo(start, goal string) ([]string, bool) {
	prev := map[string]string{start: ""}
	queue := []string{start}
	for len(queue) > 0 && len(prev) <= v.opts.maxWalk() {
		cur := queue[0]
		queue = queue[1:]
		m, ok := v.opts.Thread.Lookup(cur)
		if !ok {
			continue
		}
		for _, e := range edges(m) {
			if e.to == goal {
				return unwind(prev, cur, goal), true
			}
			if _, seen := prev[e.to]; !seen {
				prev[e.to] = cur
				queue = append(queue, e.to)
			}
		}
	}
	return nil, false
}

// unwind rebuilds the path start → … → last → goal from the BFS parents.
func unwind(prev map[string]string, last, goal string) []string {
	path := []string{goal}
	for cur := last; cur != ""; cur = prev[cur] {
		path = append([]string{cur}, path...)
	}
	return path
}
