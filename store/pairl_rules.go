package store

import (
	"encoding/binary"
	"fmt"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/canon/pairl"
)

// storedPAIRL is a PAIRL message of the store (or of the mutation).
type storedPAIRL struct {
	msg   *pairl.Message
	owner string
	num   uint32
}

// edge kinds of PAIRL edge keys.
const (
	edgeParent byte = 'p'
	edgeDeps   byte = 'd'
)

type pairlEdge struct {
	to   string
	kind byte
}

// pairlEdges lists m's DAG edges: @parent, then each @deps entry.
func pairlEdges(m *pairl.Message) []pairlEdge {
	var out []pairlEdge
	if p := m.Parent(); p != "" {
		out = append(out, pairlEdge{p, edgeParent})
	}
	for _, d := range m.Deps() {
		out = append(out, pairlEdge{d, edgeDeps})
	}
	return out
}

// mutationThread resolves @mids for one owner's PAIRL message through the
// mutation's batch: the owner's own message, else the public one.
type mutationThread struct {
	m     *mutation
	owner string
	err   error // the first read error; Lookup cannot return one
}

// Lookup implements pairl.Thread.
func (t *mutationThread) Lookup(mid string) (*pairl.Message, bool) {
	sp, err := t.m.lookupPAIRL(t.owner, mid)
	if err != nil && t.err == nil {
		t.err = err
	}
	if sp == nil {
		return nil, false
	}
	return sp.msg, true
}

func (m *mutation) lookupPAIRL(owner, mid string) (*storedPAIRL, error) {
	for _, o := range readOwners(owner) {
		sp, err := m.loadPAIRL(o, mid)
		if sp != nil || err != nil {
			return sp, err
		}
	}
	return nil, nil
}

// loadPAIRL returns owner's message mid, read once per mutation.
func (m *mutation) loadPAIRL(owner, mid string) (*storedPAIRL, error) {
	if sp, ok := m.threads.byMID[owner+"\x00"+mid]; ok {
		return sp, nil
	}
	v, found, err := m.b.get(AppendNaturalKey(nil, canon.KindPAIRL, owner, mid), nil)
	if err != nil || !found {
		return nil, err
	}
	num := binary.BigEndian.Uint32(v)
	return m.loadPAIRLNum(num)
}

func (m *mutation) loadPAIRLNum(num uint32) (*storedPAIRL, error) {
	if sp, ok := m.threads.byNum[num]; ok {
		return sp, nil
	}
	rec, body, err := m.load(num)
	if err != nil {
		return nil, err
	}
	msg, err := parseStoredPAIRL(body)
	if err != nil {
		return nil, err
	}
	sp := &storedPAIRL{msg: msg, owner: rec.owner, num: num}
	m.remember(sp)
	return sp, nil
}

// pairlCache holds the PAIRL messages a mutation has read or written.
type pairlCache struct {
	byMID map[string]*storedPAIRL // owner NUL mid
	byNum map[uint32]*storedPAIRL
	byMsg map[*pairl.Message]*storedPAIRL
}

func (m *mutation) remember(sp *storedPAIRL) {
	c := &m.threads
	if c.byMID == nil {
		*c = pairlCache{byMID: map[string]*storedPAIRL{}, byNum: map[uint32]*storedPAIRL{}, byMsg: map[*pairl.Message]*storedPAIRL{}}
	}
	c.byMID[sp.owner+"\x00"+sp.msg.MID()] = sp
	c.byNum[sp.num] = sp
	c.byMsg[sp.msg] = sp
}

// storedOf returns the stored message behind a *pairl.Message the thread
// returned.
func (m *mutation) storedOf(msg *pairl.Message) *storedPAIRL { return m.threads.byMsg[msg] }

// checkPAIRL applies the rules over the stored thread: V4 (strict_refs),
// V7 (cycles through stored messages; an error in strict mode) and V8 (the
// spend of the governing @budget's scope, stored messages included).
func (m *mutation) checkPAIRL(p *Parsed, owner string) (messagePlan, error) {
	msg := p.PAIRL
	th := &mutationThread{m: m, owner: owner}
	ps := pairl.Validate(msg, pairl.Options{Mode: p.opts.PAIRLMode, StrictRefs: p.opts.StrictRefs, Thread: th})
	if th.err != nil {
		return messagePlan{}, th.err
	}
	var bad []pairl.Problem
	for _, pr := range ps {
		if pr.Severity == pairl.SeverityError && (pr.Code == pairl.CodeV4 || pr.Code == pairl.CodeV7) {
			bad = append(bad, pr)
		}
	}
	if len(bad) > 0 {
		return messagePlan{}, &MessageError{Kind: p.Kind, Line: bad[0].Line, Key: msg.MID(), Err: ErrThread,
			Reason: fmt.Sprintf("[%s] %s", bad[0].Code, bad[0].Description), Fix: bad[0].Fix, Cause: pairl.Err(bad)}
	}
	return m.checkBudget(p, th)
}

func (m *mutation) checkBudget(p *Parsed, th *mutationThread) (messagePlan, error) {
	msg := p.PAIRL
	b := pairl.Governing(msg, th, 0)
	if th.err != nil {
		return messagePlan{}, th.err
	}
	switch {
	case b == nil:
		return messagePlan{}, nil
	case b == msg:
		return messagePlan{self: true}, nil // its own budget was checked by ParseDocument
	}
	sb := m.storedOf(b)
	if sb == nil {
		return messagePlan{}, fmt.Errorf("store: PAIRL budget message %s was read but not remembered", b.MID())
	}
	scope, err := m.governed(sb)
	if err != nil {
		return messagePlan{}, err
	}
	for _, pr := range pairl.CheckBudget(b, append(scope, msg), p.opts.PAIRLMode) {
		if pr.Severity == pairl.SeverityError {
			return messagePlan{}, &MessageError{Kind: p.Kind, Key: msg.MID(), Err: ErrThread,
				Reason: fmt.Sprintf("[%s] with this message, the thread under %s: %s", pr.Code, b.MID(), pr.Description),
				Fix:    pr.Fix, Cause: pairl.Err([]pairl.Problem{pr})}
		}
	}
	return messagePlan{budget: sb}, nil
}

// governed returns the stored messages of sb's budget scope.
func (m *mutation) governed(sb *storedPAIRL) ([]*pairl.Message, error) {
	prefix := AppendGovernedPrefix(nil, sb.owner, sb.msg.MID())
	var out []*pairl.Message
	err := m.b.scan(prefix, prefixEnd(prefix), func(key, _ []byte) error {
		sp, err := m.loadPAIRLNum(binary.BigEndian.Uint32(key[len(key)-4:]))
		if err == nil {
			out = append(out, sp.msg)
		}
		return err
	})
	return out, err
}
