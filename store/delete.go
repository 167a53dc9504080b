package store

import (
	"context"
	"fmt"
)

// Delete removes the document ref names, owned by ref.Owner (the context's
// principal when empty), durably, with a receipt. The blob's bytes are
// removed with the last reference to them; Compact then drops them from
// disk. A document that does not exist, or is not the owner's, is
// ErrNotFound.
func (s *Store) Delete(ctx context.Context, ref Ref) error {
	owner := ref.Owner
	if owner == "" {
		owner = Principal(ctx)
	}
	num := ref.Num
	if num == 0 {
		n, err := s.firstByID(ref.ID, owner)
		if err != nil {
			return err
		}
		num = n
	}
	s.mu.Lock()
	if err := s.checkOpen(); err != nil {
		s.mu.Unlock()
		return err
	}
	m := s.newMutation(ctx)
	if err := m.delete(num, owner, ref); err != nil {
		m.abort()
		return err
	}
	return m.finish()
}

func (m *mutation) delete(num uint32, owner string, ref Ref) error {
	v, found, err := m.b.get(AppendDocKey(nil, num), nil)
	if err != nil {
		return err
	}
	if !found {
		return ErrNotFound
	}
	rec, err := decodeRecord(num, v)
	if err != nil {
		return err
	}
	if rec.owner != owner || (!ref.ID.IsZero() && rec.id != ref.ID) {
		return ErrNotFound
	}
	if err := m.unindex(num, &rec); err != nil {
		return err
	}
	b := m.b
	_ = b.del(AppendDocKey(nil, num))
	_ = b.del(AppendColumnKey(nil, num))
	m.cols = append(m.cols, column{num: num})
	_ = b.del(AppendIDKey(nil, rec.id, rec.owner, rec.naturalKey))
	if rec.naturalKey != "" {
		_ = b.del(AppendNaturalKey(nil, rec.kind, rec.owner, rec.naturalKey))
	}
	_ = b.del(AppendKindKey(nil, rec.kind, num))
	if err := m.deleteMessageKeys(num); err != nil {
		return err
	}
	if err := m.dropRef(rec); err != nil {
		return err
	}
	if err := m.dropGrants(num, &rec); err != nil {
		return err
	}
	m.appendReceipt(Receipt{Principal: m.principal, Op: "delete", Kind: rec.kind, Owner: rec.owner, Num: num,
		HashBefore: rec.id.String()})
	return nil
}

// unindex hands the indexer the body of a document being deleted.
func (m *mutation) unindex(num uint32, rec *record) error {
	ix := m.s.opts.Indexer
	if ix == nil {
		return nil
	}
	body, err := readBody(m.b.get, num, rec)
	if err != nil {
		return fmt.Errorf("store: delete: %w", err)
	}
	doc, err := rec.indexed(body)
	if err != nil {
		return fmt.Errorf("store: delete: document %d: %w", num, err)
	}
	return ix.Remove(num, doc)
}

// dropRef counts one reference less, deleting the shared blob, if the
// content ever had one, with the last. The blob keeps its number while
// other documents use it, even once the document that gave it that number
// (and held its body inline) is gone.
func (m *mutation) dropRef(rec record) error {
	blob, n, err := m.refs(rec.id)
	if err != nil {
		return err
	}
	if n <= 1 {
		_ = m.b.del(AppendRefsKey(nil, rec.id))
		return m.b.del(AppendBlobKey(nil, rec.blob))
	}
	return m.b.set(AppendRefsKey(nil, rec.id), appendRefs(nil, blob, n-1))
}
