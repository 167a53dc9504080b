package query

import (
	"fmt"
	"strings"
	"time"
)

// String renders the plan as a tree whose operator names read like the
// packages, with estimated and actual cardinalities, exactness and time:
//
//	eval.Check(candidates 2 of 4, lookups)
//	└─ bitmap.And  est 2  act 2  exact  12µs
//	   ├─ index.Eq(/category = "running_shoes")  est 3  act 3  exact  3µs
//	   └─ index.Range(/price/amount ≤ "100.00")  est 2  act 2  exact  5µs
func (p *Plan) String() string {
	var b strings.Builder
	fetch := "lookups"
	if p.Sequential {
		fetch = "sequential"
	}
	fmt.Fprintf(&b, "eval.Check(candidates %d of %d, %s)\n", p.Candidates.GetCardinality(), p.Universe.GetCardinality(), fetch)
	if p.Rank != nil {
		fmt.Fprintf(&b, "%s\n", p.Rank)
	}
	p.Root.write(&b, "", true)
	return b.String()
}

func (n *PlanNode) write(b *strings.Builder, indent string, last bool) {
	branch, next := "├─ ", "│  "
	if last {
		branch, next = "└─ ", "   "
	}
	fmt.Fprintf(b, "%s%s%s  est %d  act %d  %s  %s\n", indent, branch, n.name(), n.Estimate, n.Actual, n.exactness(), roundDur(n.Time))
	if n.Note != "" {
		fmt.Fprintf(b, "%s%s   ↳ %s\n", indent, next, n.Note)
	}
	for i, c := range n.Children {
		c.write(b, indent+next, i == len(n.Children)-1)
	}
}

func roundDur(d time.Duration) time.Duration {
	if d > time.Millisecond {
		return d.Round(10 * time.Microsecond)
	}
	return d.Round(time.Microsecond)
}

// Document returns the plan as JSON-ready values (for --json).
func (p *Plan) Document() map[string]any {
	doc := map[string]any{"candidates": p.Candidates.GetCardinality(), "universe": p.Universe.GetCardinality(),
		"sequential": p.Sequential, "root": p.Root.document()}
	if r := p.Rank; r != nil {
		doc["rank"] = map[string]any{"op": r.Op, "accepted": r.Accepted, "walk_estimate": r.WalkEstimate,
			"walked": r.Walked, "fallback": r.Fallback}
	}
	return doc
}

func (n *PlanNode) document() map[string]any {
	kids := make([]any, len(n.Children))
	for i, c := range n.Children {
		kids[i] = c.document()
	}
	d := map[string]any{"op": n.Op, "detail": n.Detail, "exact": n.Exact, "estimate": n.Estimate,
		"actual": n.Actual, "time_ns": n.Time.Nanoseconds(), "children": kids}
	if n.Note != "" {
		d["note"] = n.Note
	}
	return d
}

// Shape renders the plan without times, for tests that must not depend on
// timing.
func (p *Plan) Shape() string {
	var b strings.Builder
	fmt.Fprintf(&b, "candidates %d of %d\n", p.Candidates.GetCardinality(), p.Universe.GetCardinality())
	p.Root.shape(&b, "")
	return b.String()
}

func (n *PlanNode) shape(b *strings.Builder, indent string) {
	fmt.Fprintf(b, "%s%s %s act=%d\n", indent, n.name(), n.exactness(), n.Actual)
	if n.Note != "" {
		fmt.Fprintf(b, "%s  ↳ %s\n", indent, n.Note)
	}
	for _, c := range n.Children {
		c.shape(b, indent+"  ")
	}
}

// name is the node's operator with its arguments: index.Eq(/a = 1).
func (n *PlanNode) name() string {
	if n.Detail == "" {
		return n.Op
	}
	return n.Op + "(" + n.Detail + ")"
}

func (n *PlanNode) exactness() string {
	if n.Exact {
		return "exact"
	}
	return "lossy"
}
