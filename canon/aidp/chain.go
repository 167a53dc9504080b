package aidp

import (
	"strconv"
)

func itoa(i int) string { return strconv.Itoa(i) }

// semantics runs the envelope checks that need no outside state: the
// shape of the delegation chain (§22.16.2 step 8) and constraints that no
// execution can ever satisfy (step 10). Both are cheap, and §11.6.10 asks
// for cheap rejection first.
func (e *Envelope) semantics() ErrorList {
	errs := e.chainErrors()
	return append(errs, e.constraintErrors()...)
}

const chainPtr = "/payload/delegation_chain/"

// chainErrors checks that the links form one unbroken path of delegation
// and that the path involves the exercised capability. The draft calls
// the chain "ordered" without saying which way, so the checks do not
// depend on the order of the array; they follow parent_cap_id.
func (e *Envelope) chainErrors() ErrorList {
	links := e.DelegationChain
	if len(links) == 0 {
		return nil
	}
	c := &checker{code: CodeInvalidDelegationChain}
	byCap := map[string]int{}
	byParent := map[string]int{}
	for i, l := range links {
		switch j, dup := byCap[l.CapID]; {
		case l.ParentCapID == l.CapID:
			c.fail(chainPtr+itoa(i)+"/parent_cap_id", "capability %q names itself as its parent", l.CapID)
		case dup:
			c.fail(chainPtr+itoa(i)+"/cap_id", "capability %q appears twice (also at %s%d)", l.CapID, chainPtr, j)
		}
		if j, fork := byParent[l.ParentCapID]; fork {
			c.fail(chainPtr+itoa(i)+"/parent_cap_id",
				"capabilities at %s%d and %s%d share parent %q: a chain is a single path", chainPtr, j, chainPtr, i, l.ParentCapID)
		}
		byCap[l.CapID], byParent[l.ParentCapID] = i, i
	}
	if len(c.errs) > 0 {
		return c.errs
	}
	root := e.walkChain(c, byCap, byParent)
	if root >= 0 && !e.chainHasAuthority(links[root].ParentCapID, byCap) {
		c.fail("/payload/authority_ref/cap_id", "authority_ref.cap_id %q is not a capability of delegation_chain",
			e.AuthorityRef.CapID)
	}
	return c.errs
}

// walkChain finds the root link (the one whose parent is outside the
// chain), walks the path from it and reports the links the walk never
// reaches: a second root is a gap, and with no gap an unreached link is in
// a cycle. It returns the root's index, or -1 when there is none.
func (e *Envelope) walkChain(c *checker, byCap, byParent map[string]int) int {
	links := e.DelegationChain
	root, gap := -1, false
	for i, l := range links {
		if _, inside := byCap[l.ParentCapID]; inside {
			continue
		}
		if root >= 0 {
			gap = true
			c.fail(chainPtr+itoa(i)+"/parent_cap_id", "chain is broken: parent %q of %q is not in the chain, and %s%d already starts it",
				l.ParentCapID, l.CapID, chainPtr, root)
			continue
		}
		root = i
	}
	seen := make([]bool, len(links))
	// Unique cap_ids and parents make the walk a simple path; the bound
	// is a guard, not a rule.
	for i, n := root, 0; i >= 0 && n < len(links); n++ {
		seen[i] = true
		next, ok := byParent[links[i].CapID]
		if !ok {
			break
		}
		i = next
	}
	for i := range links {
		if !seen[i] && !gap {
			c.fail(chainPtr+itoa(i)+"/parent_cap_id", "capability %q is in a delegation cycle", links[i].CapID)
		}
	}
	return root
}

// chainHasAuthority reports whether the exercised capability is on the
// path: a delegated capability, or the root's parent. The draft does not
// say which end authority_ref names (Flow 2 can be read both ways), so
// either end is accepted; a chain unrelated to it is not.
func (e *Envelope) chainHasAuthority(rootParent string, byCap map[string]int) bool {
	_, ok := byCap[e.AuthorityRef.CapID]
	return ok || e.AuthorityRef.CapID == rootParent
}

// constraintErrors reports constraints no execution can satisfy.
func (e *Envelope) constraintErrors() ErrorList {
	c := &checker{code: CodeConstraintViolation}
	k := e.Constraints
	const ptr = "/payload/constraints/"
	switch {
	case k.NotBefore != nil && k.NotAfter != nil && k.NotAfter.Before(*k.NotBefore):
		c.fail(ptr+"not_after", "not_after is before not_before: the time window is empty")
	case k.NotAfter != nil && k.NotAfter.Before(e.Timestamp):
		c.fail(ptr+"not_after", "not_after is before the envelope's timestamp: it expired before it was issued")
	}
	if k.MaxUses != nil && *k.MaxUses == 0 {
		c.fail(ptr+"max_uses", "max_uses is 0: the envelope can never be executed")
	}
	return c.errs
}
