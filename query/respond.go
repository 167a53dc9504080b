package query

import (
	"fmt"
	"strconv"
	"sync"
)

// respond ranks, allocates the budget, applies the resolution policy and
// signs (R5, R6).
func (r *resolution) respond() (*Response, error) {
	walked := r.lazy != nil && r.lazy.walked
	if !walked {
		rankOrder(r.accepted)
	}
	if r.lazy == nil {
		allocate(r.in.Budget, r.accepted)
	}
	for i, c := range r.accepted {
		c.Rank = i + 1
	}
	if walked {
		// The walk knows only the numbers: judge the page before it is
		// cut, so that the cursor holds the last one's score and id.
		filled := r.accepted[:min(len(r.accepted), r.pageLen())]
		if err := r.fillPage(filled); err != nil {
			return nil, err
		}
		allocate(r.in.Budget, filled) // a first page (tryLazy): the budget starts with it
	}
	page, next, err := r.page()
	if err != nil {
		return nil, err
	}
	if r.lazy != nil && !walked {
		if err := r.fillPage(page); err != nil {
			return nil, err
		}
		allocate(r.in.Budget, page)
	}
	if r.top != nil {
		if err := r.fillTop(page); err != nil {
			return nil, err
		}
	}
	resp := &Response{
		ResponseID: "urn:oap:intent-response:" + r.id, IntentID: r.in.IntentID,
		ResolverDID: r.o.Signer.DID(), ResolverRole: r.o.Role, EvaluatedAt: r.at,
		NextCursor: next, RejectedTotal: r.nReject, Evaluated: r.nEval,
	}
	if len(page) > 0 {
		resp.Candidates = make([]Candidate, 0, len(page))
	}
	for _, c := range page {
		c.Record.DecisionID = r.decisionID()
		resp.Candidates = append(resp.Candidates, *c)
	}
	resp.Rejected = r.rejectedList()
	buf := unsignedBufs.Get().(*[]byte)
	defer putUnsignedBuf(buf)
	unsigned, err := resp.appendUnsigned((*buf)[:0])
	if err != nil {
		return nil, fmt.Errorf("query: sign response: %w", err)
	}
	if cap(unsigned) > unsignedBufMax {
		// Too large to pool: the buffer becomes the response, signed in
		// place rather than copied.
		resp.wire, resp.Signature = r.o.Signer.SealCanonical(unsigned)
		return resp, nil
	}
	*buf = unsigned
	resp.wire, resp.Signature = r.o.Signer.AppendSignedCanonical(nil, unsigned)
	return resp, nil
}

// unsignedBufMax is the largest buffer unsignedBufs keeps.
const unsignedBufMax = 1 << 20

// unsignedBufs keep the buffers responses are written into before they
// are signed: the signed bytes are a copy, so the buffer is free again
// when respond returns, and a response with its records (100 rejections:
// tens of KB) is not grown from nothing on every query.
var unsignedBufs = sync.Pool{New: func() any { return new([]byte) }}

// putUnsignedBuf returns b to the pool unless one huge response grew it.
func putUnsignedBuf(b *[]byte) {
	if cap(*b) <= unsignedBufMax {
		unsignedBufs.Put(b)
	}
}

// page applies the resolution policy: single_best → the best one,
// ranked_set → all ranked, full_set → one page after the cursor.
func (r *resolution) page() ([]*Candidate, string, error) {
	switch r.in.ResolutionPolicy {
	case "single_best":
		return r.accepted[:min(1, len(r.accepted))], "", nil
	case "full_set":
		return r.fullSetPage()
	}
	return r.accepted, "", nil
}

func (r *resolution) fullSetPage() ([]*Candidate, string, error) {
	start := 0
	if c := r.cursor; c != nil && (r.lazy == nil || !r.lazy.walked) { // a walk starts after the cursor
		start = afterKey(r.accepted, c.score, c.id, c.num)
	}
	end := min(start+r.o.PageSize, len(r.accepted))
	page := r.accepted[start:end]
	if r.cursor != nil {
		// Ranks continue from the previous page, even when documents that
		// rank before the cursor arrived in between.
		for i, c := range page {
			c.Rank = r.cursor.rank + 1 + i
		}
	}
	if end == len(r.accepted) {
		return page, "", nil
	}
	last := page[len(page)-1]
	next, err := encodeCursor(r.o.Signer, r.in, cursorState{score: last.Score, id: last.CandidateID, num: last.num, rank: last.Rank})
	return page, next, err
}

func (r *resolution) decisionID() string {
	r.decision++
	var b [96]byte // one allocation: the string
	id := append(append(append(b[:0], "urn:oap:decision:"...), r.id...), '-')
	return string(strconv.AppendInt(id, int64(r.decision), 10))
}

// rejectedList gives the listed rejections their ids and says, in the
// last one's explanation, when the cap cut the list.
func (r *resolution) rejectedList() []Rejection {
	out := r.rejected
	for i := range out {
		out[i].Record.DecisionID = r.decisionID()
	}
	if n := len(out); n > 0 && r.nReject > n {
		out[n-1].Record.Explanation += fmt.Sprintf("; %d rejected candidates in all, %d listed (MaxRejected cap %d)",
			r.nReject, n, r.o.MaxRejected)
	}
	return out
}
