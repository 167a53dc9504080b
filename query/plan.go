package query

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/index"
	"github.com/aqlstore/aqlstore/query/aql"
	"github.com/aqlstore/aqlstore/store"
)

// Plan is the candidate set an intent's constraint tree yields from the
// index, as a tree mirroring the constraints. Each node has a bitmap and
// an exact flag: exact means the bitmap is precisely the documents that
// satisfy the node; otherwise it is a superset (enumeration is always
// conservative, RFC 0020 A.3 R2). Candidates are checked exactly either way.
type Plan struct {
	Root       *PlanNode
	Universe   *roaring.Bitmap // visible documents of the intent's kinds; read-only (may be shared)
	Candidates *roaring.Bitmap // Root ∩ Universe
	Sequential bool            // fetch by walking the store rather than by lookups
	Rank       *RankChoice     // how a page was ranked, when Resolve ranked before judging (lazy.go); else nil
}

// PlanNode is one operator of a plan. Op names read like the packages:
// index.Eq, index.Range, bitmap.And, bitmap.AndNot.
type PlanNode struct {
	Op       string
	Detail   string // the node's arguments, for explain
	Exact    bool
	Estimate uint64 // the bound the children's sizes give, before combining
	Actual   uint64
	Time     time.Duration
	Children []*PlanNode
	Pointer  string // the constraint's JSON Pointer inside the intent
	Note     string // why a leaf found nothing, when it knows (Annotate)
	bm       *roaring.Bitmap
	leaf     *aql.Leaf // leaves only
}

// sequentialFraction is the share of the universe above which candidates
// are fetched by walking the document records in order instead of looking
// each one up. Measured on 100,000 manifests (BenchmarkResolve, eq
// planner-norejected, one goroutine, cpu-ms/op, cold then warm run):
//
//	candidates  point reads  sequential walk
//	0.1%        7.5 / 2.1    767 / 297
//	1%          61 / 20      621 / 353
//	10%         466 / 321    765 / 630
//
// The walk costs about 3 µs per document of the universe before it judges
// anything, and judging a candidate costs about as much on either path,
// so point reads win at every share measured, by 2× at 10%. The share
// stays above the largest measured one: a walk is chosen only where the
// candidates are most of the universe.
const sequentialFraction = 0.25

// planner builds a Plan against one index.
type planner struct {
	ctx context.Context // the request's: expanding a path stops at its deadline
	ix  *index.Index
	all *roaring.Bitmap // the universe, for not
	// matchesBy ends the time every matches leaf of the plan together
	// may spend on the value dictionary (matchesBudget); zero until the
	// first such leaf.
	matchesBy time.Time
}

// PlanIntent is PlanIntentContext without a deadline.
func PlanIntent(s *store.Store, ix *index.Index, in *aql.Intent, principal string, kinds []canon.Kind) (*Plan, error) {
	return PlanIntentContext(context.Background(), s, ix, in, principal, kinds)
}

// PlanIntentContext builds the plan of in for a reader acting as principal
// over kinds, against s and its index ix (s knows the documents granted to
// the reader). It returns ctx's error when ctx ends first.
func PlanIntentContext(ctx context.Context, s *store.Store, ix *index.Index, in *aql.Intent, principal string, kinds []canon.Kind) (*Plan, error) {
	u, err := universe(s, ix, principal, kinds)
	if err != nil {
		return nil, err
	}
	p := &planner{ctx: ctx, ix: ix, all: u}
	root, err := p.node(in.Constraints)
	if err != nil {
		return nil, err
	}
	cands := roaring.And(root.bm, u)
	seq := float64(cands.GetCardinality()) > sequentialFraction*float64(u.GetCardinality())
	return &Plan{Root: root, Universe: u, Candidates: cands, Sequential: seq}, nil
}

// universe is every document of the kinds that principal may see: public,
// its own, and those granted to it. The public part is shared with the
// index's cache (index.Public), and so is the universe of an anonymous
// reader: nobody modifies it. The granted bitmap may still hold deleted
// documents (store.Granted); the kind postings hold live ones only.
func universe(s *store.Store, ix *index.Index, principal string, kinds []canon.Kind) (*roaring.Bitmap, error) {
	public, err := ix.Public(kinds)
	if err != nil || principal == store.Public {
		return public, err
	}
	own, err := ix.Owners([]string{principal})
	if err != nil {
		return nil, err
	}
	granted, err := s.Granted(principal)
	if err != nil {
		return nil, err
	}
	if !granted.IsEmpty() { // a reader without grants costs what it did before grants
		own = roaring.Or(own, granted)
	}
	if own.IsEmpty() {
		return public, nil
	}
	byKind, err := ix.Kinds(kinds)
	if err != nil {
		return nil, err
	}
	// (public ∪ own ∪ granted) ∩ kinds = (public ∩ kinds) ∪ ((own ∪ granted) ∩ kinds)
	return roaring.Or(public, roaring.And(own, byKind)), nil
}

func (p *planner) node(n *aql.Node) (*PlanNode, error) {
	start := time.Now()
	var pn *PlanNode
	var err error
	switch n.Kind {
	case aql.NodeLeaf:
		pn, err = p.leaf(n.Leaf)
	case aql.NodeAllOf, aql.NodeAnyOf:
		pn, err = p.combine(n)
	case aql.NodeNot:
		pn, err = p.not(n)
	default:
		return nil, fmt.Errorf("query: plan: malformed constraint node at %s", n.Pointer)
	}
	if err != nil {
		return nil, err
	}
	// Counted within the reader's universe: the bitmap may hold other
	// tenants' documents, and explain must not count them. A leaf's
	// estimate is that count already (leaf): a range over most of a
	// large store is a bitmap as large, not to be counted twice.
	if n.Kind == aql.NodeLeaf {
		pn.Actual = pn.Estimate
	} else {
		pn.Actual = pn.bm.AndCardinality(p.all)
	}
	pn.Time = time.Since(start)
	pn.Pointer, pn.leaf = n.Pointer, n.Leaf
	return pn, nil
}

func (p *planner) combine(n *aql.Node) (*PlanNode, error) {
	and := n.Kind == aql.NodeAllOf
	pn := &PlanNode{Op: "bitmap.Or", Exact: true}
	if and {
		pn.Op, pn.Estimate = "bitmap.And", math.MaxUint64
	}
	bms := make([]*roaring.Bitmap, 0, len(n.Children))
	for _, c := range n.Children {
		cn, err := p.node(c)
		if err != nil {
			return nil, err
		}
		pn.Children, pn.Exact = append(pn.Children, cn), pn.Exact && cn.Exact
		bms = append(bms, cn.bm)
		if and {
			pn.Estimate = min(pn.Estimate, cn.Actual)
		} else {
			pn.Estimate += cn.Actual
		}
	}
	if and {
		pn.bm = roaring.FastAnd(bms...)
	} else {
		pn.bm = roaring.FastOr(bms...)
	}
	return pn, nil
}

// not is universe − X when X is exact; a lossy X says nothing about what
// fails it, so every document stays a candidate.
func (p *planner) not(n *aql.Node) (*PlanNode, error) {
	cn, err := p.node(n.Children[0])
	if err != nil {
		return nil, err
	}
	pn := &PlanNode{Op: "bitmap.AndNot", Detail: "universe", Exact: cn.Exact, Children: []*PlanNode{cn}}
	pn.Estimate = p.all.GetCardinality() - min(p.all.GetCardinality(), cn.Actual)
	if cn.Exact {
		pn.bm = roaring.AndNot(p.all, cn.bm)
	} else {
		pn.Op, pn.Detail, pn.bm = "index.Universe", "not over a lossy child", p.all.Clone()
	}
	return pn, nil
}

// leafDetail renders a leaf for explain: /path op value.
func leafDetail(l *aql.Leaf) string {
	v := string(canon.AppendValue(nil, l.Value))
	if len(v) > 60 {
		v = v[:57] + "..."
	}
	return fmt.Sprintf("%s %s %s", l.Path.String(), opSymbol(l.Operator), v)
}

func opSymbol(o aql.Operator) string {
	switch o {
	case aql.OpEq:
		return "="
	case aql.OpNe:
		return "≠"
	case aql.OpLt:
		return "<"
	case aql.OpLte:
		return "≤"
	case aql.OpGt:
		return ">"
	case aql.OpGte:
		return "≥"
	}
	return strings.ReplaceAll(o.String(), "_", " ")
}
