package store

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"sort"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/canon/aidp"
)

// Observation is a stored AIDP observation as a reader receives it.
type Observation struct {
	Doc         *StoredDoc
	EnvelopeID  string
	ExecutionID string
	Status      aidp.Status
	// Quarantined is set while the observation's envelope is not stored
	// (it was put with QuarantineUnbound); it then has no audit record.
	Quarantined bool
	// Audit is the §11.6.9 audit record (RFC 8785) of a bound observation,
	// and AuditDigest the sha256 of those bytes.
	Audit       []byte
	AuditDigest canon.ContentID
}

// ObservationsFor returns the observations of envelopeID that the
// context's principal may see (its own, those granted to it, and public
// ones): with all, every one, ordered by payload timestamp, then document
// number; without, only the latest (the last of that order), as AIDP
// pull mode serves by default. No visible observation is ErrNotFound.
// Safe for concurrent use; the result belongs to the caller.
func (s *Store) ObservationsFor(ctx context.Context, envelopeID string, all bool) ([]*Observation, error) {
	var obs []*Observation
	for _, owner := range readOwners(Principal(ctx)) {
		prefix := AppendNaturalKey(nil, canon.KindAIDPObservation, owner, aidp.EnvelopePrefix(envelopeID))
		err := s.kv.scan(prefix, prefixEnd(prefix), func(_, v []byte) error {
			o, err := s.observation(binary.BigEndian.Uint32(v))
			if err == nil && o != nil {
				obs = append(obs, o)
			}
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("store: observations of %q: %w", envelopeID, err)
		}
	}
	obs, err := s.grantedObservations(Principal(ctx), aidp.EnvelopePrefix(envelopeID), obs)
	if err != nil {
		return nil, fmt.Errorf("store: observations of %q: %w", envelopeID, err)
	}
	if len(obs) == 0 {
		return nil, ErrNotFound
	}
	sort.SliceStable(obs, func(i, j int) bool {
		ti, tj := obs[i].timestamp(), obs[j].timestamp()
		if ti != tj {
			return ti < tj
		}
		return obs[i].Doc.Num < obs[j].Doc.Num
	})
	if !all {
		obs = obs[len(obs)-1:]
	}
	return obs, nil
}

func (o *Observation) timestamp() string {
	ts, _ := canon.Lookup(o.Doc.Body, "payload", "timestamp")
	t, _ := canon.RawString(ts)
	if i, ok := canon.ParseInstant(t); ok {
		return i.UTC().Format("2006-01-02T15:04:05.000000000Z")
	}
	return t
}

// observation reads document num as an Observation; nil if it is not one.
func (s *Store) observation(num uint32) (*Observation, error) {
	doc, err := s.docByNum(num)
	if err == ErrNotFound || (err == nil && doc.Kind != canon.KindAIDPObservation) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	env, exec, _ := aidp.SplitObservationKey(doc.NaturalKey)
	o := &Observation{Doc: doc, EnvelopeID: env, ExecutionID: exec}
	st, _ := canon.Lookup(doc.Body, "payload", "status")
	status, _ := canon.RawString(st)
	o.Status = aidp.Status(status)
	v, found, err := s.kv.get(AppendAuditKey(nil, doc.Owner, env, exec), nil)
	if err != nil {
		return nil, err
	}
	if found && len(v) > len(o.AuditDigest) {
		copy(o.AuditDigest[:], v)
		o.Audit = v[len(o.AuditDigest):]
		return o, nil
	}
	_, o.Quarantined, err = s.kv.get(AppendQuarantineKey(nil, env, doc.Owner, num), nil)
	return o, err
}

// InboxPage is one page of Inbox.
type InboxPage struct {
	Docs       []*StoredDoc
	NextCursor string // "" on the last page
	// Resume is where to poll later for what arrives after this page: a
	// cursor after its last document, or the cursor given when the page is
	// empty ("" for the start). An inbox has queue semantics (AIDP §22.8),
	// so a reader that has read the last page keeps Resume, not nothing.
	Resume string
}

// InboxKinds are the kinds Inbox lists by default: what an agent receives
// in AIDP pull mode.
var InboxKinds = []canon.Kind{canon.KindAIDPObservation, canon.KindAIDPProblem}

// Inbox lists, in arrival (document number) order, the AIDP messages of
// kinds (nil: InboxKinds) that the context's principal may see, limit
// (1–100) at a time. cursor is "" for the first page, else a NextCursor
// of an earlier page: it is opaque, names only a position, and never
// skips or repeats a document however many arrive between pages. A
// malformed cursor or limit is ErrInvalid.
func (s *Store) Inbox(ctx context.Context, cursor string, limit int, kinds []canon.Kind) (*InboxPage, error) {
	if limit < 1 || limit > 100 {
		return nil, fmt.Errorf("%w: inbox limit %d is outside 1-100", ErrInvalid, limit)
	}
	after, err := decodeInboxCursor(cursor)
	if err != nil {
		return nil, err
	}
	if kinds == nil {
		kinds = InboxKinds
	}
	principal := s.readerOf(ctx)
	var nums []uint32
	for _, k := range kinds {
		// limit+1 visible documents per kind are enough to fill the page
		// and to know whether another follows.
		got, err := s.kindNumsAfter(ctx, k, after, limit+1, principal)
		if err != nil {
			return nil, err
		}
		nums = append(nums, got...)
	}
	sort.Slice(nums, func(i, j int) bool { return nums[i] < nums[j] })
	page := &InboxPage{Resume: cursor}
	if len(nums) > limit {
		nums = nums[:limit]
		page.NextCursor = encodeInboxCursor(nums[limit-1])
	}
	if len(nums) > 0 {
		page.Resume = encodeInboxCursor(nums[len(nums)-1])
	}
	for _, n := range nums {
		doc, err := s.docByNum(n)
		if err == ErrNotFound {
			continue
		}
		if err != nil {
			return nil, err
		}
		page.Docs = append(page.Docs, doc)
	}
	return page, nil
}

// kindNumsAfter returns up to n numbers above after of kind's documents
// that principal may see.
func (s *Store) kindNumsAfter(ctx context.Context, kind canon.Kind, after uint32, n int, principal reader) ([]uint32, error) {
	var out []uint32
	start := AppendKindKey(nil, kind, after+1)
	if after == ^uint32(0) {
		return nil, nil
	}
	err := s.kv.scan(start, prefixEnd(AppendKindPrefix(nil, kind)), func(key, _ []byte) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		num := binary.BigEndian.Uint32(key[len(key)-4:])
		rec, found, err := readRecord(s.kv.get, num)
		if err != nil || !found {
			return err
		}
		if ok, err := sees(s.kv.get, principal, num, rec.owner); err != nil || !ok {
			return err
		}
		if out = append(out, num); len(out) >= n {
			return errStopScan
		}
		return nil
	})
	if err != nil && err != errStopScan {
		return nil, fmt.Errorf("store: inbox: %w", err)
	}
	return out, nil
}

const inboxCursorVersion = 1

func encodeInboxCursor(num uint32) string {
	b := binary.BigEndian.AppendUint32([]byte{inboxCursorVersion}, num)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeInboxCursor(c string) (uint32, error) {
	if c == "" {
		return 0, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil || len(b) != 5 || b[0] != inboxCursorVersion {
		return 0, fmt.Errorf("%w: inbox cursor %q is not one Inbox returned", ErrInvalid, c)
	}
	return binary.BigEndian.Uint32(b[1:]), nil
}
