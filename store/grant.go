package store

import (
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/aqlstore/aqlstore/canon"
)

// Grants. A tenant may let another tenant read one of its documents: a
// reader sees public documents, its own, and those granted to it, never
// another tenant's otherwise (README, tenants). A grant belongs to one
// document (one number): deleting the document drops its grants in the
// delete's own batch, and putting the same content again makes a new
// document that nobody has been granted. Grants give read access only:
// the rules a put checks against stored messages (an AIDP observation's
// envelope, PAIRL @parent and @deps, replay keys) see the writer's own
// and public documents, never granted ones, so that a revoke never leaves
// a stored message bound to something its owner cannot read.
//
// A grant or revoke that changes something appends a receipt (OpGrant,
// OpRevoke) to the owner's history, naming the document and the grantee
// (by GranteeHash, so the DID leaves the disk with the grant keys),
// so the owner chain shows who was let in and when, and a subscription of
// the grantee learns of it. The grants a delete drops go with its delete
// receipt. An export carries the owner's documents and receipts, not the
// grants themselves: grant again after an import.
//
// Keys, all under prefixGrant with a second byte naming the family:
//
//	'G' 'd' num[4] grantee                                    empty: document num is granted to grantee
//	'G' 'b' grantee                                           posting (bitmap.go): every number granted to grantee
//	'G' 'i' grantee 0x00 id[32] num[4]                        empty: by content id, for Get
//	'G' 'k' grantee 0x00 kind 0x00 natural key 0x00 num[4]    empty: by natural key, for Lookup and ObservationsFor
//
// 'd' answers "may this reader see document num" with one point read, and
// lists a document's grants when it is deleted; 'b' is the planner's
// share of the universe, so a query never walks grant keys; 'i' and 'k'
// find a granted document by what a reader names it by. Grantees are
// NUL-free (checkGrantee), as owners are; a natural key may hold a NUL
// (an AIDP observation's joins its two ids with one), so the number is
// always the last four bytes of an 'i' or 'k' key.
const prefixGrant byte = 'G'

const (
	grantDoc    byte = 'd'
	grantBitmap byte = 'b'
	grantByID   byte = 'i'
	grantByKey  byte = 'k'
)

func appendGrantDocPrefix(dst []byte, num uint32) []byte {
	return binary.BigEndian.AppendUint32(append(dst, prefixGrant, grantDoc), num)
}

func appendGrantDocKey(dst []byte, num uint32, grantee string) []byte {
	return append(appendGrantDocPrefix(dst, num), grantee...)
}

func appendGrantBitmapKey(dst []byte, grantee string) []byte {
	return append(append(dst, prefixGrant, grantBitmap), grantee...)
}

func appendGrantIDPrefix(dst []byte, grantee string, id canon.ContentID) []byte {
	dst = append(append(append(dst, prefixGrant, grantByID), grantee...), 0)
	return append(dst, id[:]...)
}

// appendGrantKindPrefix appends the prefix of grantee's natural-key grant
// keys of kind; the natural key, a NUL and the number follow.
func appendGrantKindPrefix(dst []byte, grantee string, kind canon.Kind) []byte {
	dst = append(append(append(dst, prefixGrant, grantByKey), grantee...), 0)
	return append(append(dst, kind...), 0)
}

func appendGrantNaturalPrefix(dst []byte, grantee string, kind canon.Kind, key string) []byte {
	return append(append(appendGrantKindPrefix(dst, grantee, kind), key...), 0)
}

// Grant lets grantee (a tenant DID) read the context principal's document
// that ref names: the one numbered ref.Num, or, when Num is zero, every
// one of the principal's documents with content ref.ID (identical
// candidate records stored under several candidate ids are one content id
// and several documents; a grant by content id covers them all, a later
// put of the same content does not). Granting again is a no-op. The grant
// is durable when Grant returns, like a put.
//
// A document the principal does not own (another tenant's, a public one,
// one that does not exist) is ErrNotFound, whether or not the principal
// can read it. Acting as Public, granting to Public, to oneself, or to a
// malformed grantee is ErrInvalid, with a message that says what to do.
// Safe for concurrent use.
func (s *Store) Grant(ctx context.Context, ref Ref, grantee string) error {
	return s.changeGrant(ctx, ref, grantee, true)
}

// Revoke withdraws what Grant gave: grantee no longer reads the document
// (or documents) ref names from the moment Revoke returns. Revoking a
// grant that does not exist is a no-op; a document the principal does not
// own is ErrNotFound, and the arguments are checked as Grant checks them.
func (s *Store) Revoke(ctx context.Context, ref Ref, grantee string) error {
	return s.changeGrant(ctx, ref, grantee, false)
}

// Grantees returns, sorted, the tenants that the context principal's
// document (or documents) ref names are granted to. A document the
// principal does not own is ErrNotFound.
func (s *Store) Grantees(ctx context.Context, ref Ref) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	owner := Principal(ctx)
	if err := checkGrantOwner(owner, ref); err != nil {
		return nil, err
	}
	var out []string
	err := s.readView(func(v *view) error {
		docs, err := ownedDocs(v, ref, owner)
		if err != nil {
			return err
		}
		for _, d := range docs {
			gs, err := granteesOf(v, d.num)
			if err != nil {
				return err
			}
			out = append(out, gs...)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// Granted returns the numbers of the documents granted to grantee, as of
// the last grant or revoke that returned. It may still hold documents
// deleted since (numbers are never reused, and every reader checks a
// document's grant again when it reads it), so callers intersect it with
// live documents, as the planner does with its kind postings. The bitmap
// belongs to the caller. Safe for concurrent use; once cached, a reader's
// bitmap costs a map lookup and a copy (of nothing, without grants).
func (s *Store) Granted(grantee string) (*roaring.Bitmap, error) {
	bm, err := s.grantedShared(grantee)
	if err != nil {
		return nil, err
	}
	return bm.Clone(), nil
}

// grantedShared is Granted without the copy: the cache's own bitmap,
// which the caller must not modify.
func (s *Store) grantedShared(grantee string) (*roaring.Bitmap, error) {
	if grantee == Public {
		return emptyGrants, nil
	}
	bm, gen := s.grants.get(grantee)
	if bm != nil {
		return bm, nil
	}
	v, found, err := s.kv.get(appendGrantBitmapKey(nil, grantee), nil)
	if err != nil {
		return nil, fmt.Errorf("store: grants of %s: %w", grantee, err)
	}
	bm = emptyGrants
	if found {
		if bm, err = decodeBitmap(v); err != nil {
			return nil, fmt.Errorf("store: grants of %s: %w", grantee, err)
		}
	}
	s.grants.put(grantee, bm, gen)
	return bm, nil
}

// emptyGrants is the shared answer for readers without grants; nobody
// modifies it.
var emptyGrants = roaring.New()

// changeGrant grants or revokes under the writer lock, in one batch.
func (s *Store) changeGrant(ctx context.Context, ref Ref, grantee string, grant bool) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	owner := Principal(ctx)
	if err := checkGrantOwner(owner, ref); err != nil {
		return err
	}
	if err := checkGrantee(owner, grantee); err != nil {
		return err
	}
	s.mu.Lock()
	if err := s.checkOpen(); err != nil {
		s.mu.Unlock()
		return err
	}
	m := s.newMutation(ctx)
	docs, err := ownedDocs(m.b, ref, owner)
	anyChanged := false
	for i := 0; err == nil && i < len(docs); i++ {
		d := &docs[i]
		var changed bool
		op := OpGrant
		if grant {
			changed, err = m.grant(d.num, &d.rec, grantee)
		} else {
			op = OpRevoke
			changed, err = m.revoke(d.num, &d.rec, grantee)
		}
		if changed {
			anyChanged = true
			m.appendReceipt(Receipt{Principal: m.principal, Op: op, Kind: d.rec.kind, Owner: owner, Num: d.num,
				HashBefore: d.rec.id.String(), HashAfter: d.rec.id.String(), Grantee: GranteeHash(grantee)})
		}
	}
	if err != nil {
		m.abort()
		return err
	}
	err = m.finish()
	// After the commit: a reader that loaded the old bitmap meanwhile
	// cannot store it any more (grantCache.put checks the generation). A
	// grant or revoke that changed nothing commits nothing and keeps the
	// cache.
	if anyChanged {
		s.grants.invalidate()
	}
	return err
}

// checkGrantOwner refuses a grant made as Public, and a ref that names
// nothing.
func checkGrantOwner(owner string, ref Ref) error {
	if owner == Public {
		return fmt.Errorf("%w: grants are made by a document's owner, a tenant: act as that tenant "+
			"(store.WithPrincipal, aqlstore --as DID, a bearer token); public documents are visible to every reader already", ErrInvalid)
	}
	if ref.ID.IsZero() && ref.Num == 0 {
		return fmt.Errorf("%w: name the document to grant by its content id (or number)", ErrInvalid)
	}
	return nil
}

// checkGrantee refuses grantees that are not another tenant, or would
// break the key layout.
func checkGrantee(owner, grantee string) error {
	switch {
	case grantee == "":
		return fmt.Errorf("%w: grantee is empty: name the tenant DID to grant to", ErrInvalid)
	case grantee == Public:
		return fmt.Errorf("%w: grantee %q is every reader, not a tenant: to show a document to everyone, "+
			"put it as a public document", ErrInvalid, grantee)
	case grantee == owner:
		return fmt.Errorf("%w: grantee %q owns the document already: grant to another tenant", ErrInvalid, grantee)
	case len(grantee) > 512:
		return fmt.Errorf("%w: grantee is %d bytes, over the limit of 512", ErrInvalid, len(grantee))
	}
	for i := 0; i < len(grantee); i++ {
		if grantee[i] == 0 {
			return fmt.Errorf("%w: grantee %q contains a NUL byte at byte %d", ErrInvalid, grantee, i)
		}
	}
	return nil
}

// grantReader is what grant reads need: the committed store (a view) or
// a mutation's batch.
type grantReader interface {
	get(key, dst []byte) ([]byte, bool, error)
	scan(start, end []byte, fn func(key, value []byte) error) error
}

// ownedDoc is one document of the principal that a grant names.
type ownedDoc struct {
	num uint32
	rec record
}

// ownedDocs returns owner's documents that ref names (see Grant);
// ErrNotFound when there is none.
func ownedDocs(r grantReader, ref Ref, owner string) ([]ownedDoc, error) {
	if ref.Owner != "" && ref.Owner != owner {
		return nil, ErrNotFound
	}
	nums := []uint32{ref.Num}
	if ref.Num == 0 {
		nums = nums[:0]
		start := append(AppendIDPrefix(nil, ref.ID, owner), 0)
		err := r.scan(start, prefixEnd(start), func(_, v []byte) error {
			if len(v) != 4 {
				return fmt.Errorf("%w: id key of %s holds %d bytes", ErrCorrupt, ref.ID, len(v))
			}
			nums = append(nums, binary.BigEndian.Uint32(v))
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("store: grant: %w", err)
		}
	}
	var out []ownedDoc
	for _, num := range nums {
		rec, found, err := readRecord(r.get, num)
		if err != nil {
			return nil, fmt.Errorf("store: grant: %w", err)
		}
		if !found && ref.Num == 0 {
			return nil, fmt.Errorf("%w: id key of %s names document %d, which has no record", ErrCorrupt, ref.ID, num)
		}
		if !found || rec.owner != owner || (!ref.ID.IsZero() && rec.id != ref.ID) {
			return nil, ErrNotFound
		}
		out = append(out, ownedDoc{num: num, rec: rec})
	}
	if len(out) == 0 {
		return nil, ErrNotFound
	}
	return out, nil
}

// granteesOf lists the grantees of document num.
func granteesOf(r grantReader, num uint32) ([]string, error) {
	var out []string
	start := appendGrantDocPrefix(nil, num)
	err := r.scan(start, prefixEnd(start), func(key, _ []byte) error {
		out = append(out, string(key[len(start):]))
		return nil
	})
	return out, err
}

// grant adds grantee's keys for document num; nothing when it has them.
func (m *mutation) grant(num uint32, rec *record, grantee string) (changed bool, err error) {
	key := appendGrantDocKey(nil, num, grantee)
	if _, found, err := m.b.get(key, nil); err != nil || found {
		return false, err
	}
	_ = m.b.set(key, nil)
	_ = m.b.set(binary.BigEndian.AppendUint32(appendGrantIDPrefix(nil, grantee, rec.id), num), nil)
	if rec.naturalKey != "" {
		_ = m.b.set(binary.BigEndian.AppendUint32(appendGrantNaturalPrefix(nil, grantee, rec.kind, rec.naturalKey), num), nil)
	}
	return true, m.updateGranted(grantee, num, true)
}

// revoke deletes grantee's keys for document num; nothing when it has
// none.
func (m *mutation) revoke(num uint32, rec *record, grantee string) (changed bool, err error) {
	key := appendGrantDocKey(nil, num, grantee)
	if _, found, err := m.b.get(key, nil); err != nil || !found {
		return false, err
	}
	_ = m.b.del(key)
	_ = m.b.del(binary.BigEndian.AppendUint32(appendGrantIDPrefix(nil, grantee, rec.id), num))
	if rec.naturalKey != "" {
		_ = m.b.del(binary.BigEndian.AppendUint32(appendGrantNaturalPrefix(nil, grantee, rec.kind, rec.naturalKey), num))
	}
	return true, m.updateGranted(grantee, num, false)
}

// dropGrants revokes every grant of document num, which the mutation
// deletes: nobody reads a deleted document, and the grant keys name its
// natural key, which must leave the disk with it.
func (m *mutation) dropGrants(num uint32, rec *record) error {
	grantees, err := granteesOf(m.b, num)
	if err != nil {
		return err
	}
	for _, g := range grantees {
		if _, err := m.revoke(num, rec, g); err != nil {
			return err
		}
	}
	return nil
}

// updateGranted adds num to, or removes it from, grantee's bitmap. It
// reads and rewrites the bitmap rather than merging an operand, so that
// the last revoke deletes the key and no grantee's DID stays behind.
func (m *mutation) updateGranted(grantee string, num uint32, add bool) error {
	key := appendGrantBitmapKey(nil, grantee)
	v, found, err := m.b.get(key, nil)
	if err != nil {
		return err
	}
	bm := roaring.New()
	if found {
		if bm, err = decodeBitmap(v); err != nil {
			return fmt.Errorf("store: grants of %s: %w", grantee, err)
		}
	}
	if add {
		bm.Add(num)
	} else {
		bm.Remove(num)
	}
	if bm.IsEmpty() {
		return m.b.del(key)
	}
	op, err := encodeOperand(nil, bm, nil)
	if err != nil {
		return err
	}
	return m.b.set(key, op)
}

// reader is who reads: a principal, and the documents granted to it as
// the grant cache had them when the read began (nil when they could not
// be read: every grant is then read from the store).
type reader struct {
	principal string
	granted   *roaring.Bitmap // shared with the cache: never modified
}

// readerOf is the context's principal as a reader.
func (s *Store) readerOf(ctx context.Context) reader { return s.readerFor(Principal(ctx)) }

func (s *Store) readerFor(principal string) reader {
	r := reader{principal: principal}
	if principal != Public {
		if bm, err := s.grantedShared(principal); err == nil {
			r.granted = bm
		}
	}
	return r
}

// sees reports whether r may read document num, owned by owner: a public
// document, its own, or one granted to it. A document of another tenant
// is looked up in r.granted first, so that a full scan by a reader
// without grants reads nothing more than before grants existed; one that
// is there is confirmed by its grant key, read through get as of the
// caller's view (a revoke may have happened since the read began). A
// grant made while the read began may or may not be seen; one made
// before it is (Grant empties the cache before it returns).
func sees(get func(key, dst []byte) ([]byte, bool, error), r reader, num uint32, owner string) (bool, error) {
	if visible(r.principal, owner) {
		return true, nil
	}
	if r.principal == Public || r.granted != nil && !r.granted.Contains(num) {
		return false, nil
	}
	_, found, err := get(appendGrantDocKey(nil, num, r.principal), nil)
	return found, err
}

// hasGrants reports whether anything is granted to grantee, from the
// cache: the read paths skip their grant lookups for readers without.
func (s *Store) hasGrants(grantee string) (bool, error) {
	bm, err := s.grantedShared(grantee)
	return err == nil && !bm.IsEmpty(), err
}

// grantedByID returns the lowest-numbered document with content id that
// is granted to grantee.
func (s *Store) grantedByID(id canon.ContentID, grantee string) (uint32, error) {
	if ok, err := s.hasGrants(grantee); err != nil || !ok {
		return 0, orNotFound(err)
	}
	return s.firstGranted(appendGrantIDPrefix(nil, grantee, id))
}

// grantedByKey returns the lowest-numbered document of kind with natural
// key key that is granted to grantee.
func (s *Store) grantedByKey(kind canon.Kind, key, grantee string) (uint32, error) {
	if ok, err := s.hasGrants(grantee); err != nil || !ok {
		return 0, orNotFound(err)
	}
	return s.firstGranted(appendGrantNaturalPrefix(nil, grantee, kind, key))
}

// firstGranted returns the number of the first key that is prefix and a
// number: a longer natural key that starts with this one and a NUL has
// more bytes between them.
func (s *Store) firstGranted(prefix []byte) (uint32, error) {
	num, found := uint32(0), false
	err := s.kv.scan(prefix, prefixEnd(prefix), func(key, _ []byte) error {
		if len(key) != len(prefix)+4 {
			return nil
		}
		num, found = binary.BigEndian.Uint32(key[len(prefix):]), true
		return errStopScan
	})
	if err != nil && err != errStopScan {
		return 0, fmt.Errorf("store: grants: %w", err)
	}
	if !found {
		return 0, ErrNotFound
	}
	return num, nil
}

func orNotFound(err error) error {
	if err != nil {
		return err
	}
	return ErrNotFound
}

// grantedObservations appends the observations of envelopeID granted to
// grantee.
func (s *Store) grantedObservations(grantee, envelopeIDPrefix string, obs []*Observation) ([]*Observation, error) {
	if ok, err := s.hasGrants(grantee); err != nil || !ok {
		return obs, err
	}
	prefix := append(appendGrantKindPrefix(nil, grantee, canon.KindAIDPObservation), envelopeIDPrefix...)
	err := s.kv.scan(prefix, prefixEnd(prefix), func(key, _ []byte) error {
		o, err := s.observation(binary.BigEndian.Uint32(key[len(key)-4:]))
		if err == nil && o != nil {
			obs = append(obs, o)
		}
		return err
	})
	return obs, err
}

// grantCache keeps each reader's granted bitmap, so that planning a query
// costs a map lookup, not a Pebble read, and a reader without grants pays
// nothing more than before grants existed. Grant and Revoke empty it
// after they commit; a reader that read its bitmap before such a commit
// must not store it after (gen), or a revoked document would stay in the
// cache. A delete leaves it: its bitmap then still holds a number that no
// live document has, which every user of it tolerates (see Granted).
type grantCache struct {
	mu  sync.Mutex
	gen uint64
	m   map[string]*roaring.Bitmap
}

// grantCacheMax bounds the readers cached; the cache is emptied when it
// fills.
const grantCacheMax = 4096

// get returns the cached bitmap of grantee (shared: never modify it), or
// nil and the generation a later put must present.
func (c *grantCache) get(grantee string) (*roaring.Bitmap, uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[grantee], c.gen
}

// put caches bm for grantee if no grant changed since gen.
func (c *grantCache) put(grantee string, bm *roaring.Bitmap, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return
	}
	if c.m == nil || len(c.m) >= grantCacheMax {
		c.m = map[string]*roaring.Bitmap{}
	}
	c.m[grantee] = bm
}

func (c *grantCache) invalidate() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	c.m = nil
}
