package query

import (
	"strconv"
	"strings"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/index"
	"github.com/aqlstore/aqlstore/query/aql"
)

// maxSuggestions is how many near paths a warning names; maxWarnings
// bounds the warnings of one intent, and so the dictionary scans
// (index.Suggest) an intent full of absent paths costs.
const (
	maxSuggestions = 3
	maxWarnings    = 8
)

// Warning is a path of an intent that no document the reader may see
// has: a constraint on it tests nothing, an include of it rejects every
// candidate. The answer still stands; the warning says why it may be
// empty, and which paths the reader's documents have near it.
type Warning struct {
	Pointer     string   // where the path is in the intent: /constraints/all_of/0/path, /projection/include/1
	Path        string   // the path as the intent wrote it
	Suggestions []string // paths of the reader's documents near Path, nearest first
}

// String is the warning for people, e.g.
// `at /constraints/path: no visible document has "/categroy"; did you mean "/category"?`
func (w Warning) String() string {
	return "at " + w.Pointer + ": " + w.Text()
}

// Text is the warning without its position, for a plan's leaf.
func (w Warning) Text() string {
	s := "no visible document has " + strconv.Quote(w.Path)
	if len(w.Suggestions) == 0 {
		return s
	}
	q := make([]string, len(w.Suggestions))
	for i, p := range w.Suggestions {
		q[i] = strconv.Quote(p)
	}
	return s + "; did you mean " + strings.Join(q, " or ") + "?"
}

// Warnings returns the paths of in that no document of the plan's
// universe has, each with the near paths that some do. It reads the plan
// Resolve gave Options.Explain: a leaf that matched documents has its
// path, and so has every include when candidates were accepted (a
// missing include rejects), so an answer with results costs nothing.
// Suggestions are drawn from the universe's documents only, so that a
// warning never names another tenant's paths. At most maxWarnings are
// returned.
func Warnings(ix *index.Index, in *aql.Intent, plan *Plan, resp *Response) ([]Warning, error) {
	if ix == nil || plan == nil {
		return nil, nil
	}
	w := warner{ix: ix, universe: plan.Universe}
	var out []Warning
	err := plan.Root.walk(func(n *PlanNode) error {
		if n.leaf == nil || (n.Actual > 0 && n.leaf.Operator != aql.OpExists) || len(out) == maxWarnings {
			return nil
		}
		wn, err := w.check(n.leaf.Path, n.Pointer+"/path")
		if wn != nil {
			out = append(out, *wn)
		}
		return err
	})
	if err != nil || (resp != nil && len(resp.Candidates) > 0) {
		return out, err
	}
	for i, p := range in.Projection.Include {
		if len(out) == maxWarnings {
			break
		}
		wn, err := w.check(p, "/projection/include/"+strconv.Itoa(i))
		if err != nil {
			return out, err
		}
		if wn != nil {
			out = append(out, *wn)
		}
	}
	return out, nil
}

// Annotate sets the note of each leaf a warning is about, so that
// explain shows it beside the leaf's est 0 act 0.
func (p *Plan) Annotate(ws []Warning) {
	_ = p.Root.walk(func(n *PlanNode) error {
		for _, w := range ws {
			if n.leaf != nil && w.Pointer == n.Pointer+"/path" {
				n.Note = w.Text()
			}
		}
		return nil
	})
}

func (n *PlanNode) walk(fn func(*PlanNode) error) error {
	if err := fn(n); err != nil {
		return err
	}
	for _, c := range n.Children {
		if err := c.walk(fn); err != nil {
			return err
		}
	}
	return nil
}

// warner checks paths against one reader's universe.
type warner struct {
	ix       *index.Index
	universe *roaring.Bitmap
}

// check returns a warning when no document of the universe has a value
// at path; nil when one has.
func (w *warner) check(p *canon.Pointer, ptr string) (*Warning, error) {
	if p.IsRoot() { // every document has the root
		return nil, nil
	}
	ids, _ := w.ix.Paths(p)
	if ok, err := w.visible(ids); ok || err != nil {
		return nil, err
	}
	var ferr error
	near := w.ix.Suggest(p, maxSuggestions, func(id uint32) bool {
		ok, err := w.visible([]uint32{id})
		if err != nil {
			ferr = err
		}
		return ok
	})
	return &Warning{Pointer: ptr, Path: p.String(), Suggestions: near}, ferr
}

// visible reports whether a document of the universe has a value at one
// of the paths.
func (w *warner) visible(ids []uint32) (bool, error) {
	if len(ids) == 0 {
		return false, nil
	}
	bm, err := w.ix.Exists(ids)
	if err != nil {
		return false, err
	}
	return bm.Intersects(w.universe), nil
}
