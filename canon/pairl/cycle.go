package pairl

import (
	"fmt"
	"sort"
	"strings"
)

// ValidateThread validates a set of messages together: each one as
// Validate does (V4 resolving through msgs first, then opts.Thread), plus
// the rules that need the thread as a whole:
//
//   - V7: every @parent/@deps edge that lies on a cycle of the message DAG
//     (strongly connected components over msgs and the messages reachable
//     from them through opts.Thread, at most opts.MaxWalk of them);
//   - V8: one result per @budget scope — the nearest @budget on each
//     message's @parent chain governs it (see budget.go);
//   - two messages of msgs with the same @mid (an error: @mid is unique).
//
// Every Problem carries the @mid of the message it is about. Problems are
// grouped by message, in msgs order, then by line.
func ValidateThread(msgs []*Message, opts Options) []Problem {
	th := chain{first: NewMessageSet(msgs...), then: opts.Thread}
	inner := opts
	inner.Thread = th
	byMsg := map[*Message][]Problem{}
	for _, m := range msgs {
		byMsg[m] = append(byMsg[m], validate(m, inner, false)...)
	}
	add := func(m *Message, f finding) { byMsg[m] = append(byMsg[m], f.problem(opts.Mode)) }
	duplicateMIDs(msgs, add)
	cycles(msgs, th, opts.maxWalk(), add)
	budgets(msgs, th, opts.maxWalk(), add)
	return collect(msgs, byMsg)
}

// collect flattens the per-message problems in msgs order, tagging each
// with its message's @mid. Scope problems about a message outside msgs
// (a budget held in the store) come last.
func collect(msgs []*Message, byMsg map[*Message][]Problem) []Problem {
	var out []Problem
	done := map[*Message]bool{}
	flush := func(m *Message) {
		if done[m] {
			return
		}
		done[m] = true
		ps := byMsg[m]
		sortProblems(ps)
		for _, p := range ps {
			p.MID = m.MID()
			out = append(out, p)
		}
	}
	for _, m := range msgs {
		flush(m)
	}
	for _, m := range sortedOutside(byMsg, done) {
		flush(m)
	}
	return out
}

func sortedOutside(byMsg map[*Message][]Problem, done map[*Message]bool) []*Message {
	var rest []*Message
	for m := range byMsg {
		if !done[m] {
			rest = append(rest, m)
		}
	}
	sort.Slice(rest, func(i, j int) bool { return rest[i].MID() < rest[j].MID() })
	return rest
}

// duplicateMIDs reports a @mid used by two messages of the set.
func duplicateMIDs(msgs []*Message, add func(*Message, finding)) {
	first := map[string]bool{}
	for _, m := range msgs {
		mid := m.MID()
		if mid == "" {
			continue
		}
		if first[mid] {
			h, _ := m.Header("mid")
			add(m, finding{cls: hard, line: h.Line, code: CodeThread, desc: "@mid " + mid + " is used by another message of the thread",
				fix: "give every message a unique @mid (ULID, §2.4)"})
		}
		first[mid] = true
	}
}

// budgets runs V8 once per budget scope.
func budgets(msgs []*Message, th Thread, limit int, add func(*Message, finding)) {
	var order []*Message
	scopes := map[*Message][]*Message{}
	memo := map[*Message]*Message{}
	for _, m := range msgs {
		b := governing(m, th, limit, memo)
		if b == nil {
			continue
		}
		if scopes[b] == nil {
			order = append(order, b)
		}
		scopes[b] = append(scopes[b], m)
	}
	for _, b := range order {
		for _, s := range budgetScope(b, scopes[b]) {
			add(s.msg, s.f)
		}
	}
}

// governing returns the nearest message with a well-formed @budget on m's
// @parent chain, m included, or nil. memo holds the answers found so far,
// so a thread costs linear time, not one walk to the root per message.
func governing(m *Message, th Thread, limit int, memo map[*Message]*Message) *Message {
	var path []*Message
	seen := map[*Message]bool{}
	var found *Message
	for cur := m; cur != nil && !seen[cur] && len(seen) < limit; {
		if b, ok := memo[cur]; ok {
			found = b
			break
		}
		path = append(path, cur)
		seen[cur] = true
		if _, ok := cur.Budget(); ok {
			found = cur
			break
		}
		cur = lookupParent(cur, th)
	}
	for _, p := range path {
		memo[p] = found
	}
	return found
}

// lookupParent resolves m's @parent, nil when it has none or it is unknown.
func lookupParent(m *Message, th Thread) *Message {
	parent := m.Parent()
	if parent == "" {
		return nil
	}
	p, _ := th.Lookup(parent)
	return p
}

// cycles reports every edge of msgs that lies on a cycle (V7).
func cycles(msgs []*Message, th Thread, limit int, add func(*Message, finding)) {
	t := newTarjan(th, limit)
	for _, m := range msgs {
		if mid := m.MID(); mid != "" {
			t.visit(mid)
		}
	}
	for _, m := range msgs {
		self := m.MID()
		for _, e := range edges(m) {
			if desc := t.cycleVia(self, e); desc != "" {
				add(m, finding{cls: soft, line: e.line, code: CodeV7, desc: desc,
					fix: "a message may only reference earlier messages (§0.3)"})
			}
		}
	}
}

// cycleVia describes the cycle an edge from self closes, or returns "".
func (t *tarjan) cycleVia(self string, e edge) string {
	if self == "" {
		return ""
	}
	if e.to == self {
		return fmt.Sprintf("@%s references the message itself", e.name)
	}
	c, ok := t.comp[self]
	d, in := t.comp[e.to]
	if !ok || !in || c != d || t.size[c] < 2 {
		return ""
	}
	return fmt.Sprintf("@%s %s closes a cycle among %s", e.name, e.to, t.members(c))
}

// members lists a component's messages, sorted, at most 5 of them; the
// text is cached, since every edge of a cycle asks for it.
func (t *tarjan) members(c int) string {
	if s, ok := t.names[c]; ok {
		return s
	}
	var ms []string
	for mid, k := range t.comp {
		if k == c {
			ms = append(ms, mid)
		}
	}
	sort.Strings(ms)
	if len(ms) > 5 {
		ms = append(ms[:5], fmt.Sprintf("… (%d in all)", len(ms)))
	}
	t.names[c] = strings.Join(ms, ", ")
	return t.names[c]
}
