package canon

// RawStep is one edge on the way from the root of canonical bytes to a
// node: an object member, named by its raw key, or an array element, by
// its index.
type RawStep struct {
	// Name is the member name as the bytes write it, quotes and escapes
	// included (decode it with RawString); nil for an array element.
	Name []byte
	// Index is the element's index, or -1 for a member.
	Index int
}

// RawWalker resolves pointers over canonical bytes, keeping its scratch
// space (one state set and one cursor per level of the document) between
// calls, so that a walker kept by its caller resolves wildcard pointers
// without allocating once it has seen a document as deep as the current
// one. The zero RawWalker is ready to use.
//
// A RawWalker is NOT safe for concurrent use, and fn must not use the
// walker that calls it. Between calls it holds no reference to a
// document.
type RawWalker struct {
	automaton
	words  int      // uint64 words per state set
	sets   []uint64 // frame d's states are sets[d*words : (d+1)*words]
	frames []rawFrame
	path   []RawStep
	doc    *Members // the table of root members, when the walk has one
}

// rawFrame is one container on the walk's stack and the cursor over its
// children.
type rawFrame struct {
	node  []byte  // the container being scanned; nil when nothing is left
	pos   int     // offset in node of the next child, -1 when done
	idx   int     // index of the next element (arrays)
	only  int     // the single name state to look up directly, or -1
	table bool    // the root object, whose children come from doc's table (pos indexes it)
	step  RawStep // the edge from the parent frame to this node
}

// Resolve is p.ResolveRaw(b, fn) with w's scratch space.
func (w *RawWalker) Resolve(p *Pointer, b []byte, fn func(v []byte) bool) bool {
	if !p.HasWildcard() {
		v, ok := p.lookupRaw(b)
		return !ok || fn(v)
	}
	return w.walk(p, b, nil, fn, nil)
}

// ResolveDoc is Resolve over d's bytes, with the root's members taken from
// d's table: a first segment that names a member jumps to it, and a
// wildcard iterates the table, so pointers resolved over one Members value skim
// its top level once between them.
func (w *RawWalker) ResolveDoc(p *Pointer, d *Members, fn func(v []byte) bool) bool {
	if !p.HasWildcard() {
		v, ok := p.lookupMembers(d)
		return !ok || fn(v)
	}
	return w.walk(p, d.b, d, fn, nil)
}

// ResolvePathDoc is ResolvePath over d's bytes, through d's table as
// ResolveDoc.
func (w *RawWalker) ResolvePathDoc(p *Pointer, d *Members, fn func(path []RawStep, v []byte) bool) bool {
	return w.walk(p, d.b, d, nil, fn)
}

// ResolvePath is Resolve, also telling fn the path of each value from the
// root of b. path belongs to w and is valid only during the call; its Name
// slices are subslices of b.
func (w *RawWalker) ResolvePath(p *Pointer, b []byte, fn func(path []RawStep, v []byte) bool) bool {
	return w.walk(p, b, nil, nil, fn)
}

// walk runs p as the automaton Resolve uses (state i means "segment i is
// next", len(segs) means "selected"), over the bytes: each node carries the
// set of states that reach it, so each is visited and emitted once, in
// byte order, which for canonical bytes is Resolve's document order.
// Exactly one of fn and pfn is set; doc, when set, is b's Members.
func (w *RawWalker) walk(p *Pointer, b []byte, doc *Members, fn func([]byte) bool, pfn func([]RawStep, []byte) bool) bool {
	w.segs, w.descend, w.doc = nil, nil, doc
	if p != nil {
		w.segs, w.descend = p.segs, p.descend
	}
	defer w.release()
	w.words = len(w.segs)/64 + 1
	w.grow(1)
	root := w.set(0)
	clear(root)
	root[0] = 1
	w.close(root)
	w.frames[0].step = RawStep{Index: -1}
	if !w.enter(0, b, fn, pfn) {
		return false
	}
	for d := 0; d >= 0; {
		w.grow(d + 2)
		v, ok := w.nextChild(d)
		if !ok {
			d--
			continue
		}
		if !w.enter(d+1, v, fn, pfn) {
			return false
		}
		d++
	}
	return true
}

// release drops every reference to the document and the pointer.
func (w *RawWalker) release() {
	w.segs, w.descend, w.doc = nil, nil, nil
	for i := range w.frames {
		w.frames[i].node, w.frames[i].step.Name = nil, nil
	}
	clear(w.path)
}

// grow makes sure frames (and state sets) 0..n-1 exist.
func (w *RawWalker) grow(n int) {
	if len(w.frames) < n {
		w.frames = append(w.frames, make([]rawFrame, n-len(w.frames))...)
	}
	if need := n * w.words; len(w.sets) < need {
		w.sets = append(w.sets, make([]uint64, need-len(w.sets))...)
	}
}

func (w *RawWalker) set(d int) []uint64 { return w.sets[d*w.words : (d+1)*w.words] }

// enter emits v, the node of frame d, if the walk selects it, and prepares
// the scan of its children; it returns false when the callback asks to
// stop.
func (w *RawWalker) enter(d int, v []byte, fn func([]byte) bool, pfn func([]RawStep, []byte) bool) bool {
	set := w.set(d)
	n := len(w.segs)
	if set[n/64]&(1<<(n%64)) != 0 && !w.emit(d, v, fn, pfn) {
		return false
	}
	f := &w.frames[d]
	f.node, f.pos, f.idx, f.only, f.table = nil, -1, 0, -1, false
	if len(v) < 3 || v[0] != '{' && v[0] != '[' { // a scalar or an empty container
		return true
	}
	if live, only := w.liveStates(set); live > 0 {
		f.node, f.pos, f.only = v, 1, only
		if d == 0 && w.doc != nil && v[0] == '{' {
			f.pos, f.table = 0, true
		}
	}
	return true
}

func (w *RawWalker) emit(d int, v []byte, fn func([]byte) bool, pfn func([]RawStep, []byte) bool) bool {
	if pfn == nil {
		return fn(v)
	}
	w.path = w.path[:0]
	for i := 1; i <= d; i++ {
		w.path = append(w.path, w.frames[i].step)
	}
	return pfn(w.path, v)
}

// nextChild finds the next child of frame d that some state survives
// into, leaving its states in frame d+1's set and its edge in its step.
func (w *RawWalker) nextChild(d int) ([]byte, bool) {
	f, c := &w.frames[d], &w.frames[d+1]
	if f.pos < 0 {
		return nil, false
	}
	if f.only >= 0 {
		f.pos = -1
		return w.lookupChild(f, c, w.set(d+1))
	}
	from, to := w.set(d), w.set(d+1)
	if f.table {
		return w.nextMember(f, c, from, to)
	}
	for f.pos > 0 {
		if f.node[0] == '{' {
			key, v, next := memberAt(f.node, f.pos)
			f.pos = next
			if v != nil && w.step(from, to, -1, func(n string) bool { return rawNameEquals(key, n) }) {
				c.step = RawStep{Name: key, Index: -1}
				return v, true
			}
			continue
		}
		v, next := elementAt(f.node, f.pos)
		f.pos = next
		i := f.idx
		f.idx++
		if v != nil && w.step(from, to, i, nil) {
			c.step = RawStep{Index: i}
			return v, true
		}
	}
	return nil, false
}

// lookupChild takes the direct route for a lone name state.
func (w *RawWalker) lookupChild(f, c *rawFrame, to []uint64) ([]byte, bool) {
	s := &w.segs[f.only]
	var key, v []byte
	ok := false
	switch f.node[0] {
	case '{':
		if f.table {
			key, v, ok = w.doc.lookup(s.Name)
		} else {
			key, v, ok = rawMember(f.node, s.Name)
		}
		c.step = RawStep{Name: key, Index: -1}
	case '[':
		if s.Index >= 0 {
			v, ok = rawElement(f.node, s.Index)
			c.step = RawStep{Index: s.Index}
		}
	}
	if ok {
		clear(to)
		next := f.only + 1
		to[next/64] |= 1 << (next % 64)
		w.close(to)
	}
	return v, ok
}

// nextMember is nextChild over the root's members, from the table.
func (w *RawWalker) nextMember(f, c *rawFrame, from, to []uint64) ([]byte, bool) {
	for {
		key, v, ok := w.doc.member(f.pos)
		if !ok {
			f.pos = -1
			return nil, false
		}
		f.pos++
		if w.step(from, to, -1, func(n string) bool { return rawNameEquals(key, n) }) {
			c.step = RawStep{Name: key, Index: -1}
			return v, true
		}
	}
}
