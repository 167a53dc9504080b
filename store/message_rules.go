package store

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/canon/aidp"
)

// The rules of the message kinds, applied inside the mutation that puts
// a message, so that the checks and the keys they write commit in the one
// batch of the put (the writer lock serializes mutations, so a check and
// its write cannot interleave with another put's).

// messagePlan carries what a message's checks found to writeMessage.
type messagePlan struct {
	envelope *aidp.Envelope // an observation's envelope; nil: quarantine
	budget   *storedPAIRL   // the message whose @budget governs a PAIRL message
	self     bool           // the PAIRL message governs itself
}

// checkMessage applies the rules that need the store, before anything of
// the document is written.
func (m *mutation) checkMessage(p *Parsed, owner string, unbound UnboundPolicy) (messagePlan, error) {
	switch {
	case p.Exec != nil:
		return messagePlan{}, m.checkExec(p, owner)
	case p.AIDP != nil && p.AIDP.Observation != nil:
		return m.checkObservation(p, owner, unbound)
	case p.PAIRL != nil:
		return m.checkPAIRL(p, owner)
	}
	return messagePlan{}, nil
}

// replayOf turns a natural-key conflict of an AIDP message into the
// replay error its protocol names.
func replayOf(p *Parsed, err error) error {
	var ce *ConflictError
	if !errors.As(err, &ce) || p.AIDP == nil {
		return err
	}
	re := &ReplayError{Kind: p.Kind, Key: "envelope_id", Pointer: "/payload/envelope_id", Value: p.NaturalKey,
		Existing: ce.Existing, Incoming: ce.Incoming}
	if env, exec, ok := aidp.SplitObservationKey(p.NaturalKey); ok {
		re.Key, re.Pointer, re.Value = "(envelope_id, execution_id)", "/payload/execution_id", env+" / "+exec
	}
	return re
}

// uniqueKeys lists an ExecutionIntent's replay-protected keys.
func uniqueKeys(p *Parsed) []struct{ class, name, ptr, value, shown string } {
	in := p.Exec
	return []struct{ class, name, ptr, value, shown string }{
		{"replay", "(tenantId, idempotencyKey)", "/idempotencyKey", in.ReplayKey(), in.TenantID + " / " + in.IdempotencyKey},
		{"nonce", "(tenantId, nonce)", "/nonce", in.NonceKey(), in.TenantID + " / " + in.Nonce},
	}
}

func (m *mutation) checkExec(p *Parsed, owner string) error {
	for _, u := range uniqueKeys(p) {
		v, found, err := m.b.get(AppendUniqueKey(nil, p.Kind, owner, u.class, u.value), nil)
		if err != nil || !found {
			if err != nil {
				return err
			}
			continue
		}
		rec, err := m.record(binary.BigEndian.Uint32(v))
		if err != nil {
			return err
		}
		return &ReplayError{Kind: p.Kind, Key: u.name, Pointer: u.ptr, Value: u.shown,
			Existing: rec.id.String(), Incoming: p.ID().String()}
	}
	return nil
}

// checkObservation binds an observation to its stored envelope (the
// owner's own, else the public one), or plans its quarantine.
func (m *mutation) checkObservation(p *Parsed, owner string, unbound UnboundPolicy) (messagePlan, error) {
	ob := p.AIDP.Observation
	env, err := m.envelope(owner, ob.EnvelopeID)
	if err != nil {
		return messagePlan{}, err
	}
	if env == nil {
		if unbound == QuarantineUnbound {
			return messagePlan{}, nil
		}
		return messagePlan{}, &MessageError{Kind: p.Kind, Pointer: "/payload/envelope_id", Key: ob.EnvelopeID, Err: ErrUnbound,
			Reason: fmt.Sprintf("no intent envelope with this envelope_id is stored for %s or public", owner),
			Fix:    "put the IE first, or put the observation with quarantine (it binds when the IE arrives)"}
	}
	if err := aidp.Bind(env, ob); err != nil {
		return messagePlan{}, fmt.Errorf("store: observation %s does not satisfy its envelope: %w", ob.ExecutionID, err)
	}
	return messagePlan{envelope: env}, nil
}

// envelope returns the stored envelope envelopeID that owner sees, nil
// when there is none.
func (m *mutation) envelope(owner, envelopeID string) (*aidp.Envelope, error) {
	for _, o := range readOwners(owner) {
		v, found, err := m.b.get(AppendNaturalKey(nil, canon.KindAIDPEnvelope, o, envelopeID), nil)
		if err != nil {
			return nil, err
		}
		if !found {
			continue
		}
		_, body, err := m.load(binary.BigEndian.Uint32(v))
		if err != nil {
			return nil, err
		}
		msg, err := parseStoredAIDP(body)
		if err != nil {
			return nil, err
		}
		return msg.Envelope, nil
	}
	return nil, nil
}

func parseStoredAIDP(body []byte) (*aidp.Message, error) {
	lim := canon.Limits{MaxBytes: len(body) + 1, MaxDepth: 1 << 10, MaxMembers: 1 << 30}.WithoutPathLimits()
	msg, err := aidp.Parse(body, &aidp.Options{AllowUnsignedObservations: true, Limits: &lim})
	if err != nil {
		return nil, fmt.Errorf("%w: stored AIDP message: %v", ErrCorrupt, err)
	}
	return msg, nil
}

// load reads document num's record and body through the mutation's batch.
func (m *mutation) load(num uint32) (record, []byte, error) {
	rec, err := m.record(num)
	if err != nil {
		return rec, nil, err
	}
	body, err := readBody(m.b.get, num, &rec)
	return rec, body, err
}

// writeMessage writes the message keys of document num and lists them
// under its owned key.
func (m *mutation) writeMessage(num uint32, p *Parsed, owner string, plan messagePlan) error {
	var owned [][]byte
	set := func(key, value []byte) {
		_ = m.b.set(key, value)
		owned = append(owned, key)
	}
	numBytes := binary.BigEndian.AppendUint32(nil, num)
	switch {
	case p.Exec != nil:
		for _, u := range uniqueKeys(p) {
			set(AppendUniqueKey(nil, p.Kind, owner, u.class, u.value), numBytes)
		}
	case p.AIDP != nil && p.AIDP.Observation != nil:
		ob := p.AIDP.Observation
		if plan.envelope == nil {
			set(AppendQuarantineKey(nil, ob.EnvelopeID, owner, num), nil)
			break
		}
		key, value, err := auditEntry(plan.envelope, ob, owner)
		if err != nil {
			return err
		}
		set(key, value)
	case p.AIDP != nil && p.AIDP.Envelope != nil:
		if err := m.bindQuarantined(p.AIDP.Envelope, owner); err != nil {
			return err
		}
	case p.PAIRL != nil:
		msg := p.PAIRL
		for _, e := range pairlEdges(msg) {
			set(binary.BigEndian.AppendUint32(AppendEdgePrefix(nil, owner, e.to), num), []byte{e.kind})
		}
		switch {
		case plan.self:
			set(binary.BigEndian.AppendUint32(AppendGovernedPrefix(nil, owner, msg.MID()), num), nil)
		case plan.budget != nil:
			set(binary.BigEndian.AppendUint32(AppendGovernedPrefix(nil, plan.budget.owner, plan.budget.msg.MID()), num), nil)
		}
		m.remember(&storedPAIRL{msg: msg, owner: owner, num: num})
	}
	if len(owned) == 0 {
		return nil
	}
	return m.b.set(AppendOwnedKey(nil, num), encodeKeyList(owned))
}

// auditEntry returns the audit key of ob and its value: the sha256 of the
// §11.6.9 record's RFC 8785 bytes, then those bytes.
func auditEntry(env *aidp.Envelope, ob *aidp.Observation, owner string) ([]byte, []byte, error) {
	rec, digest, err := aidp.AuditDigest(env, ob)
	if err != nil {
		return nil, nil, fmt.Errorf("store: audit record of %s: %w", ob.ExecutionID, err)
	}
	value := append(append([]byte(nil), digest[:]...), canon.AppendValue(nil, rec)...)
	return AppendAuditKey(nil, owner, ob.EnvelopeID, ob.ExecutionID), value, nil
}

// bindQuarantined binds the observations quarantined for env that its
// owner's readers see (all of them for a public envelope, else the
// owner's), in the batch that stores env. One that aidp.Bind refuses stays
// quarantined.
func (m *mutation) bindQuarantined(env *aidp.Envelope, envOwner string) error {
	prefix := AppendQuarantinePrefix(nil, env.EnvelopeID)
	type waiting struct {
		key   []byte
		owner string
		num   uint32
	}
	var found []waiting
	err := m.b.scan(prefix, prefixEnd(prefix), func(key, _ []byte) error {
		rest := key[len(prefix):]
		if len(rest) < 5 || rest[len(rest)-5] != 0 {
			return fmt.Errorf("%w: quarantine key %q", ErrCorrupt, key)
		}
		owner := string(rest[:len(rest)-5])
		if envOwner == Public || owner == envOwner {
			found = append(found, waiting{key, owner, binary.BigEndian.Uint32(rest[len(rest)-4:])})
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, w := range found {
		if err := m.bind(env, w.key, w.owner, w.num); err != nil {
			return err
		}
	}
	return nil
}

func (m *mutation) bind(env *aidp.Envelope, qkey []byte, owner string, num uint32) error {
	_, body, err := m.load(num)
	if err != nil {
		return err
	}
	msg, err := parseStoredAIDP(body)
	if err != nil {
		return err
	}
	if msg.Observation == nil || aidp.Bind(env, msg.Observation) != nil {
		return nil
	}
	akey, value, err := auditEntry(env, msg.Observation, owner)
	if err != nil {
		return err
	}
	_ = m.b.del(qkey)
	_ = m.b.set(akey, value)
	owned, err := m.ownedKeys(num)
	if err != nil {
		return err
	}
	for i, k := range owned {
		if string(k) == string(qkey) {
			owned[i] = akey
		}
	}
	return m.b.set(AppendOwnedKey(nil, num), encodeKeyList(owned))
}

// ownedKeys returns the message keys document num owns.
func (m *mutation) ownedKeys(num uint32) ([][]byte, error) {
	v, found, err := m.b.get(AppendOwnedKey(nil, num), nil)
	if err != nil || !found {
		return nil, err
	}
	keys, ok := decodeKeyList(v)
	if !ok {
		return nil, fmt.Errorf("%w: message keys of document %d", ErrCorrupt, num)
	}
	return keys, nil
}

// deleteMessageKeys deletes the message keys document num owns.
func (m *mutation) deleteMessageKeys(num uint32) error {
	keys, err := m.ownedKeys(num)
	if err != nil {
		return err
	}
	for _, k := range keys {
		_ = m.b.del(k)
	}
	if keys != nil {
		return m.b.del(AppendOwnedKey(nil, num))
	}
	return nil
}
