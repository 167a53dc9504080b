package project

import (
	"fmt"

	"github.com/aqlstore/aqlstore/canon"
)

// Apply projects doc, a decoded document (see canon.Decode), through the
// include and exclude pointers of a projection block; see the package
// documentation for the semantics. payload is a new object, never nil
// unless err is set; missing lists, in the order given, the text of every
// include pointer that selects nothing in doc. A nil pointer means the
// whole document. Apply fails only with ErrNotObject.
func Apply(doc any, include, exclude []*canon.Pointer) (payload map[string]any, missing []string, err error) {
	obj, ok := doc.(map[string]any)
	if !ok {
		return nil, nil, notObject(doc)
	}
	root := &mark{}
	for _, p := range include {
		if !markAll(root, obj, p, func(m *mark) { m.include = true }) {
			missing = append(missing, p.String())
		}
	}
	for _, p := range exclude {
		markAll(root, obj, p, func(m *mark) { m.exclude = true })
	}
	if out, ok := build(obj, root, false); ok {
		return out.(map[string]any), missing, nil
	}
	return map[string]any{}, missing, nil
}

// markAll applies set to the mark of every node p selects in doc, and
// reports whether there was any.
func markAll(root *mark, doc any, p *canon.Pointer, set func(*mark)) bool {
	found := false
	walkMatches(doc, p, func(path []step) {
		set(root.at(path))
		found = true
	})
	return found
}

// notObject is the ErrNotObject of a document whose top level is v (or, for
// ApplyRaw, a value of the same JSON type).
func notObject(v any) error {
	return fmt.Errorf("%w: it is %s; the payload of a response must be an object", ErrNotObject, canon.TypeName(v))
}
