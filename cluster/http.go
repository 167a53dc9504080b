package cluster

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/query"
	"github.com/aqlstore/aqlstore/query/aql"
	"github.com/aqlstore/aqlstore/store"
)

// HandlerOptions configure Handler.
type HandlerOptions struct {
	// Principal returns whom a request acts as (a tenant DID, or
	// store.Public), or an error answered 401; nil acts as public.
	Principal func(*http.Request) (string, error)
	// MaxBody bounds a request body in bytes (default 8 MiB; 413 above).
	MaxBody int64
	// MayExport reports whether a request may take a shard's export,
	// which holds every tenant's documents; nil refuses every request.
	MayExport func(*http.Request) bool
}

// Handler serves a node over HTTP:
//
//	POST   /documents?kind=K            a document (JSON or PAIRL) of the caller → 201 its receipt (200 when already stored)
//	DELETE /documents/{content id}      → 200 the delete's receipt (?erase=true: Erase)
//	POST   /documents/{id}/grants       {"grantee": DID} → 200 the grant's receipt
//	DELETE /documents/{id}/grants/{did} → 200 the revoke's receipt
//	POST   /oap/intent?page_size=&cursor=&max_rejected=&partial=true
//	                                    an intent → 200 the signed response
//	POST   /oap/explain                 an intent → 200 {"shards": {"0": plan, …}}, each shard's plan
//	POST   /storage/subscribe           a subscription intent → server-sent events (feed.go); also /oap/intent
//	GET    /healthz                     the shards this node serves and what each applied
//	GET    /shards/{i}/export           an export of shard i (Node.ExportShard), to bootstrap a new replica
//
// A receipt is {"id","kind","owner","natural_key"?,"shard","seq","created"}.
// An intent request may carry AQL-After: "shard:seq,shard:seq" (the
// receipts it must see). Errors are RFC 9457 problem documents; a shard
// without a live replica is 503 with the shard in its "shard" member, and
// a partial answer carries the header AQL-Partial with the missing shards.
func (n *Node) Handler(ho *HandlerOptions) http.Handler {
	h := &handler{n: n}
	if ho != nil {
		h.o = *ho
	}
	if h.o.MaxBody <= 0 {
		h.o.MaxBody = 8 << 20
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /documents", h.put)
	mux.HandleFunc("DELETE /documents/{id}", h.delete)
	mux.HandleFunc("POST /documents/{id}/grants", h.grant)
	mux.HandleFunc("DELETE /documents/{id}/grants/{grantee}", h.grant)
	mux.HandleFunc("POST /oap/intent", h.intent)
	mux.HandleFunc("POST /oap/explain", h.explain)
	mux.HandleFunc("POST /storage/subscribe", h.subscribe)
	mux.HandleFunc("GET /healthz", h.health)
	mux.HandleFunc("GET /shards/{shard}/export", h.export)
	return mux
}

type handler struct {
	n *Node
	o HandlerOptions
}

// request reads the caller and the body.
func (h *handler) request(w http.ResponseWriter, r *http.Request) (*http.Request, []byte, bool) {
	principal := store.Public
	if h.o.Principal != nil {
		p, err := h.o.Principal(r)
		if err != nil {
			problem(w, http.StatusUnauthorized, "unauthorized", err.Error(), nil)
			return nil, nil, false
		}
		principal = p
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.o.MaxBody))
	if err != nil {
		problem(w, http.StatusRequestEntityTooLarge, "body too large",
			fmt.Sprintf("the body is over %d bytes: split it", h.o.MaxBody), nil)
		return nil, nil, false
	}
	return r.WithContext(store.WithPrincipal(r.Context(), principal)), body, true
}

func (h *handler) put(w http.ResponseWriter, r *http.Request) {
	r, body, ok := h.request(w, r)
	if !ok {
		return
	}
	// A caller writes its own documents only: which tenants may write
	// public ones or another's is the single-store server's policy, not
	// one this handler has.
	if owner := r.URL.Query().Get("owner"); owner != "" && owner != store.Principal(r.Context()) {
		problem(w, http.StatusForbidden, "forbidden", fmt.Sprintf("?owner=%s: you write as %s; leave owner out, or authenticate as its tenant",
			owner, store.Principal(r.Context())), nil)
		return
	}
	rc, err := h.n.Put(r.Context(), store.Document{Body: body, Kind: canon.Kind(r.URL.Query().Get("kind"))})
	if err != nil {
		fail(w, err)
		return
	}
	status := http.StatusCreated
	if !rc.Created {
		status = http.StatusOK
	}
	writeJSON(w, status, receiptJSON(rc))
}

func (h *handler) delete(w http.ResponseWriter, r *http.Request) {
	r, _, ok := h.request(w, r)
	if !ok {
		return
	}
	id, err := canon.ParseContentID(r.PathValue("id"))
	if err != nil {
		problem(w, http.StatusBadRequest, "bad content id", fmt.Sprintf("/documents/{id}: %v", err), nil)
		return
	}
	del := h.n.Delete
	if r.URL.Query().Get("erase") == "true" {
		del = h.n.Erase
	}
	rc, err := del(r.Context(), id)
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, receiptJSON(rc))
}

func (h *handler) grant(w http.ResponseWriter, r *http.Request) {
	r, body, ok := h.request(w, r)
	if !ok {
		return
	}
	id, err := canon.ParseContentID(r.PathValue("id"))
	if err != nil {
		problem(w, http.StatusBadRequest, "bad content id", fmt.Sprintf("/documents/{id}: %v", err), nil)
		return
	}
	change, grantee := h.n.Revoke, r.PathValue("grantee")
	if r.Method == http.MethodPost {
		var req struct {
			Grantee string `json:"grantee"`
		}
		if err := json.Unmarshal(body, &req); err != nil || req.Grantee == "" {
			problem(w, http.StatusBadRequest, "bad grant", `the body must be {"grantee": "did:…"}`, nil)
			return
		}
		change, grantee = h.n.Grant, req.Grantee
	}
	rc, err := change(r.Context(), id, grantee)
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, receiptJSON(rc))
}

func (h *handler) intent(w http.ResponseWriter, r *http.Request) {
	r, body, ok := h.request(w, r)
	if !ok {
		return
	}
	if in, err := aql.Parse(body, nil); err == nil && in.Category == aql.CategorySubscription {
		h.feed(w, r, in, body) // server-sent events, as POST /storage/subscribe
		return
	}
	qo, err := queryOptions(r)
	if err != nil {
		problem(w, http.StatusBadRequest, "bad query parameter", err.Error(), nil)
		return
	}
	res, err := h.n.query(r.Context(), body, qo)
	if err != nil {
		fail(w, err)
		return
	}
	if len(res.Missing) > 0 {
		parts := make([]string, len(res.Missing))
		for i, s := range res.Missing {
			parts[i] = strconv.Itoa(s)
		}
		w.Header().Set("AQL-Partial", strings.Join(parts, ","))
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(res.JSON)
}

func (h *handler) explain(w http.ResponseWriter, r *http.Request) {
	r, body, ok := h.request(w, r)
	if !ok {
		return
	}
	res, err := h.n.Query(r.Context(), body, &QueryOptions{Explain: true})
	if err != nil {
		fail(w, err)
		return
	}
	plans := map[string]string{}
	for shard, p := range res.Plans {
		plans[strconv.Itoa(shard)] = p
	}
	writeJSON(w, http.StatusOK, map[string]any{"shards": plans})
}

// queryOptions reads the query parameters and AQL-After.
func queryOptions(r *http.Request) (*QueryOptions, error) {
	q := r.URL.Query()
	qo := &QueryOptions{Cursor: q.Get("cursor"), Partial: q.Get("partial") == "true"}
	for name, dst := range map[string]*int{"page_size": &qo.PageSize, "max_rejected": &qo.MaxRejected} {
		if v := q.Get(name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil {
				return nil, fmt.Errorf("?%s=%q is not an integer", name, v)
			}
			*dst = n
		}
	}
	if v := r.Header.Get("AQL-After"); v != "" {
		qo.After = map[int]uint64{}
		for _, part := range strings.Split(v, ",") {
			shard, seq, ok := strings.Cut(strings.TrimSpace(part), ":")
			s, err1 := strconv.Atoi(shard)
			n, err2 := strconv.ParseUint(seq, 10, 64)
			if !ok || err1 != nil || err2 != nil {
				return nil, fmt.Errorf("AQL-After: %q is not shard:seq (write the receipts' shard and seq, e.g. 0:12,2:7)", part)
			}
			qo.After[s] = max(qo.After[s], n)
		}
	}
	return qo, nil
}

func (h *handler) health(w http.ResponseWriter, _ *http.Request) {
	serving := map[string]uint64{}
	for i := range h.n.o.Shards {
		if seq, ok := h.n.Applied(i); ok {
			serving[strconv.Itoa(i)] = seq
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"node": h.n.o.Name, "shards": h.n.o.Shards, "applied": serving})
}

// export streams a shard's export. A failure after the first byte can
// only cut the stream short, which the importer refuses: the export's
// last line is missing.
func (h *handler) export(w http.ResponseWriter, r *http.Request) {
	if h.o.MayExport == nil || !h.o.MayExport(r) {
		problem(w, http.StatusForbidden, "forbidden", "a shard's export holds every tenant's documents: "+
			"only an operator (the auth file's operators) may take it", nil)
		return
	}
	shard, err := strconv.Atoi(r.PathValue("shard"))
	if err != nil {
		problem(w, http.StatusBadRequest, "bad shard", fmt.Sprintf("/shards/%s/export: the shard is a number, e.g. /shards/0/export", r.PathValue("shard")), nil)
		return
	}
	if _, ok := h.n.Applied(shard); !ok {
		problem(w, http.StatusNotFound, "shard not served", fmt.Sprintf("node %s does not serve shard %d; ask a node that does (GET /healthz lists them)", h.n.o.Name, shard), nil)
		return
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	if _, err := h.n.ExportShard(r.Context(), shard, &extending{w: w, rc: http.NewResponseController(w)}); err != nil {
		h.n.o.Logf("cluster: export of shard %d: %v", shard, err)
	}
}

// extending moves the connection's write deadline a minute ahead before
// each write, so an export longer than the server's WriteTimeout is not
// cut while a client that stops reading still is.
type extending struct {
	w  http.ResponseWriter
	rc *http.ResponseController
}

func (e *extending) Write(p []byte) (int, error) {
	_ = e.rc.SetWriteDeadline(time.Now().Add(time.Minute))
	return e.w.Write(p)
}

func receiptJSON(rc Receipt) map[string]any {
	m := map[string]any{"id": rc.ID.String(), "kind": rc.Kind, "owner": rc.Owner, "shard": rc.Shard, "seq": rc.Seq, "created": rc.Created}
	if rc.NaturalKey != "" {
		m["natural_key"] = rc.NaturalKey
	}
	return m
}

// fail answers err with its status.
func fail(w http.ResponseWriter, err error) {
	var (
		se  *ShardError
		inv *aql.InvalidError
		val *aql.ValidityError
	)
	switch {
	case errors.As(err, &se): // no replica, or a stream between leaders: retry later
		problem(w, http.StatusServiceUnavailable, "shard unavailable", err.Error(), map[string]any{"shard": se.Shard})
	case errors.Is(err, store.ErrConflict):
		problem(w, http.StatusConflict, "conflict", err.Error(), nil)
	case errors.Is(err, store.ErrNotFound):
		problem(w, http.StatusNotFound, "not found", err.Error(), nil)
	case errors.Is(err, query.ErrRefused):
		problem(w, http.StatusForbidden, "intent refused", err.Error(), nil)
	case errors.As(err, &inv), errors.As(err, &val), errors.Is(err, ErrBadCursor), isInputError(err):
		problem(w, http.StatusBadRequest, "bad request", err.Error(), nil)
	default:
		problem(w, http.StatusInternalServerError, "internal error", err.Error(), nil)
	}
}

// isInputError reports whether a write failed on its input (a parse or
// validation error naming where) rather than on the cluster.
func isInputError(err error) bool {
	var se *ShardError
	return !errors.As(err, &se) && !errors.Is(err, ErrClosed)
}

func problem(w http.ResponseWriter, status int, title, detail string, extra map[string]any) {
	doc := map[string]any{"type": "about:blank", "title": title, "status": status, "detail": detail}
	for k, v := range extra {
		doc[k] = v
	}
	w.Header().Set("Content-Type", "application/problem+json")
	b, _ := json.Marshal(doc)
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}
