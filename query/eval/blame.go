package eval

import "github.com/aqlstore/aqlstore/query/aql"

// Blame returns the index in rec, the records Eval appended for n, of
// the leaf that decides n's outcome, so that an explanation can name it:
// when n fails, the first leaf that failed where failing counts (a
// failing child of all_of, a child of any_of, a leaf that held under a
// not); when n holds, the first leaf that held where holding counts. It
// returns -1 when rec is not n's records.
//
// The leaves of a failed child of a not that holds are not to blame,
// though they failed; nor is a leaf that failed in an any_of that held.
func Blame(n *aql.Node, rec []aql.Evaluation) int {
	b := blamer{rec: rec}
	_, leaf := b.walk(n)
	if b.bad || b.next != len(rec) {
		return -1
	}
	return leaf
}

// blamer walks a tree along its records, in tree order.
type blamer struct {
	rec  []aql.Evaluation
	next int  // the record of the next leaf
	bad  bool // the records do not follow the tree
}

// walk returns whether n held and the leaf to blame for it.
func (b *blamer) walk(n *aql.Node) (bool, int) {
	if n == nil {
		b.bad = true
		return false, -1
	}
	switch n.Kind {
	case aql.NodeLeaf:
		if b.next >= len(b.rec) {
			b.bad = true
			return false, -1
		}
		b.next++
		return b.rec[b.next-1].Passed, b.next - 1
	case aql.NodeNot:
		if len(n.Children) != 1 {
			b.bad = true
			return false, -1
		}
		held, leaf := b.walk(n.Children[0])
		return !held, leaf
	}
	// all_of holds when every child does, any_of when one does: the first
	// child with the deciding outcome is to blame, else the first child.
	decides := n.Kind == aql.NodeAnyOf // the outcome that decides the node
	blame, found := -1, false
	for i, c := range n.Children {
		held, leaf := b.walk(c)
		if i == 0 {
			blame = leaf
		}
		if held == decides && !found {
			blame, found = leaf, true
		}
	}
	if n.Kind != aql.NodeAllOf && n.Kind != aql.NodeAnyOf {
		b.bad = true
	}
	return found == decides, blame
}
