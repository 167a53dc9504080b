package project

import (
	"slices"

	"github.com/aqlstore/aqlstore/canon"
)

// AppendMembers is ApplyMembers writing the payload's RFC 8785 bytes to dst
// instead of building it: the selected values are copied from d's
// canonical bytes as they are (a canonical document's subtrees are
// canonical, and a subset of an object's members keeps their order), so
// nothing is decoded. The bytes equal canon.AppendValue of ApplyMembers's
// payload; missing and the errors are ApplyMembers's, and on an error dst
// is returned unchanged. d is used only during the call; AppendMembers is
// safe for concurrent use with distinct Members tables.
func AppendMembers(dst []byte, d *canon.Members, include, exclude []*canon.Pointer) (out []byte, missing []string, err error) {
	doc := d.Bytes()
	if len(doc) == 0 || doc[0] != '{' {
		return dst, nil, notObjectRaw(doc)
	}
	if len(include) == 1 && len(exclude) == 0 && !include[0].IsRoot() && !include[0].HasWildcard() {
		return appendOnePath(dst, d, include[0])
	}
	r, missing := markPaths(doc, d, include, exclude)
	defer r.release()
	out, ok, err := appendRaw(dst, doc, d, r.root, false)
	switch {
	case err != nil:
		return dst, nil, err
	case !ok:
		out = append(out[:len(dst)], "{}"...)
	}
	return out, missing, nil
}

// appendRaw is buildRaw writing to dst: what v keeps under its mark m,
// and whether anything was kept (when not, dst is returned as it was).
// rd, set only for the root, is v's Members.
func appendRaw(dst, v []byte, rd *canon.Members, m *mark, all bool) ([]byte, bool, error) {
	if m != nil {
		if m.exclude {
			return dst, false, nil
		}
		all = all || m.include
	}
	if m == nil || len(m.kids) == 0 {
		if !all {
			return dst, false, nil
		}
		return append(dst, v...), true, nil
	}
	switch v[0] {
	case '{':
		return appendObjectRaw(dst, v, rd, m, all)
	case '[':
		return appendArrayRaw(dst, v, m, all)
	}
	return append(dst, v...), all, nil // only a container's mark has kids
}

// appendObjectRaw is buildObjectRaw writing to dst: the members kept, in
// the order the canonical bytes hold them, keys copied as they are.
func appendObjectRaw(dst, v []byte, rd *canon.Members, m *mark, all bool) ([]byte, bool, error) {
	start := len(dst)
	out := append(dst, '{')
	kept := 0
	var err error
	each := func(key, x []byte) bool {
		name, _ := memberName(key) // used for the lookup only
		km := m.child(step{name: name, index: -1})
		if km == nil && !all {
			return true
		}
		var ok bool
		if out, ok, err = appendChild(out, kept, key, x, km, all); ok {
			kept++
		}
		return err == nil
	}
	if rd != nil {
		rd.EachMember(each)
	} else {
		canon.EachMember(v, each)
	}
	if err != nil {
		return dst[:start], false, err
	}
	if !all && kept == 0 {
		return out[:start], false, nil
	}
	return append(out, '}'), true, nil
}

// appendChild appends to out the projection of the member or element x
// (a member's key and colon first when key is not nil), after a comma
// when kept members or elements precede it; ok is false, and out as it
// was, when x keeps nothing.
func appendChild(out []byte, kept int, key, x []byte, km *mark, all bool) (_ []byte, ok bool, err error) {
	mark := len(out)
	if kept > 0 {
		out = append(out, ',')
	}
	if key != nil {
		out = append(append(out, key...), ':')
	}
	if out, ok, err = appendRaw(out, x, nil, km, all); err != nil || !ok {
		return out[:mark], false, err
	}
	return out, true, nil
}

// appendArrayRaw is buildArrayRaw writing to dst: the elements kept, in
// order.
func appendArrayRaw(dst, v []byte, m *mark, all bool) ([]byte, bool, error) {
	start := len(dst)
	out := append(dst, '[')
	kept, i := 0, 0
	var err error
	canon.EachElement(v, func(x []byte) bool {
		km := m.child(step{index: i})
		i++
		if km == nil && !all {
			return true
		}
		var ok bool
		if out, ok, err = appendChild(out, kept, nil, x, km, all); ok {
			kept++
		}
		return err == nil
	})
	if err != nil {
		return dst[:start], false, err
	}
	if !all && kept == 0 {
		return out[:start], false, nil
	}
	return append(out, ']'), true, nil
}

// appendOnePath is AppendMembers for one include pointer without wildcards
// and no exclude, the common projection (a field or two deep): at most
// one value is selected, so the payload is that value inside one
// container per step of its path, each holding that member or element
// alone. It resolves the pointer through d's table and writes the path's
// keys as the bytes hold them, as appendObjectRaw would, but builds no
// marks and skims no member beside the path: the root members after the
// selected one, which the general walk lists, are never scanned.
func appendOnePath(dst []byte, d *canon.Members, p *canon.Pointer) (out []byte, missing []string, err error) {
	r := markers.Get().(*rawMarker)
	defer markers.Put(r)
	r.out, r.found = dst, false
	r.walker.ResolvePathDoc(p, d, r.writeOne)
	out, found := r.out, r.found
	r.out = nil
	if !found {
		return append(dst, "{}"...), []string{p.String()}, nil
	}
	return out, nil, nil
}

// writeOne writes the value at path wrapped in its containers, and stops
// the walk.
func (r *rawMarker) writeOne(path []canon.RawStep, v []byte) bool {
	n := len(v)
	for _, s := range path {
		n += len(s.Name) + 3 // the brackets and the colon
	}
	out := slices.Grow(r.out, n) // one allocation at most
	for _, s := range path {
		if s.Index >= 0 {
			out = append(out, '[')
		} else {
			out = append(append(append(out, '{'), s.Name...), ':')
		}
	}
	out = append(out, v...)
	for i := len(path) - 1; i >= 0; i-- {
		if path[i].Index >= 0 {
			out = append(out, ']')
		} else {
			out = append(out, '}')
		}
	}
	r.out, r.found = out, true
	return false
}
