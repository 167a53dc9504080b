package store

import (
	"context"
	"encoding/binary"
	"fmt"
	"sort"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/canon/pairl"
)

// ThreadNode is one PAIRL message of a thread tree (Store.Thread).
type ThreadNode struct {
	MID      string         // the @mid
	Doc      *StoredDoc     // nil when the message is referenced but not stored (or not visible)
	Message  *pairl.Message // nil with Doc
	Deps     []string       // the @deps it names (edges outside the tree)
	Children []*ThreadNode  // the messages whose @parent is this one, by @ts then @mid
	Repeat   bool           // already shown elsewhere in the tree (a cycle); not expanded
}

// maxThread bounds the messages one Thread call visits.
const maxThread = 10000

// Thread returns the tree of the PAIRL thread holding mid, as the
// context's principal sees it: from the top of mid's @parent chain (the
// first message whose parent is not stored, or the thread's root) down
// through every stored reply. @deps are listed on each node, not
// followed. A cycle is cut where a message would repeat. mid that is not
// stored (or not visible) is ErrNotFound. At most 10,000 messages are
// visited.
func (s *Store) Thread(ctx context.Context, mid string) (*ThreadNode, error) {
	t := &threadReader{s: s, ctx: ctx, principal: Principal(ctx), seen: map[string]bool{}}
	start, err := t.node(mid)
	if err != nil {
		return nil, err
	}
	if start.Doc == nil {
		return nil, ErrNotFound
	}
	top := start
	for up := map[string]bool{mid: true}; top.Message.Parent() != "" && len(up) < maxThread; {
		p := top.Message.Parent()
		parent, err := t.node(p)
		if err != nil {
			return nil, err
		}
		if parent.Doc == nil || up[p] {
			break
		}
		up[p] = true
		top = parent
	}
	if err := t.expand(top); err != nil {
		return nil, err
	}
	return top, nil
}

type threadReader struct {
	s         *Store
	ctx       context.Context
	principal string
	seen      map[string]bool
}

// node reads message mid, own before public; a node without Doc if absent.
func (t *threadReader) node(mid string) (*ThreadNode, error) {
	doc, err := t.s.Lookup(t.ctx, canon.KindPAIRL, mid)
	if err == ErrNotFound {
		return &ThreadNode{MID: mid}, nil
	}
	if err != nil {
		return nil, err
	}
	msg, err := parseStoredPAIRL(doc.Body)
	if err != nil {
		return nil, err
	}
	return &ThreadNode{MID: mid, Doc: doc, Message: msg, Deps: msg.Deps()}, nil
}

// expand adds n's replies, depth first.
func (t *threadReader) expand(n *ThreadNode) error {
	if t.seen[n.MID] {
		n.Repeat = true
		return nil
	}
	t.seen[n.MID] = true
	if len(t.seen) > maxThread {
		return fmt.Errorf("%w: thread of %s has more than %d messages", ErrInvalid, n.MID, maxThread)
	}
	kids, err := t.replies(n.MID)
	if err != nil {
		return err
	}
	for _, k := range kids {
		if err := t.expand(k); err != nil {
			return err
		}
	}
	n.Children = kids
	return nil
}

// replies returns the visible messages whose @parent is mid.
func (t *threadReader) replies(mid string) ([]*ThreadNode, error) {
	var out []*ThreadNode
	for _, owner := range readOwners(t.principal) {
		prefix := AppendEdgePrefix(nil, owner, mid)
		err := t.s.kv.scan(prefix, prefixEnd(prefix), func(key, v []byte) error {
			if len(v) != 1 || v[0] != edgeParent {
				return nil
			}
			doc, err := t.s.docByNum(binary.BigEndian.Uint32(key[len(key)-4:]))
			if err == ErrNotFound {
				return nil
			}
			if err != nil {
				return err
			}
			msg, err := parseStoredPAIRL(doc.Body)
			if err != nil {
				return err
			}
			out = append(out, &ThreadNode{MID: msg.MID(), Doc: doc, Message: msg, Deps: msg.Deps()})
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if a, b := out[i].Message.TS(), out[j].Message.TS(); a != b {
			return a < b
		}
		return out[i].MID < out[j].MID
	})
	return out, nil
}
