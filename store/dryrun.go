package store

import "context"

// DryRun checks documents as a sequence of puts would, storing nothing:
// each Put sees the committed store plus the dry run's own earlier
// documents (an observation after its envelope binds, a PAIRL reply finds
// its parent). Importers check a whole input with one DryRun before
// committing any of it. A DryRun is not safe for concurrent use; it holds
// no lock, so commits by others between its Puts are seen by later Puts.
type DryRun struct {
	s   *Store
	ctx context.Context
	m   *mutation
}

// dryRunBytes bounds the scratch batch; past it the dry run starts a new
// one, and documents before that point are checked against the store only.
const dryRunBytes = 64 << 20

// DryRun starts a dry run acting as ctx's principal. Close it when done.
func (s *Store) DryRun(ctx context.Context) *DryRun {
	d := &DryRun{s: s, ctx: ctx}
	d.reset()
	return d
}

func (d *DryRun) reset() {
	if d.m != nil {
		d.m.abort()
	}
	d.s.mu.Lock()
	d.m = d.s.newMutation(d.ctx)
	d.s.mu.Unlock()
	d.m.dry = true
}

// Put returns what Store.Put would return for doc after the dry run's
// earlier documents: the Ref it would get (its number is provisional) or
// the error.
func (d *DryRun) Put(doc Document) (Ref, error) {
	if d.m.b.size() > dryRunBytes {
		d.reset()
	}
	p, err := d.s.parsed(doc)
	if err != nil {
		return Ref{}, err
	}
	owner := doc.Owner
	if owner == "" {
		owner = Principal(d.ctx)
	}
	if err := checkOwner(owner); err != nil {
		return Ref{}, err
	}
	return d.m.put(newPrepared(p, owner, doc.Unbound))
}

// Close discards the dry run.
func (d *DryRun) Close() {
	if d.m != nil {
		d.m.abort()
		d.m = nil
	}
}
