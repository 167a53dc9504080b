package aqlstore

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/query/sign"
	"github.com/aqlstore/aqlstore/store"
)

// Options configure a DB. A nil *Options means the defaults; a zero field
// means its default (see EnsureDefaults).
type Options struct {
	// Principal is whom a context without one acts as (a tenant DID);
	// "" acts as public, which reads public documents only and writes
	// public documents. A context's own principal (WithPrincipal) wins.
	Principal string
	// ReadOnly opens an existing store without writing to its directory:
	// Open fails with ErrNoStore rather than create one, and mutations
	// fail. A directory the process may not write works.
	ReadOnly bool
	// KeyFile is the Ed25519 key that signs query responses, created on
	// the first query if missing (default DIR/keys/resolver.jwk, the file
	// `aqlstore keys` shows, so the CLI and an embedder sign alike).
	KeyFile string
	// Signer signs responses instead of KeyFile's key.
	Signer *sign.Signer
	// Keys resolves intent issuers' keys beyond did:key (a trust file,
	// sign.LoadTrustFile); nil resolves did:key only.
	Keys sign.Resolver
	// Now is the clock that validity windows are checked against and
	// responses are dated by (default time.Now).
	Now func() time.Time
	// Store tunes the database: block cache, compression, limits (see
	// store.Options; its Indexer and ReadOnly are set by Open).
	Store store.Options
}

// DefaultKeyFile is the signing key of the store in dir when
// Options.KeyFile is empty: where the CLI keeps it.
func DefaultKeyFile(dir string) string { return filepath.Join(dir, "keys", "resolver.jwk") }

// EnsureDefaults fills zero fields with their defaults and returns o.
// KeyFile stays empty: its default depends on the directory (Open).
func (o *Options) EnsureDefaults() *Options {
	if o.Now == nil {
		o.Now = time.Now
	}
	o.Store.EnsureDefaults()
	return o
}

// Validate reports the first option that is out of range.
func (o *Options) Validate() error {
	if o.Principal != "" && o.Principal != store.Public {
		if err := canon.CheckDID(o.Principal); err != nil {
			return fmt.Errorf("%w: Principal: %v", ErrInvalidOptions, err)
		}
	}
	if err := o.Store.Validate(); err != nil {
		return fmt.Errorf("%w: Store: %v", ErrInvalidOptions, err)
	}
	return nil
}
