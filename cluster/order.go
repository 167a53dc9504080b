package cluster

import "github.com/aqlstore/aqlstore/canon"

// orderBook remembers, for each candidate id of a shard's live documents,
// when JetStream stored each of them: the merge order of documents of
// different shards that rank alike (equal score and candidate_id) and of
// rejections, which a single store orders by document number, that is by
// write order. Not safe for concurrent use (the replica's mu guards it).
type orderBook map[string][]stored

type stored struct {
	doc string // owner, kind and content id
	at  int64  // stream time, Unix nanoseconds
}

// note records a put or a delete of e stored at at.
func (b orderBook) note(e *entry, at int64) {
	if e.Op != opPut && e.Op != opDelete {
		return // a grant changes who reads, not when the document was stored
	}
	doc := docKey(e.Owner, e.Kind, e.ID)
	list := b[e.CandidateID]
	for i, s := range list {
		if s.doc == doc {
			if e.Op == opDelete {
				list = append(list[:i], list[i+1:]...)
				if len(list) == 0 {
					delete(b, e.CandidateID)
				} else {
					b[e.CandidateID] = list
				}
			}
			return // an identical put keeps its first time, as a store keeps its number
		}
	}
	if e.Op == opPut {
		b[e.CandidateID] = append(list, stored{doc: doc, at: at})
	}
}

// of returns the earliest time a live document with candidate id cid was
// stored, 0 when none is known.
func (b orderBook) of(cid string) int64 {
	var first int64
	for _, s := range b[cid] {
		if first == 0 || s.at < first {
			first = s.at
		}
	}
	return first
}

// at returns when the live document doc (docKey) of candidate id cid was
// stored, 0 when it is not known.
func (b orderBook) at(cid, doc string) int64 {
	for _, s := range b[cid] {
		if s.doc == doc {
			return s.at
		}
	}
	return 0
}

// docKey names one document of a shard: its owner, kind and content id.
func docKey(owner string, kind canon.Kind, id string) string {
	return owner + "\x00" + string(kind) + "\x00" + id
}
