package aqlstore

import (
	"context"
	"fmt"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/store"
)

// explicitKey marks a context whose principal was set by WithPrincipal,
// so that an explicit "public" is not replaced by Options.Principal.
type explicitKey struct{}

// WithPrincipal returns a context whose reads, writes and queries act as
// did: a tenant DID, or "public". It is store.WithPrincipal, so a context
// made by either works with both packages.
func WithPrincipal(ctx context.Context, did string) context.Context {
	return context.WithValue(store.WithPrincipal(ctx, did), explicitKey{}, true)
}

// Principal returns whom ctx acts as on db: the context's principal, else
// Options.Principal, else "public".
func (db *DB) Principal(ctx context.Context) string {
	if p := store.Principal(ctx); p != store.Public || ctx.Value(explicitKey{}) != nil || db.opts.Principal == "" {
		return p
	}
	return db.opts.Principal
}

// context returns ctx acting as db.Principal(ctx), after checking that the
// principal is a DID: a typo would otherwise read as a tenant that owns
// nothing, and write documents nobody can read.
func (db *DB) context(ctx context.Context) (context.Context, error) {
	p := db.Principal(ctx)
	if p != store.Public {
		if err := canon.CheckDID(p); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrInvalidPrincipal, err)
		}
	}
	return store.WithPrincipal(ctx, p), nil
}
