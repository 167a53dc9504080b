package query

import (
	"errors"
	"sync/atomic"
	"time"

	"github.com/aqlstore/aqlstore/index"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/query/aql"
)

// leaf maps one constraint onto index lookups. The path expands over the
// path dictionary once; a concrete array index makes every lookup lossy.
func (p *planner) leaf(l *aql.Leaf) (*PlanNode, error) {
	ids, pathExact, err := p.ix.PathsContext(p.ctx, l.Path)
	if err != nil {
		return nil, err
	}
	// The dictionary holds every tenant's paths, so its word on exactness
	// would tell a reader whether a hidden document has an array there:
	// a concrete index plans lossily whatever the dictionary holds.
	pathExact = pathExact && !concreteIndex(l.Path)
	pn := &PlanNode{Detail: leafDetail(l)}
	bm, op, exact, err := p.lookup(l, ids, pathExact)
	if err != nil {
		return nil, err
	}
	pn.Op, pn.bm, pn.Exact = op, bm, exact && pathExact
	pn.Estimate = bm.AndCardinality(p.all) // the reader's documents only, as Actual
	return pn, nil
}

// concreteIndex reports whether a segment of ptr may name an array
// position, which the index folds away.
func concreteIndex(ptr *canon.Pointer) bool {
	for _, seg := range ptr.Segments() {
		if seg.Kind == canon.SegName && seg.Index >= 0 {
			return true
		}
	}
	return false
}

func (p *planner) lookup(l *aql.Leaf, ids []uint32, pathExact bool) (*roaring.Bitmap, string, bool, error) {
	switch l.Operator {
	case aql.OpExists:
		return p.exists(l, ids, pathExact)
	case aql.OpEq:
		bm, exact, err := p.ix.Eq(ids, l.Value)
		return bm, "index.Eq", exact, err
	case aql.OpIn:
		return p.in(l, ids)
	case aql.OpLt, aql.OpLte, aql.OpGt, aql.OpGte, aql.OpBefore, aql.OpAfter, aql.OpWithin, aql.OpOutside:
		return p.ranged(l, ids)
	case aql.OpContains:
		return p.contains(l, ids)
	case aql.OpMatches:
		return p.matches(l, ids)
	}
	// ne, not_in: some value at the path is all an index can say.
	bm, err := p.ix.Exists(ids)
	return bm, "index.Exists", false, err
}

// exists: true is the existence postings; false their complement, which
// is only sound when the path matched exactly (a folded array index makes
// the postings a superset, and the complement of a superset misses
// documents).
func (p *planner) exists(l *aql.Leaf, ids []uint32, pathExact bool) (*roaring.Bitmap, string, bool, error) {
	bm, err := p.ix.Exists(ids)
	if err != nil || l.Exists {
		return bm, "index.Exists", true, err
	}
	if !pathExact {
		return p.all.Clone(), "index.Universe", false, nil
	}
	return roaring.AndNot(p.all, bm), "index.Missing", true, nil
}

func (p *planner) in(l *aql.Leaf, ids []uint32) (*roaring.Bitmap, string, bool, error) {
	out, exact := roaring.New(), true
	for _, v := range l.Set {
		bm, ex, err := p.ix.Eq(ids, v)
		if err != nil {
			return nil, "", false, err
		}
		out.Or(bm)
		exact = exact && ex
	}
	return out, "index.In", exact, nil
}

// ranged looks up ordered postings. Numbers, decimal strings and instants
// are all indexed exactly, so their ranges are exact. A range over most
// of a path's values is read as the documents with a value of its type
// there less the few outside it, where that is exact among the reader's
// documents (index.Range); explain names both ways index.Range.
func (p *planner) ranged(l *aql.Leaf, ids []uint32) (*roaring.Bitmap, string, bool, error) {
	if l.Operator == aql.OpWithin || l.Operator == aql.OpOutside {
		return p.interval(l, ids)
	}
	if l.IsTime {
		return p.instantRange(l, ids)
	}
	if l.Decimal == nil {
		return roaring.New(), "index.Range", true, nil // no operand an order applies to
	}
	var b index.NumberBounds
	switch l.Operator {
	case aql.OpLt:
		b.Hi, b.OpenHi = l.Decimal, true
	case aql.OpLte:
		b.Hi = l.Decimal
	case aql.OpGt:
		b.Lo, b.OpenLo = l.Decimal, true
	case aql.OpGte:
		b.Lo = l.Decimal
	}
	r, err := p.ix.NumberRangeIn(ids, b, p.all)
	countComplements(r)
	return r.Docs, "index.Range", true, err
}

// countComplements counts the lookups of rs read by their complement,
// for the differential test. Explain names both ways index.Range: whether
// the complement was cheaper is judged from bucket counts over every
// tenant's documents, so naming the way would tell a reader something of
// documents it may not see.
func countComplements(rs ...index.Range) {
	for _, r := range rs {
		if r.Complemented > 0 {
			rangeComplements.Add(1)
			return
		}
	}
}

var rangeComplements atomic.Int64

func (p *planner) instantRange(l *aql.Leaf, ids []uint32) (*roaring.Bitmap, string, bool, error) {
	t := &l.Instant
	var b index.InstantBounds
	switch l.Operator {
	case aql.OpLt, aql.OpBefore:
		b.Hi, b.OpenHi = t, true
	case aql.OpLte:
		b.Hi = t
	case aql.OpGt, aql.OpAfter:
		b.Lo, b.OpenLo = t, true
	case aql.OpGte:
		b.Lo = t
	}
	r, err := p.ix.InstantRangeIn(ids, b, p.all)
	countComplements(r)
	return r.Docs, "index.Range", true, err
}

// interval: within is [start, end]; outside is some value before start
// or after end.
func (p *planner) interval(l *aql.Leaf, ids []uint32) (*roaring.Bitmap, string, bool, error) {
	iv := &l.Interval
	if l.Operator == aql.OpWithin {
		r, err := p.ix.InstantRangeIn(ids, index.InstantBounds{Lo: &iv.Start, Hi: &iv.End}, p.all)
		countComplements(r)
		return r.Docs, "index.Range", true, err
	}
	before, err := p.ix.InstantRangeIn(ids, index.InstantBounds{Hi: &iv.Start, OpenHi: true}, p.all)
	if err != nil {
		return nil, "", false, err
	}
	after, err := p.ix.InstantRangeIn(ids, index.InstantBounds{Lo: &iv.End, OpenLo: true}, p.all)
	if err != nil {
		return nil, "", false, err
	}
	countComplements(before, after)
	return roaring.Or(before.Docs, after.Docs), "index.Range", true, nil
}

// contains: a string needle may be a substring of a string there
// (trigrams) or an element of an array there (equality one level down).
func (p *planner) contains(l *aql.Leaf, ids []uint32) (*roaring.Bitmap, string, bool, error) {
	needle, ok := l.Value.(string)
	if !ok {
		bm, err := p.ix.Exists(ids)
		return bm, "index.Exists", false, err
	}
	grams, err := p.ix.Grams(ids, needle)
	if err != nil {
		return nil, "", false, err
	}
	elems, elemsExact, err := p.ix.Eq(p.ix.ArrayChildren(ids), needle)
	if err != nil {
		return nil, "", false, err
	}
	// Where the value dictionary holds every string at the paths, the
	// strings containing needle and the arrays holding it are exactly the
	// documents that satisfy the leaf: their candidates need no match
	// before the evaluation that writes their records.
	exact, err := p.ix.GramsExact(ids, needle, p.all)
	if err != nil {
		return nil, "", false, err
	}
	return roaring.Or(grams, elems), "index.Ngram", exact && elemsExact, nil
}

// matchesBudget bounds the time the matches leaves of one plan spend
// testing the distinct values of their paths' dictionary; past it (a path
// with very many distinct values, or slow regexes), a leaf is planned as
// every document with a value there, and the evaluator's own per-document
// budget applies. A request that ends (its client gone, its deadline
// passed) stops the tests at the next value.
const matchesBudget = time.Second

// errMatchesBudget stops a dictionary walk that ran out of matchesBudget.
var errMatchesBudget = errors.New("query: matches dictionary budget spent")

// matches tests the regex once per distinct string in the paths' value
// dictionary and unites the postings of those it matches (index.Matching),
// instead of reading every document with a value there. The answer stays
// lossy: a document's strings are matched against one time budget per
// document (eval), which a test of each value alone cannot reproduce, so
// the candidates are checked exactly.
func (p *planner) matches(l *aql.Leaf, ids []uint32) (*roaring.Bitmap, string, bool, error) {
	if l.Regex == nil {
		bm, err := p.ix.Exists(ids)
		return bm, "index.Exists", false, err
	}
	if p.matchesBy.IsZero() {
		p.matchesBy = time.Now().Add(max(matchesBudget, l.Regex.MatchTimeout))
	}
	bm, err := p.ix.Matching(p.ctx, ids, func(s []byte) (bool, error) {
		if err := p.ctx.Err(); err != nil {
			return false, err
		}
		if time.Now().After(p.matchesBy) {
			return false, errMatchesBudget
		}
		found, err := aql.MatchString(l.Regex, string(s))
		return found || err != nil, nil // a timeout cannot rule the value out
	})
	if errors.Is(err, errMatchesBudget) {
		bm, err = p.ix.Exists(ids)
		return bm, "index.Exists", false, err
	}
	return bm, "index.Matching", false, err
}
