package project

import (
	"bytes"
	"fmt"
	"sync"
	"unsafe"

	"github.com/aqlstore/aqlstore/canon"
)

// ApplyRaw is Apply over doc, the canonical bytes of a document (RFC 8785,
// such as a stored document's body): the same payload, missing list and
// error as Apply over the decoded doc. It walks the bytes and decodes only
// the subtrees the payload keeps, so a projection of a few fields costs a
// few small allocations rather than a decoded document; an include of the
// whole document ("" or "/") decodes all of it.
//
// The payload shares nothing with doc, which may be released when ApplyRaw
// returns. On bytes that are not canonical JSON ApplyRaw returns an error
// wrapping ErrMalformed where it notices, and may otherwise give a payload
// of what it could read; it never panics. ApplyRaw is safe for concurrent
// use.
func ApplyRaw(doc []byte, include, exclude []*canon.Pointer) (payload map[string]any, missing []string, err error) {
	return applyRaw(doc, nil, include, exclude)
}

// ApplyMembers is ApplyRaw over d's bytes, resolving the pointers and
// building the payload's top level through d's table of root members, so
// that the projection (and whatever else the caller resolves over d, such
// as EvalMembers) skims the document's top level once. The payload shares
// nothing with d. d is used only during the call; ApplyMembers is safe for
// concurrent use with distinct Members tables.
func ApplyMembers(d *canon.Members, include, exclude []*canon.Pointer) (payload map[string]any, missing []string, err error) {
	return applyRaw(d.Bytes(), d, include, exclude)
}

// applyRaw is ApplyRaw, through rd's table when rd (doc's Members) is set.
func applyRaw(doc []byte, rd *canon.Members, include, exclude []*canon.Pointer) (payload map[string]any, missing []string, err error) {
	if len(doc) == 0 || doc[0] != '{' {
		return nil, nil, notObjectRaw(doc)
	}
	r, missing := markPaths(doc, rd, include, exclude)
	defer r.release()
	out, ok, err := buildRaw(doc, rd, r.root, false)
	switch {
	case err != nil:
		return nil, nil, err
	case ok:
		return out.(map[string]any), missing, nil
	}
	return map[string]any{}, missing, nil
}

// notObjectRaw is notObject for the raw value b, named by its first byte.
func notObjectRaw(b []byte) error {
	if len(b) == 0 {
		return fmt.Errorf("%w: empty document", ErrMalformed)
	}
	var like any // a value of b's JSON type
	switch b[0] {
	case '[':
		like = []any{}
	case '"':
		like = ""
	case 't', 'f':
		like = false
	case 'n':
	default:
		like = canon.Number(b)
	}
	return notObject(like)
}

// markers keeps rawMarkers, whose walker and path buffers are worth
// reusing across calls.
var markers = sync.Pool{New: func() any { return new(rawMarker) }}

// rawMarker marks the nodes pointers select in canonical bytes.
// markPaths marks, on a pooled marker, the nodes of doc that include and
// exclude select, and lists the include pointers that select none. rd,
// when set, is doc's Members. The caller releases the marker.
func markPaths(doc []byte, rd *canon.Members, include, exclude []*canon.Pointer) (r *rawMarker, missing []string) {
	r = markers.Get().(*rawMarker)
	r.root, r.doc = &mark{}, rd
	for _, p := range include {
		if !r.markAll(doc, p, func(m *mark) { m.include = true }) {
			missing = append(missing, p.String())
		}
	}
	for _, p := range exclude {
		r.markAll(doc, p, func(m *mark) { m.exclude = true })
	}
	return r, missing
}

// release returns the marker to its pool, holding nothing of the document.
func (r *rawMarker) release() {
	r.root, r.doc = nil, nil
	markers.Put(r)
}

type rawMarker struct {
	root   *mark
	doc    *canon.Members // the document's table, when the caller has one
	walker canon.RawWalker
	path   []step

	// appendOnePath's result while its walk runs.
	out   []byte
	found bool
}

// markAll applies set to the mark of every node p selects in doc, and
// reports whether there was any.
func (r *rawMarker) markAll(doc []byte, p *canon.Pointer, set func(*mark)) bool {
	found := false
	visit := func(path []canon.RawStep, _ []byte) bool {
		r.path = r.path[:0]
		for _, s := range path {
			r.path = append(r.path, rawStep(s))
		}
		set(r.root.at(r.path))
		found = true
		return true
	}
	if r.doc != nil {
		r.walker.ResolvePathDoc(p, r.doc, visit)
	} else {
		r.walker.ResolvePath(p, doc, visit)
	}
	return found
}

// rawStep is the mark step of an edge of the raw walk: member names
// decoded, as the marks of the tree walk hold them.
func rawStep(s canon.RawStep) step {
	if s.Index >= 0 {
		return step{index: s.Index}
	}
	name, _ := canon.RawString(s.Name)
	return step{name: name, index: -1}
}

// buildRaw is build over the raw value v: the subtrees it keeps are
// decoded, the others only skipped. rd, set only for the root, is v's
// Members, whose table lists v's members.
func buildRaw(v []byte, rd *canon.Members, m *mark, all bool) (any, bool, error) {
	if m != nil {
		if m.exclude {
			return nil, false, nil
		}
		all = all || m.include
	}
	if m == nil || len(m.kids) == 0 {
		if !all {
			return nil, false, nil
		}
		return decodeRaw(v)
	}
	switch v[0] {
	case '{':
		return buildObjectRaw(v, rd, m, all)
	case '[':
		return buildArrayRaw(v, m, all)
	}
	x, _, err := decodeRaw(v) // only a container's mark has kids
	return x, all, err
}

func decodeRaw(v []byte) (any, bool, error) {
	x, err := canon.DecodeCanonical(v)
	if err != nil {
		return nil, false, fmt.Errorf("%w: %q: %v", ErrMalformed, shorten(v), err)
	}
	return x, true, nil
}

// shorten cuts a raw value for an error message.
func shorten(v []byte) []byte {
	if len(v) > 64 {
		return v[:64]
	}
	return v
}

// buildObjectRaw is buildObject over the members of the raw object v, as
// rd's table lists them when rd is set.
func buildObjectRaw(v []byte, rd *canon.Members, m *mark, all bool) (any, bool, error) {
	out := make(map[string]any)
	var err error
	each := func(key, x []byte) bool {
		name, owned := memberName(key)
		km := m.child(step{name: name, index: -1})
		if km == nil && !all {
			return true
		}
		y, ok, e := buildRaw(x, nil, km, all)
		if err = e; err != nil {
			return false
		}
		if ok {
			if !owned {
				name = string(key[1 : len(key)-1])
			}
			out[name] = y
		}
		return true
	}
	if rd != nil {
		rd.EachMember(each)
	} else {
		canon.EachMember(v, each)
	}
	return out, all || len(out) > 0, err
}

// memberName returns the name the raw key stands for: a view of key when
// it has no escape (owned is false: copy it before keeping it), else a
// decoded copy.
func memberName(key []byte) (name string, owned bool) {
	body := key[1 : len(key)-1]
	if bytes.IndexByte(body, '\\') < 0 {
		return unsafe.String(unsafe.SliceData(body), len(body)), false
	}
	name, _ = canon.RawString(key)
	return name, true
}

// buildArrayRaw is buildArray over the elements of the raw array v.
func buildArrayRaw(v []byte, m *mark, all bool) (any, bool, error) {
	out := make([]any, 0)
	var err error
	i := 0
	canon.EachElement(v, func(x []byte) bool {
		km := m.child(step{index: i})
		i++
		if km == nil && !all {
			return true
		}
		y, ok, e := buildRaw(x, nil, km, all)
		if err = e; err != nil {
			return false
		}
		if ok {
			out = append(out, y)
		}
		return true
	})
	return out, all || len(out) > 0, err
}
