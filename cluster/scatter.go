package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/query"
	"github.com/aqlstore/aqlstore/query/aql"
	"github.com/aqlstore/aqlstore/query/sign"
	"github.com/aqlstore/aqlstore/store"
	"github.com/nats-io/nats.go"
)

// request is what a node asks one replica of a shard.
type request struct {
	Op        string `json:"op"` // "query", "locate" or "match"
	Principal string `json:"principal"`
	// After is a sequence the replica must have applied before it
	// answers (read-your-writes), 0 for none.
	After uint64 `json:"after,omitempty"`

	ID    string     `json:"id,omitempty"`    // locate, match: the content id
	Owner string     `json:"owner,omitempty"` // match: the document's owner and kind
	Kind  canon.Kind `json:"kind,omitempty"`

	Intent []byte    `json:"intent,omitempty"` // query: the intent as the client sent it
	At     time.Time `json:"at"`
	// Limit is how many candidates after Cursor to return in full.
	Limit  int      `json:"limit,omitempty"`
	Cursor *rankKey `json:"cursor,omitempty"`
	// Light asks for the rank keys and costs of the candidates up to
	// Cursor as well: the budget is allotted from rank 1.
	Light       bool `json:"light,omitempty"`
	MaxRejected int  `json:"max_rejected"`
	Explain     bool `json:"explain,omitempty"`
}

// reply is a replica's answer.
type reply struct {
	Error   *remoteError `json:"error,omitempty"`
	Applied uint64       `json:"applied"`

	Kind       canon.Kind `json:"kind,omitempty"` // locate
	NaturalKey string     `json:"natural_key,omitempty"`

	Candidates    []shardCandidate `json:"candidates,omitempty"` // in rank order, after the cursor
	Before        []shardCandidate `json:"before,omitempty"`     // Light: up to the cursor, without Doc
	More          bool             `json:"more,omitempty"`       // candidates after Candidates exist
	Rejected      []shardCandidate `json:"rejected,omitempty"`   // in the shard's document order
	RejectedTotal int              `json:"rejected_total"`
	Plan          string           `json:"plan,omitempty"`
}

// shardCandidate is a candidate or rejection of one shard: its rank key,
// its cost (which ranks it but is not in the response document) and its
// response member as RFC 8785 bytes.
type shardCandidate struct {
	Key  rankKey     `json:"key"`
	Cost *canon.Cost `json:"cost,omitempty"`
	Doc  []byte      `json:"doc,omitempty"`
}

// serve answers one request of the shard's queue group. NATS calls it
// for one message at a time, so each is answered on a goroutine of its
// own, at most cap(r.slots) at once; a request beyond that waits here.
func (r *replica) serve(m *nats.Msg) {
	r.slots <- struct{}{}
	go func() {
		defer func() { <-r.slots }()
		r.respond(m)
	}()
}

func (r *replica) respond(m *nats.Msg) {
	var rep *reply
	var req request
	if err := json.Unmarshal(m.Data, &req); err != nil {
		rep = &reply{Error: &remoteError{Status: http.StatusBadRequest, Message: fmt.Sprintf("decode request: %v", err)}}
	} else {
		rep = r.answer(context.Background(), &req)
	}
	b, err := encodeReply(rep)
	if err != nil {
		b, _ = encodeReply(&reply{Error: &remoteError{Status: http.StatusInternalServerError, Message: err.Error()}})
	}
	_ = m.Respond(b)
}

func (r *replica) answer(ctx context.Context, req *request) *reply {
	ctx, cancel := context.WithTimeout(ctx, r.n.o.RequestTimeout)
	defer cancel()
	rep, err := r.answerErr(ctx, req)
	if err != nil {
		status := http.StatusInternalServerError
		switch {
		case errors.Is(err, store.ErrNotFound):
			status = http.StatusNotFound
		case errors.Is(err, ErrNotApplied), errors.Is(err, store.ErrClosed):
			status = http.StatusServiceUnavailable
		}
		return &reply{Error: &remoteError{Status: status, Message: err.Error()}, Applied: r.applied()}
	}
	rep.Applied = r.applied()
	return rep
}

func (r *replica) answerErr(ctx context.Context, req *request) (*reply, error) {
	if err := r.waitApplied(ctx, req.After, r.n.o.WaitApplied); err != nil {
		return nil, err
	}
	r.life.RLock()
	defer r.life.RUnlock()
	if r.closed {
		return nil, store.ErrClosed
	}
	ctx = store.WithPrincipal(ctx, req.Principal)
	switch req.Op {
	case "locate":
		return r.locate(ctx, req)
	case "query":
		return r.query(ctx, req)
	case "match":
		return r.match(ctx, req)
	}
	return nil, fmt.Errorf("unknown request op %q", req.Op)
}

// locate finds the principal's own document with the content id.
func (r *replica) locate(ctx context.Context, req *request) (*reply, error) {
	id, err := canon.ParseContentID(req.ID)
	if err != nil {
		return nil, err
	}
	d, err := r.s.Get(ctx, store.Ref{ID: id})
	if err != nil {
		return nil, err
	}
	if d.Owner != req.Principal {
		return nil, fmt.Errorf("%w: %s", store.ErrNotFound, id)
	}
	return &reply{Kind: d.Kind, NaturalKey: d.NaturalKey}, nil
}

// query resolves the intent on the shard's store as a single store would,
// with every candidate ranked, and returns those the node needs.
func (r *replica) query(ctx context.Context, req *request) (*reply, error) {
	in, err := aql.Parse(req.Intent, nil)
	if err != nil {
		return nil, fmt.Errorf("intent: %w", err)
	}
	keys := r.n.o.Keys
	if in.Budget != nil {
		if ctx, in, err = withoutBudget(ctx, in, keys, req.Principal); err != nil {
			return nil, err
		}
		keys = nil
	}
	rep := &reply{}
	o := &query.Options{Signer: r.signer, Keys: keys, At: req.At, PageSize: 1 << 30,
		MaxRejected: req.MaxRejected, Index: r.ix}
	if req.Explain {
		o.Explain = func(p *query.Plan) { rep.Plan = p.String() }
	}
	// A full_set page needs the shard's first Limit candidates after the
	// cursor: the store ranks and projects those only (its own cursor
	// placed where the merged page ended), unless the budget needs every
	// candidate before the cursor too (Light).
	paged := in.ResolutionPolicy == "full_set" && req.Limit > 0 && !req.Light
	if paged {
		o.PageSize = req.Limit
		if req.Cursor != nil {
			r.mu.Lock()
			pos := r.position(req.Cursor)
			r.mu.Unlock()
			if o.Cursor, err = query.CursorAfter(r.signer, in, pos); err != nil {
				return nil, err
			}
		}
	}
	resp, err := query.Resolve(ctx, r.s, in, o)
	if err != nil {
		return nil, err
	}
	r.resolved.Store(int64(len(resp.Candidates)))
	rep.More = paged && resp.NextCursor != ""
	wire, _ := resp.MarshalJSON()
	cands, rejs := members(wire, candidatesPointer), members(wire, rejectedPointer)
	if len(cands) != len(resp.Candidates) || len(rejs) != len(resp.Rejected) {
		return nil, fmt.Errorf("the shard's response lists %d candidates and %d rejections, its bytes %d and %d",
			len(resp.Candidates), len(resp.Rejected), len(cands), len(rejs))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := range resp.Candidates {
		c := &resp.Candidates[i]
		sc := shardCandidate{Key: rankKey{Score: c.Score, ID: c.CandidateID, Order: r.order.of(c.CandidateID), Shard: r.shard,
			Num: c.Position().Num}}
		if cost, ok := c.Cost(); ok {
			sc.Cost = &cost
		}
		if !paged && req.Cursor != nil && compareKeys(&sc.Key, req.Cursor) <= 0 {
			if req.Light {
				rep.Before = append(rep.Before, sc)
			}
			continue
		}
		if req.Limit > 0 && len(rep.Candidates) == req.Limit {
			rep.More = true
			break
		}
		sc.Doc = cands[i]
		rep.Candidates = append(rep.Candidates, sc)
	}
	for i := range resp.Rejected {
		x := &resp.Rejected[i]
		doc := rejs[i]
		if i == len(resp.Rejected)-1 && resp.RejectedTotal > len(resp.Rejected) {
			m, err := decodeMember(doc)
			if err != nil {
				return nil, err
			}
			uncapped(m, resp.RejectedTotal, len(resp.Rejected), req.MaxRejected)
			doc = canon.AppendValue(nil, m)
		}
		rep.Rejected = append(rep.Rejected, shardCandidate{
			Key: rankKey{ID: x.CandidateID, Order: r.order.of(x.CandidateID), Shard: r.shard},
			Doc: doc})
	}
	rep.RejectedTotal = resp.RejectedTotal
	return rep, nil
}

var (
	candidatesPointer = canon.MustParsePointer("/candidates/*")
	rejectedPointer   = canon.MustParsePointer("/rejected/*")
)

// members returns the RFC 8785 bytes of the elements of the array p
// names in a response's bytes, in order, sharing wire: the shard sends
// them as the store wrote them.
func members(wire []byte, p *canon.Pointer) [][]byte {
	var w canon.RawWalker
	var out [][]byte
	w.Resolve(p, wire, func(v []byte) bool {
		out = append(out, v[:len(v):len(v)])
		return true
	})
	return out
}

// position places the merged page's last key in this shard's rank order.
// The shard's own candidate carries its document number. Another shard's
// candidate that ties on score and candidate_id with this shard's
// documents comes after them, or before, as the merge orders shards: by
// stream time, then shard number. Call with r.mu held.
func (r *replica) position(k *rankKey) query.Position {
	p := query.Position{Score: k.Score, CandidateID: k.ID, Num: k.Num}
	if k.Shard != r.shard {
		p.Num = 0
		if mine := r.order.of(k.ID); mine < k.Order || mine == k.Order && r.shard < k.Shard {
			p.Num = math.MaxUint32
		}
	}
	return p
}

// unverifiedIssuer is an issuer no resolver knows: an intent under it
// reads as the context's principal.
const unverifiedIssuer = "did:web:unverified.invalid"

// withoutBudget returns the intent without its budget, and ctx acting as
// the reader the intent has: the node allots the budget over every
// shard's candidates, so a shard must not allot its own. The copy no
// longer matches its signature, so it is read under an issuer no resolver
// knows, as the reader the original's signature gave.
func withoutBudget(ctx context.Context, in *aql.Intent, keys sign.Resolver, principal string) (context.Context, *aql.Intent, error) {
	reader, err := query.Reader(in, &query.Options{Keys: keys, Principal: principal})
	if err != nil {
		return nil, nil, err
	}
	doc := make(map[string]any, len(in.Document))
	for k, v := range in.Document {
		doc[k] = v
	}
	delete(doc, "budget")
	doc["issuer_did"] = unverifiedIssuer
	out, err := aql.Parse(canon.AppendValue(nil, doc), nil)
	if err != nil {
		return nil, nil, fmt.Errorf("intent without budget: %w", err)
	}
	return store.WithPrincipal(ctx, reader), out, nil
}

// uncapped removes the note the shard's cap added to its last listed
// rejection; the node adds the cluster's own.
func uncapped(m map[string]any, total, listed, cap int) {
	rec, _ := m["decision_record"].(map[string]any)
	why, _ := rec["explanation"].(string)
	if rec == nil || total <= listed {
		return
	}
	rec["explanation"] = strings.TrimSuffix(why, capNote(total, listed, cap))
}

// capNote is what a response appends to its last listed rejection when
// MaxRejected cut the list (as package query words it).
func capNote(total, listed, cap int) string {
	return fmt.Sprintf("; %d rejected candidates in all, %d listed (MaxRejected cap %d)", total, listed, cap)
}
