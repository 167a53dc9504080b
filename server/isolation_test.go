package server

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/index"
	"github.com/aqlstore/aqlstore/query/sign"
	"github.com/aqlstore/aqlstore/store"
)

// The tenant isolation property test (issue item 5).
//
// Each check builds a random world: two or three tenants (bearer tokens
// mapped to tenant DIDs; tenant 0 is also the public writer and the
// operator), and a random history of puts and deletes of offers,
// manifests, knowledge nodes, candidates, generic JSON, AIDP intent
// envelopes and observations, each owned by a tenant or public, with
// natural keys and envelope ids drawn from small pools so that tenants
// collide on them, and sometimes identical content under two owners.
//
// The oracle is a mirror per reader: a second server that was sent only
// the mutations of the documents that reader may see (public ones, its
// own, and those granted to it), in the same order. Every read path, asked by the reader of the
// main server and of its mirror, must answer the same, apart from what
// differs between any two resolutions (response ids, times, signatures)
// and sealed tokens (below). That one comparison covers ids,
// natural keys, counts, ranks, pages, cursors' presence, decision
// records, problem documents and headers: a count that includes a hidden
// document, a 403 where a missing document gets 404, a subscription event
// for another tenant's put, an explain cardinality over every tenant, all
// show as a difference. Independently, every answer the main server gives
// a reader is searched for the content ids, natural keys, envelope and
// execution ids, body markers, DIDs and tokens of documents and tenants
// the reader may not see (unless the reader sent that string itself).
//
// The store's own ordinals count every tenant's documents and mutations,
// so none reaches a reader in the clear: put answers carry no document
// number, an export carries the owner chain (numbered within the owner),
// and cursors and event ids are sealed under the server's key. The
// comparison therefore includes export seq and prev, which must equal the
// mirror's; subscription event ids, sealed under a fresh nonce each time,
// are compared by presence only.
//
// Between phases, tenants grant documents to each other and revoke
// grants; how the mirrors follow is in isolation_grants_test.go.
//
// The read paths, intents and subscriptions are in isolation_paths_test.go,
// the regression tests of what this test found in
// isolation_regression_test.go.
//
// The number of checks is AQLSTORE_ISOLATION_CHECKS (default 15), or
// -rapid.checks when given; each check starts one server per reader
// plus the main one.

const (
	isoChecksEnv     = "AQLSTORE_ISOLATION_CHECKS"
	isoDefaultChecks = 15
	isoWait          = 2 * time.Minute // bound on a stream's life: a hang fails, never blocks the test
)

type isoTenant struct{ did, token string }

// isoTenants: tenant 0 writes the public documents and reads /metrics.
var isoTenants = []isoTenant{
	{"did:web:iso-tenant-0.example", "iso-token-of-tenant-0-0123456789"},
	{"did:web:iso-tenant-1.example", "iso-token-of-tenant-1-0123456789"},
	{"did:web:iso-tenant-2.example", "iso-token-of-tenant-2-0123456789"},
}

// TestTenantIsolationProperty: no read path shows a reader a document,
// id, natural key or count of a document it may not see (see above).
func TestTenantIsolationProperty(t *testing.T) {
	isoLimitChecks(t)
	auth := mustAuth(t, `{"tokens": {"`+isoTenants[0].token+`": "`+isoTenants[0].did+`",
		"`+isoTenants[1].token+`": "`+isoTenants[1].did+`", "`+isoTenants[2].token+`": "`+isoTenants[2].did+`"},
		"public_writers": ["`+isoTenants[0].did+`"], "operators": ["`+isoTenants[0].did+`"]}`)
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	signer := sign.NewSigner(priv)
	var stats isoStats
	rapid.Check(t, func(rt *rapid.T) {
		w := newIsoWorld(rt, auth, signer)
		w.stats = &stats
		stats.worlds++
		w.history(rapid.IntRange(10, 40).Draw(rt, "phase1"))
		w.grantHistory(rapid.IntRange(0, 10).Draw(rt, "grants"))
		w.subscriptions()
		for _, reader := range w.readers {
			w.grantHistory(rapid.IntRange(0, 3).Draw(rt, "grants between readers"))
			w.readPaths(reader)
			w.grantReads(reader)
		}
		w.cursorReplays()
	})
	t.Logf("grants: %d grants and revokes, %d mirrors rebuilt, %d granted documents read by their grantee",
		isoGrantStats.changes, isoGrantStats.rebuilt, isoGrantStats.granted)
	t.Logf("%d worlds: %d documents stored; %d answers compared with the mirror, %d of them queries with candidates "+
		"(%d candidates and rejections in all); %d answers and events searched; %d events",
		stats.worlds, stats.docs, stats.compared, stats.answered, stats.candidates, stats.scanned, stats.events)
}

// isoStats are the figures the test logs.
type isoStats struct{ worlds, docs, compared, answered, candidates, scanned, events int }

// isoLimitChecks bounds the checks of this test: rapid's count is one
// global flag (100 by default), and a check here starts several servers.
func isoLimitChecks(t *testing.T) {
	explicit := os.Getenv("RAPID_CHECKS") != ""
	flag.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "rapid.checks" })
	f := flag.Lookup("rapid.checks")
	if explicit || f == nil {
		return
	}
	n := isoDefaultChecks
	if v, err := strconv.Atoi(os.Getenv(isoChecksEnv)); err == nil && v > 0 {
		n = v
	}
	old := f.Value.String()
	if err := f.Value.Set(strconv.Itoa(n)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Value.Set(old) })
}

// isoServer is one server of a check: the main one or a reader's mirror.
type isoServer struct {
	name string
	url  string
	st   *store.Store
	ix   *index.Index
}

func startIsoServer(t *rapid.T, name string, auth *Auth, signer *sign.Signer) *isoServer {
	dir, err := os.MkdirTemp("", "aqlstore-isolation-")
	if err != nil {
		t.Fatal(err)
	}
	// Small memtables and caches: a check holds several stores open.
	t.Cleanup(func() { os.RemoveAll(dir) })
	st, ix, err := index.Open(dir, &store.Options{NoSync: true, MemTableSize: 1 << 20, CacheSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() }) // after the server stops: cleanups run last first
	_, url, _ := serveConfig(t, Config{Store: st, Index: ix, Signer: signer, Auth: auth, Addr: "127.0.0.1:0",
		Heartbeat: time.Hour, RateLimit: -1})
	return &isoServer{name: name, url: url, st: st, ix: ix}
}

// isoResp is one HTTP answer.
type isoResp struct {
	status int
	header http.Header
	body   []byte
}

// isoHeaders are the response headers compared and searched.
var isoHeaders = []string{"Content-Type", "ETag", "Location", "Allow", "WWW-Authenticate", "Aqlstore-Kind",
	"Aqlstore-Owner", "Aqlstore-Natural-Key", "Aqlstore-Execution-Id", "Aqlstore-Quarantined", "Aqlstore-Audit-Digest"}

// do sends a request; headers are name, value pairs.
func (s *isoServer) do(t *rapid.T, method, target, token string, body []byte, headers ...string) isoResp {
	t.Helper()
	status, h, b, err := exchange(http.DefaultClient, method, s.url+target, token, bytes.NewReader(body), headers...)
	if err != nil {
		t.Fatalf("%s %s %s: %v", s.name, method, target, err)
	}
	return isoResp{status: status, header: h, body: b}
}

// isoDoc is a document the world stored: its owner and the strings that
// name it.
type isoDoc struct {
	owner  string
	kind   canon.Kind
	id     string
	key    string   // natural key; "" for generic JSON and observations
	tokens []string // id, marker, key parts
	body   []byte
	live   bool
}

// GoString keeps rapid's draw log short.
func (d *isoDoc) GoString() string {
	return fmt.Sprintf("%s %s %s live=%t %s", d.owner, d.kind, d.key, d.live, d.id)
}

// isoWorld is one check: the main server, a mirror per reader, and what
// was stored.
type isoWorld struct {
	t       *rapid.T
	tenants []isoTenant
	readers []string // tenant DIDs and store.Public
	main    *isoServer
	mirrors map[string]*isoServer
	docs    []*isoDoc
	byRef   map[string]*isoDoc         // owner + " " + id
	owners  map[string]map[string]bool // token → owners of documents holding it
	streams map[string]*isoPair        // open subscriptions by reader, while subscriptions runs
	signer  *sign.Signer
	stats   *isoStats
	serial  int
	g       *isoGrants // grants, and the history mirrors are rebuilt from (isolation_grants_test.go)
}

func newIsoWorld(t *rapid.T, auth *Auth, signer *sign.Signer) *isoWorld {
	n := rapid.IntRange(2, len(isoTenants)).Draw(t, "tenants")
	w := &isoWorld{t: t, tenants: isoTenants[:n], mirrors: map[string]*isoServer{}, signer: signer,
		byRef: map[string]*isoDoc{}, owners: map[string]map[string]bool{}, g: newIsoGrants(auth)}
	w.main = startIsoServer(t, "main", auth, signer)
	for _, tn := range w.tenants {
		w.readers = append(w.readers, tn.did)
	}
	w.readers = append(w.readers, store.Public)
	for _, r := range w.readers {
		w.mirrors[r] = startIsoServer(t, "mirror of "+r, auth, signer)
	}
	return w
}

func isoVisible(reader, owner string) bool { return owner == store.Public || owner == reader }

// token is the bearer token a principal reads with ("" for public).
func (w *isoWorld) token(principal string) string {
	for _, tn := range w.tenants {
		if tn.did == principal {
			return tn.token
		}
	}
	return ""
}

// writer is the token and query that write documents of owner.
func (w *isoWorld) writer(owner string) (string, url.Values) {
	if owner == store.Public {
		return w.tenants[0].token, url.Values{"visibility": {"public"}}
	}
	return w.token(owner), url.Values{}
}

// actor is the principal that writes documents of owner.
func (w *isoWorld) actor(owner string) string {
	if owner == store.Public {
		return w.tenants[0].did
	}
	return owner
}

// ask sends the same request as reader to the main server and to the
// reader's mirror, searches the main answer for what the reader may not
// see, and requires the two answers to be the same.
func (w *isoWorld) ask(reader, method, target string, body []byte, headers ...string) isoResp {
	w.t.Helper()
	token := w.token(reader)
	got := w.main.do(w.t, method, target, token, body, headers...)
	w.scan(reader, method+" "+target, append([]byte(target), body...), got)
	want := w.mirrors[reader].do(w.t, method, target, token, body, headers...)
	w.same(reader, method+" "+target, body, got, want)
	return got
}

// same requires two answers to the same request to match.
func (w *isoWorld) same(reader, what string, req []byte, got, want isoResp) {
	w.t.Helper()
	w.stats.compared++
	w.stats.candidates += bytes.Count(got.body, []byte(`"candidate_id"`))
	if bytes.Contains(got.body, []byte(`"candidates":[{`)) {
		w.stats.answered++
	}
	if got.status != want.status || isoNorm(got.body) != isoNorm(want.body) {
		w.t.Fatalf("%s as %s: the answer depends on documents the reader may not see\n"+
			"request: %s\nmain:   %d %s\nmirror: %d %s", what, reader, req, got.status, got.body, want.status, want.body)
	}
	for _, h := range isoHeaders {
		if g, m := got.header.Get(h), want.header.Get(h); g != m {
			w.t.Fatalf("%s as %s: header %s is %q, the mirror's %q", what, reader, h, g, m)
		}
	}
}

// forbidden lists the strings reader must never receive: those of
// documents no owner of which the reader may see and none of which is
// granted to it, the other tenants' tokens, and their DIDs unless a grant
// between the two shows them.
func (w *isoWorld) forbidden(reader string) []string {
	var out []string
	for tok := range w.owners {
		if !w.seenBy(reader, tok) {
			out = append(out, tok)
		}
	}
	for _, tn := range isoTenants {
		if tn.did != reader {
			out = append(out, tn.token)
			if !w.related(reader, tn.did) {
				out = append(out, tn.did)
			}
		}
	}
	return out
}

// scan fails when an answer to reader holds a forbidden string that the
// request did not carry.
func (w *isoWorld) scan(reader, what string, req []byte, r isoResp) {
	w.t.Helper()
	hay := [][]byte{r.body}
	for _, h := range isoHeaders {
		hay = append(hay, []byte(r.header.Get(h)))
	}
	w.scanBytes(reader, what, req, hay...)
}

func (w *isoWorld) scanBytes(reader, what string, req []byte, hay ...[]byte) {
	w.t.Helper()
	w.stats.scanned++
	for _, tok := range w.forbidden(reader) {
		if bytes.Contains(req, []byte(tok)) {
			continue
		}
		for _, h := range hay {
			if bytes.Contains(h, []byte(tok)) {
				w.t.Fatalf("%s as %s reveals %q, which only %v hold:\n%s", what, reader, tok, w.owners[tok], h)
			}
		}
	}
}

// isoStripped are the members left out of comparisons: those that differ
// between any two resolutions, and the global ordinals (see the top of
// this file).
var isoStripped = map[string]bool{
	"response_id": true, "evaluated_at": true, "decision_id": true, "signature": true,
	"exported_at": true, "subscription_id": true,

	// Sealed tokens: a subscription's event ids open only under the
	// server's key and are sealed under a fresh nonce each time.
	"event_id": true, "last_event_id": true,
}

// isoNorm is a JSON answer without the stripped members (a cursor only
// as its presence), or the bytes themselves when they are not JSON.
func isoNorm(b []byte) string {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return string(b)
	}
	out, err := json.Marshal(isoStrip(v))
	if err != nil {
		return string(b)
	}
	return string(out)
}

func isoStrip(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			switch {
			case isoStripped[k]:
				delete(x, k)
			case k == "next_cursor" || k == "resume_cursor":
				x[k] = "(a cursor)"
			default:
				x[k] = isoStrip(e)
			}
		}
	case []any:
		for i := range x {
			x[i] = isoStrip(x[i])
		}
	}
	return v
}

// Document generation. Keys, envelope and execution ids come from small
// pools, so that tenants collide on them; each body carries a unique
// marker. Every generated string ends in "z" or "q", so that no one is a
// substring of another.

var (
	isoKinds      = []string{"offer", "offer", "manifest", "knowledge", "candidate", "json", "aidp-ie", "aidp-ob", "aidp-ob"}
	isoCategories = []string{"shoes", "boots", "books"}
	isoPrices     = []string{"5.00", "12.50", "99.99", "100"}
	isoTags       = []string{"red", "blue", "trail"}
	isoScores     = []string{"0.1", "0.5", "0.9"}
	isoKeyPrefix  = map[string]string{"offer": "offer_id", "manifest": "manifest_id", "knowledge": "node_id", "candidate": "id"}
)

// isoPut is one generated document.
type isoPut struct {
	owner      string
	kind       string
	body       []byte
	key        string
	tokens     []string // marker, key parts
	quarantine bool
}

func (w *isoWorld) marker() string {
	w.serial++
	return fmt.Sprintf("mk%04dq", w.serial)
}

func (w *isoWorld) drawPut(t *rapid.T) isoPut {
	owners := []string{store.Public}
	for _, tn := range w.tenants {
		owners = append(owners, tn.did)
	}
	p := isoPut{owner: rapid.SampledFrom(owners).Draw(t, "owner"), kind: rapid.SampledFrom(isoKinds).Draw(t, "kind")}
	if len(w.docs) > 0 && rapid.IntRange(0, 7).Draw(t, "copy") == 0 {
		// Identical content under another owner (or again under the same).
		d := rapid.SampledFrom(w.docs).Draw(t, "copy of")
		p.kind, p.body, p.key = string(d.kind), d.body, d.key
		p.tokens = slices.Clone(d.tokens[1:])
		return p
	}
	m := w.marker()
	p.tokens = []string{m}
	switch p.kind {
	case "aidp-ie":
		env := fmt.Sprintf("env-%dz", rapid.IntRange(0, 3).Draw(t, "envelope"))
		p.body, p.key, p.tokens = ieMessage(env, m), env, append(p.tokens, env)
		return p
	case "aidp-ob":
		env := fmt.Sprintf("env-%dz", rapid.IntRange(0, 3).Draw(t, "envelope"))
		exec := fmt.Sprintf("exe-%dz", rapid.IntRange(0, 3).Draw(t, "execution"))
		p.quarantine = rapid.IntRange(0, 3).Draw(t, "quarantine") == 0
		p.body, p.tokens = isoObservation(env, exec, m, w.serial%60), append(p.tokens, env, exec)
		return p
	}
	fields := map[string]any{
		"category": rapid.SampledFrom(isoCategories).Draw(t, "category"),
		"price":    rapid.SampledFrom(isoPrices).Draw(t, "price"),
		"tags":     append([]string{}, rapid.SliceOfNDistinct(rapid.SampledFrom(isoTags), 0, 3, rapid.ID[string]).Draw(t, "tags")...),
		"note":     m,
	}
	if p.kind == "offer" {
		fields["inventory"] = map[string]any{"available": rapid.IntRange(0, 3).Draw(t, "available")}
	}
	var doc map[string]any
	switch p.kind {
	case "json":
		doc = fields
	case "candidate":
		p.key = fmt.Sprintf("can-%dz", rapid.IntRange(0, 4).Draw(t, "key"))
		score, _ := strconv.ParseFloat(rapid.SampledFrom(isoScores).Draw(t, "score"), 64)
		doc = map[string]any{"id": p.key, "record": fields, "score": score}
	default:
		p.key = fmt.Sprintf("%s-%dz", p.kind[:3], rapid.IntRange(0, 4).Draw(t, "key"))
		doc = fields
		doc[isoKeyPrefix[p.kind]] = p.key
	}
	if p.key != "" {
		p.tokens = append(p.tokens, p.key)
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	p.body = b
	return p
}

// isoObservation is obMessage with its marker in the result.
func isoObservation(envelopeID, executionID, marker string, second int) []byte {
	return bytes.Replace(obMessage(envelopeID, executionID, fmt.Sprintf("%02d", second)),
		[]byte(`"pay_7712"`), []byte(strconv.Quote(marker)), 1)
}

// history applies n random puts and deletes.
func (w *isoWorld) history(n int) {
	for range n {
		w.step()
	}
}

// step applies one random put, or a delete of a live JSON-kind document.
func (w *isoWorld) step() {
	var deletable []*isoDoc
	for _, d := range w.docs {
		if d.live && !strings.HasPrefix(string(d.kind), "aidp") {
			deletable = append(deletable, d)
		}
	}
	if len(deletable) > 0 && rapid.IntRange(0, 4).Draw(w.t, "delete") == 0 {
		w.del(rapid.SampledFrom(deletable).Draw(w.t, "deleted"))
		return
	}
	w.put(w.drawPut(w.t))
}

// put stores p on the main server and on the mirror of every reader that
// may see it; the answers must agree.
func (w *isoWorld) put(p isoPut) {
	w.t.Helper()
	token, q := w.writer(p.owner)
	path, ct := pathDocuments, contentJSON
	switch p.kind {
	case "aidp-ie":
		path, ct = pathAIDPIntents, mediaIE
	case "aidp-ob":
		path, ct = pathAIDPObservations, mediaOB
		if p.quarantine {
			q.Set("unbound", "quarantine")
		}
	}
	target := path + "?" + q.Encode()
	got := w.main.do(w.t, "POST", target, token, p.body, "Content-Type", ct)
	op := w.g.logOp(p.owner, "POST", target, token, ct, p.body)
	for _, r := range w.readers {
		if w.mirrored(r, p.owner) {
			want := w.mirrors[r].do(w.t, "POST", target, token, p.body, "Content-Type", ct)
			w.same(w.actor(p.owner), "put "+target+" (mirror of "+r+")", p.body, got, want)
		}
	}
	// The content id of what the writer sent is the writer's to know.
	sent := slices.Clone(p.body)
	if parsed, err := store.ParseDocument(p.body, "", nil, nil); err == nil {
		sent = append(sent, parsed.ID().String()...)
	}
	w.scan(w.actor(p.owner), "put "+target, sent, got)
	if got.status != http.StatusOK && got.status != http.StatusCreated {
		return
	}
	var ack struct {
		Documents []struct {
			ID    string `json:"id"`
			Kind  string `json:"kind"`
			Owner string `json:"owner"`
		} `json:"documents"`
	}
	if err := json.Unmarshal(got.body, &ack); err != nil || len(ack.Documents) != 1 || ack.Documents[0].Owner != p.owner {
		w.t.Fatalf("put %s: %v %s", target, err, got.body)
	}
	ref := ack.Documents[0]
	if d := w.byRef[p.owner+" "+ref.ID]; d != nil {
		if !d.live {
			w.g.created[d] = op
		}
		d.live = true
		return
	}
	d := &isoDoc{owner: p.owner, kind: canon.Kind(ref.Kind), id: ref.ID, key: p.key, body: p.body, live: true,
		tokens: append([]string{ref.ID}, p.tokens...)}
	w.docs = append(w.docs, d)
	w.stats.docs++
	w.byRef[p.owner+" "+ref.ID] = d
	w.g.created[d] = op
	for _, tok := range d.tokens {
		if w.owners[tok] == nil {
			w.owners[tok] = map[string]bool{}
		}
		w.owners[tok][p.owner] = true
	}
}

// del deletes d as its owner, on the main server and the mirrors that
// hold it.
func (w *isoWorld) del(d *isoDoc) {
	w.t.Helper()
	if w.streams != nil {
		w.sync("before a delete")
	}
	token, q := w.writer(d.owner)
	target := pathDocuments + "/" + d.id + "?" + q.Encode()
	got := w.main.do(w.t, "DELETE", target, token, nil)
	w.g.logOp(d.owner, "DELETE", target, token, "", nil)
	for _, r := range w.readers {
		if w.mirrored(r, d.owner) || w.granted(r, d) && !w.g.dirty[r] { // a grantee's mirror holds it too
			w.same(w.actor(d.owner), "delete "+target, nil, got, w.mirrors[r].do(w.t, "DELETE", target, token, nil))
		}
	}
	if got.status != http.StatusNoContent {
		w.t.Fatalf("delete %s as its owner: %d %s", target, got.status, got.body)
	}
	d.live = false
	delete(w.g.to, d) // a delete drops the document's grants
}

// sentinel puts a public offer that every subscription of the test
// matches: once a stream has sent it, the stream has dealt with every
// change before it.
func (w *isoWorld) sentinel() string {
	m := w.marker()
	key := "snt-" + m[2:6] + "z"
	body := fmt.Sprintf(`{"offer_id": %q, "sentinel": true, "category": "sentinel", "note": %q}`, key, m)
	w.put(isoPut{owner: store.Public, kind: "offer", body: []byte(body), key: key, tokens: []string{m, key}})
	return m
}
