package server

import (
	"net/http"
	"net/url"
	"slices"

	"pgregory.net/rapid"

	"github.com/aqlstore/aqlstore/store"
)

// Grants in TestTenantIsolationProperty (isolation_test.go).
//
// Between the phases of a check, tenants grant their documents to other
// tenants of the world and revoke grants, among random puts and deletes
// (grants change nowhere else: a grant sends no subscription event, so
// while streams are open the mirror's put of a newly visible document
// would have no counterpart on the main server; README, Grants). A reader
// sees its granted documents as the owner's, so its mirror holds them
// under their owners, granted to the reader: the owner's put sent to the
// mirror, in its place in the history, and the grant. A change of what a
// reader is granted therefore rebuilds its mirror: a new server is sent,
// in order, every request of the history the reader may see (those on its
// own and public documents, as before, and the puts that stored the
// documents now granted to it), then the grants. Replaying in order keeps
// document order, and with it every ordering the answers show (pages,
// ranks among equal keys, which copy a Get returns).
//
// That the mirror reads granted documents through the same grant code
// could hide a server blind to grants (both would agree), so grantReads
// checks independently that every document granted to a reader is read
// by it, by id and by natural key, and the forbidden-string search still
// fails any answer that shows a document no longer granted. Only the
// owner's request is compared for the grant endpoints themselves (its
// mirror holds its documents and its grants). AIDP observations are
// never granted here: one binds to its owner's envelope, which the
// reader's mirror may not hold, so the mirror could not store it as the
// main server did (the store tests grant observations).

// isoGrants is a world's grants and the history mirrors are rebuilt from.
type isoGrants struct {
	auth    *Auth
	log     []isoOp                     // every mutation request sent to the main server, in order
	created map[*isoDoc]int             // the log entry that stored the live instance of each document
	to      map[*isoDoc]map[string]bool // live grants: document → grantees
	ever    map[*isoDoc]map[string]bool // every grant made: what each grantee has read
	dirty   map[string]bool             // readers whose mirror waits for a rebuild
}

func newIsoGrants(auth *Auth) *isoGrants {
	return &isoGrants{auth: auth, created: map[*isoDoc]int{}, to: map[*isoDoc]map[string]bool{},
		ever: map[*isoDoc]map[string]bool{}, dirty: map[string]bool{}}
}

// isoOp is one mutation request of the history.
type isoOp struct {
	owner                        string // whose documents it changes
	method, target, token, ctype string
	body                         []byte
}

// logOp appends a request to the history and returns its index.
func (g *isoGrants) logOp(owner, method, target, token, ctype string, body []byte) int {
	g.log = append(g.log, isoOp{owner: owner, method: method, target: target, token: token, ctype: ctype, body: body})
	return len(g.log) - 1
}

// granted reports whether d is granted to reader now.
func (w *isoWorld) granted(reader string, d *isoDoc) bool { return d.live && w.g.to[d][reader] }

// mirrored reports whether reader's mirror takes a change of documents
// of owner now (a dirty mirror is rebuilt from the log instead).
func (w *isoWorld) mirrored(reader, owner string) bool {
	return isoVisible(reader, owner) && !w.g.dirty[reader]
}

// related reports whether reader may know the DID other: other granted it
// a document (a granted document shows its owner), or it granted other
// one (its grant list shows the grantee).
func (w *isoWorld) related(reader, other string) bool {
	for d, gs := range w.g.to {
		if d.live && (d.owner == other && gs[reader] || d.owner == reader && gs[other]) {
			return true
		}
	}
	return false
}

// grantHistory makes n random changes: grants and revokes (most of
// them), refused grants, puts and deletes; then rebuilds the mirrors
// whose reader was granted or revoked something.
func (w *isoWorld) grantHistory(n int) {
	for range n {
		switch rapid.IntRange(0, 9).Draw(w.t, "grant op") {
		case 0, 1:
			w.step()
		case 2:
			w.refusedGrant()
		case 3:
			w.revokeOne()
		default:
			w.grantOne()
		}
	}
	for _, r := range w.readers {
		if w.g.dirty[r] {
			w.rebuild(r)
		}
	}
}

// grantable lists the live documents a tenant may grant in this test.
func (w *isoWorld) grantable() []*isoDoc {
	var out []*isoDoc
	for _, d := range w.docs {
		if d.live && d.owner != store.Public && d.kind != "aidp-ob" {
			out = append(out, d)
		}
	}
	return out
}

// grantOne grants a live document of a tenant to another tenant.
func (w *isoWorld) grantOne() {
	docs := w.grantable()
	if len(docs) == 0 {
		return
	}
	d := rapid.SampledFrom(docs).Draw(w.t, "granted")
	var others []string
	for _, tn := range w.tenants {
		if tn.did != d.owner {
			others = append(others, tn.did)
		}
	}
	grantee := rapid.SampledFrom(others).Draw(w.t, "grantee")
	w.grantRequest("PUT", d.owner, d.id, grantee, http.StatusNoContent)
	if w.g.to[d] == nil {
		w.g.to[d] = map[string]bool{}
	}
	if w.g.ever[d] == nil {
		w.g.ever[d] = map[string]bool{}
	}
	w.g.ever[d][grantee] = true
	if !w.g.to[d][grantee] {
		w.g.to[d][grantee] = true
		w.g.dirty[grantee] = true
	}
	isoGrantStats.changes++
}

// revokeOne revokes a grant the world holds.
func (w *isoWorld) revokeOne() {
	type grant struct {
		d       *isoDoc
		grantee string
	}
	var all []grant
	for _, d := range w.docs {
		for _, r := range w.readers {
			if w.granted(r, d) {
				all = append(all, grant{d, r})
			}
		}
	}
	if len(all) == 0 {
		return
	}
	i := rapid.IntRange(0, len(all)-1).Draw(w.t, "revoked")
	d, grantee := all[i].d, all[i].grantee
	w.grantRequest("DELETE", d.owner, d.id, grantee, http.StatusNoContent)
	delete(w.g.to[d], grantee)
	w.g.dirty[grantee] = true
	isoGrantStats.changes++
}

// refusedGrant asks a tenant to grant a document none of whose copies it
// owns (another tenant's, public, granted to it, or deleted): 404 from
// the main server and from its mirror alike, whatever the tenant may
// read; or to grant its own document to itself: 400.
func (w *isoWorld) refusedGrant() {
	granter := rapid.SampledFrom(w.tenants).Draw(w.t, "granter").did
	var ids []string
	for _, d := range w.docs {
		if !w.owns(granter, d.id) {
			ids = append(ids, d.id)
		}
	}
	if len(ids) == 0 || rapid.IntRange(0, 3).Draw(w.t, "to itself") == 0 {
		for _, d := range w.grantable() {
			if d.owner == granter {
				w.grantRequest("PUT", granter, d.id, granter, http.StatusBadRequest)
				return
			}
		}
		return
	}
	grantee := rapid.SampledFrom(w.readers[:len(w.tenants)]).Draw(w.t, "grantee")
	if grantee == granter {
		grantee = "did:web:iso-outsider.example"
	}
	w.grantRequest("PUT", granter, rapid.SampledFrom(ids).Draw(w.t, "not owned"), grantee, http.StatusNotFound)
}

// owns reports whether owner holds a live document with content id.
func (w *isoWorld) owns(owner, id string) bool {
	d := w.byRef[owner+" "+id]
	return d != nil && d.live
}

// grantRequest sends a grant (PUT) or revoke (DELETE) as owner to the
// main server and, when it holds the owner's documents, to the owner's
// mirror; the two must answer alike, with status.
func (w *isoWorld) grantRequest(method, owner, id, grantee string, status int) {
	w.t.Helper()
	token := w.token(owner)
	target := pathDocuments + "/" + id + pathGrantsSuffix + "/" + url.PathEscape(grantee)
	got := w.main.do(w.t, method, target, token, nil)
	w.g.logOp(owner, method, target, token, "", nil)
	w.scan(owner, method+" "+target, []byte(target), got)
	if got.status != status {
		w.t.Fatalf("%s %s as %s: %d %s, want %d", method, target, owner, got.status, got.body, status)
	}
	if w.mirrored(owner, owner) {
		w.same(owner, method+" "+target, nil, got, w.mirrors[owner].do(w.t, method, target, token, nil))
	}
}

// rebuild replaces reader's mirror by one sent the history reader may
// see (see the top of this file).
func (w *isoWorld) rebuild(reader string) {
	w.t.Helper()
	creates := map[int]bool{}
	var granted []*isoDoc
	for _, d := range w.docs {
		if w.granted(reader, d) {
			creates[w.g.created[d]] = true
			granted = append(granted, d)
		}
	}
	srv := startIsoServer(w.t, "mirror of "+reader+" (rebuilt)", w.g.auth, w.signer)
	for i, op := range w.g.log {
		if isoVisible(reader, op.owner) || creates[i] {
			var headers []string
			if op.ctype != "" {
				headers = []string{"Content-Type", op.ctype}
			}
			srv.do(w.t, op.method, op.target, op.token, op.body, headers...)
		}
	}
	for _, d := range granted {
		target := pathDocuments + "/" + d.id + pathGrantsSuffix + "/" + url.PathEscape(reader)
		if r := srv.do(w.t, "PUT", target, w.token(d.owner), nil); r.status != http.StatusNoContent {
			w.t.Fatalf("rebuilt mirror of %s: grant %s: %d %s", reader, target, r.status, r.body)
		}
	}
	w.mirrors[reader] = srv
	w.g.dirty[reader] = false
	isoGrantStats.rebuilt++
}

// grantReads asks reader's grant paths (the grant list of every document,
// its own or not: 404 unless it owns a copy) against the mirror, and
// checks, independently of any mirror, that reader reads every document
// granted to it, by content id and by natural key.
func (w *isoWorld) grantReads(reader string) {
	if reader == store.Public {
		return
	}
	for _, d := range w.docs {
		w.ask(reader, "GET", pathDocuments+"/"+d.id+pathGrantsSuffix, nil)
		if !w.granted(reader, d) {
			continue
		}
		isoGrantStats.granted++
		got := w.main.do(w.t, "GET", pathDocuments+"/"+d.id, w.token(reader), nil)
		if got.status != http.StatusOK || got.header.Get("ETag") != `"`+d.id+`"` {
			w.t.Fatalf("%s does not read %s, granted to it by %s: %d %s", reader, d.id, d.owner, got.status, got.body)
		}
		if d.key == "" {
			continue
		}
		q := url.Values{"kind": {string(d.kind)}, "key": {d.key}}
		if got := w.main.do(w.t, "GET", pathDocuments+"?"+q.Encode(), w.token(reader), nil); got.status != http.StatusOK {
			w.t.Fatalf("%s does not look up %s %s, granted to it by %s: %d %s", reader, d.kind, d.key, d.owner, got.status, got.body)
		}
	}
}

// grantedTokens reports whether tok names a document that was granted to
// reader: the reader has read it, and a stream that sent it may later
// send its delete. (A document revoked, or deleted, must still not show
// in any answer: the mirror, rebuilt without it, tells.)
func (w *isoWorld) grantedTokens(reader, tok string) bool {
	for d, gs := range w.g.ever {
		if gs[reader] && slices.Contains(d.tokens, tok) {
			return true
		}
	}
	return false
}

// isoGrantStats are the figures about grants the test logs.
var isoGrantStats struct{ changes, rebuilt, granted int }
