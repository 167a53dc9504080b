package project

// build returns the projection of v under its mark m (nil when v has
// none), and whether anything of v is kept; all means an ancestor of v is
// selected.
func build(v any, m *mark, all bool) (any, bool) {
	if m != nil {
		if m.exclude {
			return nil, false
		}
		all = all || m.include
	}
	if m == nil || len(m.kids) == 0 {
		if all {
			return deepCopy(v), true
		}
		return nil, false
	}
	switch c := v.(type) {
	case map[string]any:
		return buildObject(c, m, all)
	case []any:
		return buildArray(c, m, all)
	}
	return v, all // only a container's mark has kids
}

// buildObject keeps the members selected or on the way to a selection. A
// selected object is kept even when exclusion empties it; one that is
// only on the way is dropped then.
func buildObject(c map[string]any, m *mark, all bool) (any, bool) {
	out := make(map[string]any)
	for k, x := range c {
		km := m.child(step{name: k, index: -1})
		if km == nil && !all {
			continue
		}
		if y, ok := build(x, km, all); ok {
			out[k] = y
		}
	}
	return out, all || len(out) > 0
}

// buildArray keeps, in order, the elements that contributed.
func buildArray(c []any, m *mark, all bool) (any, bool) {
	out := make([]any, 0, len(c))
	for i, x := range c {
		km := m.child(step{index: i})
		if km == nil && !all {
			continue
		}
		if y, ok := build(x, km, all); ok {
			out = append(out, y)
		}
	}
	return out, all || len(out) > 0
}

// deepCopy copies the maps and slices of a decoded value; scalars are
// immutable and shared.
func deepCopy(v any) any {
	switch c := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(c))
		for k, x := range c {
			out[k] = deepCopy(x)
		}
		return out
	case []any:
		out := make([]any, len(c))
		for i, x := range c {
			out[i] = deepCopy(x)
		}
		return out
	}
	return v
}
