package query

import (
	"time"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/index"
	"github.com/aqlstore/aqlstore/query/sign"
)

// DefaultMaxRejected is how many rejected candidates a response lists
// when Options.MaxRejected is 0. Each listed rejection costs a read and a
// full evaluation of its document for the record (about 20 µs), so ten
// keep a point query's cost with the answer's (BenchmarkResolve's
// planner-rejected10 against planner); the rest are counted.
const DefaultMaxRejected = 10

// Options configure one resolution.
type Options struct {
	// Signer signs the response; required.
	Signer *sign.Signer
	// Keys resolves issuer keys (did:key always resolves offline; a trust
	// file adds others). Nil resolves did:key only.
	Keys sign.Resolver
	// Principal is whom the resolution reads as when the intent's issuer
	// is not verified: the caller the embedder authenticated (a server's
	// bearer token). An issuer whose signature verifies is read as itself;
	// "" reads as the context's principal (store.WithPrincipal), public
	// when it has none. Either way the reader sees public documents and
	// its own, never another tenant's.
	Principal string
	// IssuerProof, when set, reads a verified issuer as itself only when
	// it is Principal, that is when the embedder authenticated the caller
	// as the issuer (its bearer token, a request signed with its key);
	// anyone else presenting the signed intent reads as store.Public. A
	// signature proves who wrote an intent, not who sends it: a server
	// sets this so that a captured intent is not a bearer credential.
	IssuerProof bool
	// At is the instant the validity window is checked against and the
	// response's evaluated_at; zero means now.
	At time.Time
	// Kinds overrides the category's kinds (see CategoryKinds).
	Kinds []canon.Kind
	// PageSize is the number of candidates in one full_set page (default 100).
	PageSize int
	// Cursor continues a full_set resolution from a previous next_cursor.
	Cursor string
	// MaxRejected caps the rejected candidates listed (default
	// DefaultMaxRejected; the response says when the cap cut the list).
	// Negative lists none.
	MaxRejected int
	// Role is the resolver_role of the response (default storage_substrate):
	// match_broker, provider, storage_substrate or publisher, the values
	// the schema allows; another is ErrInvalidOptions.
	Role string
	// Index, when set, gives the candidates (the planner); nil checks every
	// document of the intent's kinds (a full scan). Both give identical
	// responses.
	Index *index.Index
	// Explain, when set, receives the plan (nil for a full scan).
	Explain func(*Plan)

	rankWith rankStrategy // tests force a strategy; zero chooses by cost (lazy.go)
	walks    *walkTally   // tests count the constraint walks (match.go)
}

func (o *Options) withDefaults() Options {
	c := Options{}
	if o != nil {
		c = *o
	}
	if c.At.IsZero() {
		c.At = time.Now()
	}
	c.At = c.At.UTC()
	if c.PageSize <= 0 {
		c.PageSize = 100
	}
	if c.MaxRejected == 0 {
		c.MaxRejected = DefaultMaxRejected
	}
	if c.Role == "" {
		c.Role = "storage_substrate"
	}
	return c
}
