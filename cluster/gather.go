package cluster

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/query"
	"github.com/aqlstore/aqlstore/query/aql"
	"github.com/aqlstore/aqlstore/store"
)

// QueryOptions configure one query. A nil *QueryOptions means the
// defaults.
type QueryOptions struct {
	// At is the instant validity windows are checked against and the
	// response is dated by (default Options.Now).
	At time.Time
	// PageSize is the number of candidates of one full_set page (default 100).
	PageSize int
	// Cursor continues a full_set query from a previous next_cursor.
	Cursor string
	// MaxRejected caps the rejected candidates listed (default 100;
	// negative lists none).
	MaxRejected int
	// After maps shards to the stream sequences the answer must include
	// (the Receipts of the caller's writes): each shard waits until it
	// applied them, at most Options.WaitApplied.
	After map[int]uint64
	// Partial answers without the shards no replica serves, naming them
	// in the response's "partial" member, instead of failing.
	Partial bool
	// Explain collects each shard's plan in Result.Plans.
	Explain bool
}

// Result is a merged, signed IntentResponse.
type Result struct {
	// Document is the signed response (the canon value model).
	Document map[string]any
	// JSON is its RFC 8785 bytes, signature included.
	JSON []byte
	// Missing lists the shards a Partial answer lacks, nil when whole.
	Missing []int
	// RejectedTotal counts every rejected candidate, listed or not.
	RejectedTotal int
	// Plans holds each shard's plan (query.Plan.String) when
	// QueryOptions.Explain; "" for a shard that scanned without an index.
	Plans map[int]string
}

// Query resolves an AQL intent over every shard and returns the signed
// merge: equal, but for ids, times and signature, to what one store
// holding every shard's documents answers. The reader is the context's
// principal (store.WithPrincipal), or the issuer when its signature
// verifies, as for a store.
func (n *Node) Query(ctx context.Context, intent []byte, qo *QueryOptions) (*Result, error) {
	res, err := n.query(ctx, intent, qo)
	if err != nil {
		return nil, err
	}
	v, err := canon.DecodeCanonical(res.JSON)
	if err != nil {
		return nil, fmt.Errorf("cluster: the merged response does not decode: %w", err)
	}
	res.Document, _ = v.(map[string]any)
	return res, nil
}

// query is Query without Result.Document: the merged members are the
// shards' bytes, spliced (splice), which the HTTP handler sends as they
// are.
func (n *Node) query(ctx context.Context, intent []byte, qo *QueryOptions) (*Result, error) {
	if n.o.Signer == nil {
		return nil, fmt.Errorf("%w: Signer is nil; a node that answers queries needs the cluster's signing key", ErrInvalidOptions)
	}
	o := queryDefaults(qo, n.o.Now)
	in, err := aql.Parse(intent, nil)
	if err != nil {
		return nil, fmt.Errorf("intent: %w", err)
	}
	if err := in.CheckValidity(o.At); err != nil {
		return nil, err
	}
	principal := store.Principal(ctx)
	if _, err := query.Reader(in, &query.Options{Keys: n.o.Keys, Principal: principal}); err != nil {
		return nil, err
	}
	g := &gathering{n: n, in: in, o: o}
	if o.Cursor != "" {
		if in.ResolutionPolicy != "full_set" {
			return nil, fmt.Errorf("%w: only full_set responses are paginated", ErrBadCursor)
		}
		if g.cursor, err = decodeCursor(n.o.Signer, in, o.Cursor); err != nil {
			return nil, err
		}
	}
	replies, missing, err := n.scatter(ctx, o.Partial, func(shard int) *request {
		return g.request(shard, principal, intent)
	})
	if err != nil {
		return nil, err
	}
	return g.merge(replies, missing)
}

func queryDefaults(qo *QueryOptions, now func() time.Time) QueryOptions {
	var o QueryOptions
	if qo != nil {
		o = *qo
	}
	if o.At.IsZero() {
		o.At = now()
	}
	o.At = o.At.UTC()
	if o.PageSize <= 0 {
		o.PageSize = 100
	}
	if o.MaxRejected == 0 {
		o.MaxRejected = 100
	}
	return o
}

// gathering is the state of one merge.
type gathering struct {
	n      *Node
	in     *aql.Intent
	o      QueryOptions
	cursor *cursorState
	id     string
	nDec   int
}

func (g *gathering) request(shard int, principal string, intent []byte) *request {
	req := &request{Op: "query", Principal: principal, After: g.o.After[shard], Intent: intent, At: g.o.At,
		MaxRejected: g.o.MaxRejected, Explain: g.o.Explain}
	switch g.in.ResolutionPolicy {
	case "single_best":
		req.Limit = 1
	case "full_set":
		req.Limit = g.o.PageSize
	}
	if g.cursor != nil {
		req.Cursor = &g.cursor.Key
		req.Light = g.in.Budget != nil
		req.MaxRejected = -1 // a continuation page lists no rejections
	}
	return req
}

// merge ranks every shard's candidates together, allots the budget,
// applies the policy, lists the rejections in write order and signs.
func (g *gathering) merge(replies map[int]*reply, missing []int) (*Result, error) {
	var b [16]byte
	_, _ = rand.Read(b[:])
	g.id = hex.EncodeToString(b[:])
	var all []shardCandidate
	more := false
	res := &Result{Missing: missing}
	for shard := range g.n.o.Shards {
		rep, ok := replies[shard]
		if !ok {
			continue
		}
		all = append(all, rep.Before...)
		all = append(all, rep.Candidates...)
		more = more || rep.More
		res.RejectedTotal += rep.RejectedTotal
		if g.o.Explain {
			if res.Plans == nil {
				res.Plans = map[int]string{}
			}
			res.Plans[shard] = rep.Plan
		}
	}
	// Stable: candidates of one shard that rank alike keep the shard's
	// order, which is its document order.
	slices.SortStableFunc(all, func(a, b shardCandidate) int { return compareKeys(&a.Key, &b.Key) })
	costs := make([]*canon.Cost, len(all))
	for i := range all {
		costs[i] = all[i].Cost
	}
	why := allot(g.in.Budget, costs)
	page, next, err := g.page(all, why, more)
	if err != nil {
		return nil, err
	}
	rejected, err := g.rejected(replies, res.RejectedTotal)
	if err != nil {
		return nil, err
	}
	doc := map[string]any{
		"response_id": "urn:oap:intent-response:" + g.id, "intent_id": g.in.IntentID,
		"resolver_did": g.n.o.Signer.DID(), "resolver_role": "storage_substrate",
		"evaluated_at": g.o.At.Format(time.RFC3339Nano), "candidates": page,
	}
	if len(rejected) > 0 {
		doc["rejected"] = rejected
	}
	if next != "" {
		doc["next_cursor"] = next
	}
	if len(missing) > 0 {
		ms := make([]any, len(missing))
		for i, s := range missing {
			ms[i] = canon.Number(strconv.Itoa(s))
		}
		doc["partial"] = map[string]any{"missing_shards": ms}
	}
	wire, _, err := g.n.o.Signer.AppendSigned(nil, doc)
	if err != nil {
		return nil, fmt.Errorf("cluster: sign response: %w", err)
	}
	res.JSON = wire
	return res, nil
}

// page applies the resolution policy to the merged candidates (those up
// to the cursor, with their allotments, first) and returns the page's
// members and the next cursor.
func (g *gathering) page(all []shardCandidate, why []string, more bool) ([]any, string, error) {
	start, rank := 0, 0
	if g.cursor != nil {
		for start < len(all) && compareKeys(&all[start].Key, &g.cursor.Key) <= 0 {
			start++
		}
		rank = g.cursor.Rank
	}
	end := len(all)
	switch g.in.ResolutionPolicy {
	case "single_best":
		end = min(1, end)
	case "full_set":
		end = min(start+g.o.PageSize, end)
	}
	page := make([]any, 0, end-start)
	for i := start; i < end; i++ {
		if why[i] == "" {
			rank++
			if b, ok := splice(all[i].Doc, rank, g.decisionID()); ok {
				page = append(page, b)
				continue
			}
			rank-- // numbered again below
			g.nDec--
		}
		m, err := decodeMember(all[i].Doc)
		if err != nil {
			return nil, "", err
		}
		rank++
		m["rank"] = canon.Number(strconv.Itoa(rank))
		rec, _ := m["decision_record"].(map[string]any)
		if why[i] != "" {
			m["over_budget"] = true
			rec["outcome"], rec["explanation"] = "over_budget", why[i]
		}
		rec["decision_id"] = g.decisionID()
		page = append(page, m)
	}
	if g.in.ResolutionPolicy != "full_set" || (end == len(all) && !more) || end == start {
		return page, "", nil
	}
	return page, encodeCursor(g.n.o.Signer, g.in, all[end-1].Key, rank), nil
}

// rejected merges the shards' listed rejections in write order and keeps
// the first MaxRejected, noting the cap as a store does.
func (g *gathering) rejected(replies map[int]*reply, total int) ([]any, error) {
	if g.cursor != nil || g.o.MaxRejected < 0 {
		return nil, nil
	}
	var all []shardCandidate
	for shard := range g.n.o.Shards {
		if rep, ok := replies[shard]; ok {
			all = append(all, rep.Rejected...)
		}
	}
	slices.SortStableFunc(all, func(a, b shardCandidate) int {
		if a.Key.Order != b.Key.Order {
			return cmp.Compare(a.Key.Order, b.Key.Order)
		}
		return a.Key.Shard - b.Key.Shard
	})
	all = all[:min(len(all), g.o.MaxRejected)]
	out := make([]any, len(all))
	for i, x := range all {
		capped := i == len(all)-1 && total > len(all)
		if !capped {
			if b, ok := splice(x.Doc, 0, g.decisionID()); ok {
				out[i] = b
				continue
			}
			g.nDec-- // numbered again below
		}
		m, err := decodeMember(x.Doc)
		if err != nil {
			return nil, err
		}
		rec, _ := m["decision_record"].(map[string]any)
		rec["decision_id"] = g.decisionID()
		if i == len(all)-1 && total > len(all) {
			why, _ := rec["explanation"].(string)
			rec["explanation"] = why + capNote(total, len(all), g.o.MaxRejected)
		}
		out[i] = m
	}
	return out, nil
}

func (g *gathering) decisionID() string {
	g.nDec++
	return fmt.Sprintf("urn:oap:decision:%s-%d", g.id, g.nDec)
}

var (
	rankPointer       = canon.MustParsePointer("/rank")
	decisionIDPointer = canon.MustParsePointer("/decision_record/decision_id")
)

// splice returns a shard's member b, RFC 8785 bytes, with its
// decision_id and, when rank > 0, its rank replaced, without decoding it
// (the values keep their places: members are sorted by name, not by
// value). It returns false when b lacks either value; the caller then
// decodes it.
func splice(b []byte, rank int, decisionID string) (canon.RawValue, bool) {
	type edit struct {
		at, n int
		v     []byte
	}
	var edits []edit
	var w canon.RawWalker
	replace := func(p *canon.Pointer, v []byte) bool {
		found := false
		w.Resolve(p, b, func(old []byte) bool {
			if at, ok := within(b, old); ok {
				edits = append(edits, edit{at, len(old), v})
				found = true
			}
			return false
		})
		return found
	}
	id, err := canon.AppendString(nil, decisionID)
	if err != nil || !replace(decisionIDPointer, id) {
		return nil, false
	}
	if rank > 0 && !replace(rankPointer, strconv.AppendInt(nil, int64(rank), 10)) {
		return nil, false
	}
	slices.SortFunc(edits, func(a, b edit) int { return a.at - b.at })
	out := make([]byte, 0, len(b)+len(id))
	prev := 0
	for _, e := range edits {
		out = append(append(out, b[prev:e.at]...), e.v...)
		prev = e.at + e.n
	}
	return append(out, b[prev:]...), true
}

// within returns the offset of v in b, when v is a part of b's bytes.
func within(b, v []byte) (int, bool) {
	at := cap(b) - cap(v)
	if len(v) == 0 || at < 0 || at+len(v) > len(b) || &b[at] != &v[0] {
		return 0, false
	}
	return at, true
}

func decodeMember(b []byte) (map[string]any, error) {
	v, err := canon.Decode(b, &canon.Limits{MaxBytes: len(b) + 1, MaxDepth: canon.DefaultMaxDepth + 8, MaxMembers: 1 << 24})
	m, ok := v.(map[string]any)
	if err != nil || !ok {
		return nil, fmt.Errorf("cluster: a shard sent a malformed candidate: %v", err)
	}
	return m, nil
}
