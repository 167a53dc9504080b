package project

// step is one edge from a node to a child: a member name, or an array
// index (index >= 0, name unused).
type step struct {
	name  string
	index int
}

// mark records, for one node of the document, what the projection does
// with it. Marks form a sparse tree beside the document: only selected
// nodes and their ancestors have one.
type mark struct {
	include bool // the node and its subtree are selected
	exclude bool // the node and its subtree are removed
	kids    map[step]*mark
}

// at returns the mark of the node at path below m, creating the marks on
// the way.
func (m *mark) at(path []step) *mark {
	for _, s := range path {
		next := m.kids[s]
		if next == nil {
			if m.kids == nil {
				m.kids = make(map[step]*mark)
			}
			next = &mark{}
			m.kids[s] = next
		}
		m = next
	}
	return m
}

// child returns the mark of a child, or nil.
func (m *mark) child(s step) *mark {
	if m == nil {
		return nil
	}
	return m.kids[s]
}
