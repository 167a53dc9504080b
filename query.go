package aqlstore

import (
	"context"
	"fmt"

	"github.com/aqlstore/aqlstore/query"
	"github.com/aqlstore/aqlstore/query/aql"
	"github.com/aqlstore/aqlstore/query/sign"
)

// Query resolves an AQL intent (RFC 0020, JSON) and returns the signed
// response. The reader is the intent's issuer when its signature
// verifies, else the context's principal; either way it sees public
// documents and its own, never another tenant's. An intent that does not
// validate is an error naming the JSON Pointer of every problem
// (*aql.InvalidError); one outside its validity window, an
// *aql.ValidityError.
func (db *DB) Query(ctx context.Context, intent []byte) (*Response, error) {
	ctx, in, o, err := db.prepare(ctx, intent)
	if err != nil {
		return nil, err
	}
	if err := db.enter(); err != nil {
		return nil, err
	}
	defer db.life.RUnlock()
	return query.Resolve(ctx, db.s, in, o)
}

// Explain resolves intent as Query does and returns its index plan: the
// operators, their estimated and actual cardinalities and exactness.
// Plan.String adds the time per node; Plan.Shape leaves it out.
func (db *DB) Explain(ctx context.Context, intent []byte) (*Plan, error) {
	ctx, in, o, err := db.prepare(ctx, intent)
	if err != nil {
		return nil, err
	}
	if err := db.enter(); err != nil {
		return nil, err
	}
	defer db.life.RUnlock()
	var plan *Plan
	o.PageSize, o.MaxRejected = 1<<30, -1
	o.Explain = func(p *Plan) { plan = p }
	if _, err := query.Resolve(ctx, db.s, in, o); err != nil {
		return nil, err
	}
	return plan, nil
}

// prepare parses intent and builds the resolution's options.
func (db *DB) prepare(ctx context.Context, intent []byte) (context.Context, *aql.Intent, *query.Options, error) {
	ctx, err := db.context(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	in, err := aql.Parse(intent, nil)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("intent: %w", err)
	}
	signer, err := db.signerFor()
	if err != nil {
		return nil, nil, nil, err
	}
	return ctx, in, &query.Options{Signer: signer, Keys: db.opts.Keys, At: db.opts.Now(), Index: db.ix}, nil
}

// signerFor returns the response signer, loading or creating KeyFile the
// first time a query needs it: a DB that only stores never writes a key.
func (db *DB) signerFor() (*sign.Signer, error) {
	db.mu.Lock()
	defer db.mu.Unlock()
	if db.signer != nil {
		return db.signer, nil
	}
	priv, _, err := sign.LoadOrCreateKey(db.opts.KeyFile)
	if err != nil {
		return nil, fmt.Errorf("signing key: %w", err)
	}
	db.signer = sign.NewSigner(priv)
	return db.signer, nil
}
