package server

import (
	"context"
	"net"
	"net/http"
	"strings"

	"github.com/aqlstore/aqlstore/server/client"
	"github.com/aqlstore/aqlstore/store"
)

// challenge sets the WWW-Authenticate challenges of a 401: both schemes.
func challenge(w http.ResponseWriter, errParam string) {
	h := w.Header()
	h.Add("WWW-Authenticate", `Bearer realm="aqlstore"`+errParam)
	h.Add("WWW-Authenticate", client.SchemeDIDKey+` realm="aqlstore"`+errParam)
}

// caller is who sent a request.
type caller struct {
	tenant string // the bearer token's DID; "" when anonymous
	ip     string // the client's address, without port
}

// principal is the store principal the caller reads and writes as.
func (c caller) principal() string {
	if c.tenant == "" {
		return store.Public
	}
	return c.tenant
}

// rateKey is what the rate limit counts: the tenant, else the address.
func (c caller) rateKey() string {
	if c.tenant != "" {
		return "tenant " + c.tenant
	}
	return "ip " + c.ip
}

type callerKey struct{}

func withCaller(ctx context.Context, c caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// callerOf returns the caller the middleware identified.
func callerOf(r *http.Request) caller {
	c, _ := r.Context().Value(callerKey{}).(caller)
	return c
}

// identify reads the bearer token or the did:key signature, if any;
// identify may wrap r.Body to check a signed body. A request that presents
// credentials that do not authenticate is refused, never served as
// anonymous: a typo in a token must not silently hide a tenant's data.
func (s *Server) identify(r *http.Request) (caller, *problem) {
	c := caller{ip: r.RemoteAddr}
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		c.ip = host
	}
	h := r.Header.Get("Authorization")
	if h == "" {
		return c, nil
	}
	scheme, token, _ := strings.Cut(h, " ")
	if strings.EqualFold(scheme, client.SchemeDIDKey) {
		tenant, p := s.verifySigned(r, token)
		c.tenant = tenant
		return c, p
	}
	if !strings.EqualFold(scheme, "Bearer") {
		p := unauthorized("only Authorization: Bearer <token> or a request signed with DIDKey is accepted")
		return c, &p
	}
	tenant, ok := s.cfg.Auth.Tenant(strings.TrimSpace(token))
	if !ok {
		p := unauthorized("the bearer token is not known to this server")
		return c, &p
	}
	c.tenant = tenant
	return c, nil
}

// requireTenant writes 401 and returns false when the request has no
// authenticated caller.
func (s *Server) requireTenant(w http.ResponseWriter, r *http.Request) (caller, bool) {
	c := callerOf(r)
	if c.tenant == "" {
		s.writeProblem(w, r, unauthorized("this operation needs an authenticated caller: send Authorization: Bearer <token>, or sign the request with your did:key (Authorization: DIDKey …)"))
		return c, false
	}
	return c, true
}
