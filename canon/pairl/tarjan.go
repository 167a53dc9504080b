package pairl

// tarjan finds the strongly connected components of the message DAG
// (which should have none of size > 1) over nodes discovered through a
// Thread. It is iterative, so a long thread cannot overflow the stack, and
// it stops discovering nodes after limit of them.
type tarjan struct {
	th      Thread
	limit   int
	index   map[string]int
	low     map[string]int
	onStack map[string]bool
	stack   []string
	comp    map[string]int // node → component number
	size    []int          // component number → node count
	names   map[int]string // component number → members text (cycle.go)
}

func newTarjan(th Thread, limit int) *tarjan {
	return &tarjan{th: th, limit: limit, index: map[string]int{}, low: map[string]int{},
		onStack: map[string]bool{}, comp: map[string]int{}, names: map[int]string{}}
}

// frame is one node on the explicit DFS stack.
type frame struct {
	v    string
	succ []string
	next int
}

// visit runs Tarjan's algorithm from root unless root was seen already.
func (t *tarjan) visit(root string) {
	if _, seen := t.index[root]; seen {
		return
	}
	frames := []frame{t.open(root)}
	for len(frames) > 0 {
		top := len(frames) - 1
		if f := &frames[top]; f.next < len(f.succ) {
			w := f.succ[f.next]
			f.next++
			if next, ok := t.step(f.v, w); ok {
				frames = append(frames, next)
			}
			continue
		}
		v := frames[top].v
		frames = frames[:top]
		if top > 0 {
			u := frames[top-1].v
			t.low[u] = min(t.low[u], t.low[v])
		}
		t.close(v)
	}
}

// step follows the edge v → w: it returns a frame to descend into when w
// is new, and otherwise updates v's low link.
func (t *tarjan) step(v, w string) (frame, bool) {
	if _, seen := t.index[w]; !seen {
		if len(t.index) >= t.limit {
			return frame{}, false
		}
		return t.open(w), true
	}
	if t.onStack[w] {
		t.low[v] = min(t.low[v], t.index[w])
	}
	return frame{}, false
}

// open numbers v and pushes it.
func (t *tarjan) open(v string) frame {
	n := len(t.index)
	t.index[v], t.low[v] = n, n
	t.stack = append(t.stack, v)
	t.onStack[v] = true
	return frame{v: v, succ: t.successors(v)}
}

// close pops v's component when v is its root.
func (t *tarjan) close(v string) {
	if t.low[v] != t.index[v] {
		return
	}
	c := len(t.size)
	t.size = append(t.size, 0)
	for {
		w := t.stack[len(t.stack)-1]
		t.stack = t.stack[:len(t.stack)-1]
		t.onStack[w] = false
		t.comp[w] = c
		t.size[c]++
		if w == v {
			return
		}
	}
}

// successors returns the resolvable @parent/@deps targets of v; a target
// that does not resolve cannot be on a cycle.
func (t *tarjan) successors(v string) []string {
	m, ok := t.th.Lookup(v)
	if !ok {
		return nil
	}
	var out []string
	for _, e := range edges(m) {
		if _, ok := t.th.Lookup(e.to); ok {
			out = append(out, e.to)
		}
	}
	return out
}
