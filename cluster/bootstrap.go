package cluster

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/store"
)

// A new replica of a shard need not apply the shard's whole stream: it
// imports an export of a live replica, which names the stream sequence it
// reflects, and its durable consumer starts after that sequence.
//
// An export is NDJSON. Its first line is the header,
//
//	{"aqlstore_shard_export": "1", "shard": i, "shards": n, "seq": s}
//
// and every other line one live document of the shard, in the exporting
// store's document order (which is the order a store breaks ties by, so
// the importer keeps it):
//
//	{"owner", "kind", "id", "candidate_id", "body": base64 of the canonical bytes,
//	 "signals"?, "grantees"?: [DID, …], "at": the stream time, Unix ns}
//
// and the last line {"end": true, "documents": count}, without which the
// export was cut short and is refused.
//
// The store holds exactly the entries up to s when the export is taken,
// or one more, whose second application is a no-op (replica.go): the
// export holds the replica's apply lock, so no entry is applied while it
// reads.

const shardExportVersion = "1"

type exportHeader struct {
	Version string `json:"aqlstore_shard_export"`
	Shard   int    `json:"shard"`
	Shards  int    `json:"shards"`
	Seq     uint64 `json:"seq"`
}

type exportEnd struct {
	End       bool `json:"end"`
	Documents int  `json:"documents"`
}

type exportedDoc struct {
	Owner       string         `json:"owner"`
	Kind        canon.Kind     `json:"kind"`
	ID          string         `json:"id"` // content id
	CandidateID string         `json:"candidate_id"`
	Body        []byte         `json:"body"`
	Signals     *canon.Signals `json:"signals,omitempty"`
	Grantees    []string       `json:"grantees,omitempty"`
	At          int64          `json:"at"`
}

// ExportShard writes an export of shard, which this node serves, to w and
// returns the stream sequence it reflects: a new replica started with it
// (Options.Bootstrap) applies only the entries after that sequence. The
// shard applies no entry while the export is written, so take it from a
// replica that is not the shard's only one when the shard is busy.
func (n *Node) ExportShard(ctx context.Context, shard int, w io.Writer) (uint64, error) {
	r, ok := n.replicas[shard]
	if !ok {
		return 0, fmt.Errorf("%w: node %s does not serve shard %d; export from a node that does (GET /healthz lists them)",
			ErrNotServed, n.o.Name, shard)
	}
	return r.export(ctx, w)
}

func (r *replica) export(ctx context.Context, w io.Writer) (uint64, error) {
	r.applyMu.Lock()
	defer r.applyMu.Unlock()
	r.life.RLock()
	defer r.life.RUnlock()
	if r.closed {
		return 0, ErrClosed
	}
	seq := r.applied()
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	if err := enc.Encode(exportHeader{Version: shardExportVersion, Shard: r.shard, Shards: r.n.o.Shards, Seq: seq}); err != nil {
		return 0, err
	}
	count := 0
	err := r.s.EachDocument(ctx, func(num uint32, d store.IndexInput) error {
		count++
		octx := store.WithPrincipal(ctx, d.Owner)
		doc, err := r.s.Get(octx, store.Ref{Num: num})
		if err != nil {
			return fmt.Errorf("document %d: %w", num, err)
		}
		x := exportedDoc{Owner: d.Owner, Kind: d.Kind, ID: doc.ID.String(), CandidateID: d.CandidateID, Body: doc.Body, Signals: doc.Signals}
		if d.Owner != store.Public { // public documents are not granted
			if x.Grantees, err = r.s.Grantees(octx, store.Ref{ID: doc.ID}); err != nil {
				return fmt.Errorf("document %d: grantees: %w", num, err)
			}
		}
		r.mu.Lock()
		x.At = r.order.at(d.CandidateID, docKey(d.Owner, d.Kind, doc.ID.String()))
		r.mu.Unlock()
		return enc.Encode(&x)
	})
	if err == nil {
		err = enc.Encode(exportEnd{End: true, Documents: count})
	}
	if err != nil {
		return 0, fmt.Errorf("cluster: export shard %d: %w", r.shard, err)
	}
	return seq, bw.Flush()
}

// bootstrap imports the export at path into the replica's store and
// returns the sequence it reflects. An import cut short is finished by
// running it again: a document or grant already stored is kept.
func (r *replica) bootstrap(ctx context.Context, path string) (uint64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("bootstrap shard %d: %w", r.shard, err)
	}
	defer f.Close()
	seq, err := r.importExport(ctx, bufio.NewReader(f))
	if err != nil {
		return 0, fmt.Errorf("bootstrap shard %d from %s: %w", r.shard, path, err)
	}
	return seq, nil
}

func (r *replica) importExport(ctx context.Context, br *bufio.Reader) (uint64, error) {
	line, err := br.ReadBytes('\n')
	if err != nil && !(errors.Is(err, io.EOF) && len(line) > 0) {
		return 0, fmt.Errorf("%w: line 1: no header; take the export with ExportShard (GET /shards/{i}/export)", ErrBadExport)
	}
	var h exportHeader
	if err := strictJSON(line, &h); err != nil || h.Version != shardExportVersion {
		return 0, fmt.Errorf("%w: line 1: want the header {\"aqlstore_shard_export\":%q,…}, got %.80q", ErrBadExport, shardExportVersion, line)
	}
	if h.Shard != r.shard || h.Shards != r.n.o.Shards {
		return 0, fmt.Errorf("%w: line 1: the export is of shard %d of %d, this replica is of shard %d of %d; export the shard it serves",
			ErrBadExport, h.Shard, h.Shards, r.shard, r.n.o.Shards)
	}
	docs := 0
	for n := 2; ; n++ {
		line, err := br.ReadBytes('\n')
		var end exportEnd
		switch {
		case len(bytes.TrimSpace(line)) == 0:
		case strictJSON(line, &end) == nil && end.End:
			if end.Documents != docs {
				return 0, fmt.Errorf("%w: line %d: the export says %d documents, it holds %d; take it again", ErrBadExport, n, end.Documents, docs)
			}
			return h.Seq, nil
		default:
			if err := r.importDoc(ctx, line); err != nil {
				return 0, fmt.Errorf("line %d: %w", n, err)
			}
			docs++
		}
		if errors.Is(err, io.EOF) {
			return 0, fmt.Errorf("%w: line %d: the export ends without its last line {\"end\":true,…}: it was cut short; take it again", ErrBadExport, n)
		}
		if err != nil {
			return 0, err
		}
	}
}

// importDoc stores one exported document, its grants and its stream time.
func (r *replica) importDoc(ctx context.Context, line []byte) error {
	var x exportedDoc
	if err := strictJSON(line, &x); err != nil {
		return fmt.Errorf("%w: %v", ErrBadExport, err)
	}
	if x.Owner == "" || x.ID == "" || x.CandidateID == "" || len(x.Body) == 0 {
		return fmt.Errorf("%w: owner, id, candidate_id and body are required", ErrBadExport)
	}
	body := x.Body
	if x.Kind == canon.KindCandidate {
		// A store keeps a candidate's record; it is put in its {id, record}
		// shape, its signals beside it, as store.Import does.
		body = append(append(append(append([]byte(`{"id":`), canon.AppendValue(nil, x.CandidateID)...), `,"record":`...), body...), '}')
	}
	lim := r.s.Limits()
	// An observation's signature was checked when it was first put.
	p, err := store.ParseDocument(body, x.Kind, &lim, &store.MessageOptions{AllowUnsignedObservations: true})
	if err != nil {
		return fmt.Errorf("%w: %v", ErrBadExport, err)
	}
	octx := store.WithPrincipal(ctx, x.Owner)
	ref, err := r.s.Put(octx, store.Document{Parsed: p, Owner: x.Owner, Signals: x.Signals})
	if err != nil {
		return err
	}
	if ref.ID.String() != x.ID {
		return fmt.Errorf("%w: the body is content id %s, the line says %s", ErrBadExport, ref.ID, x.ID)
	}
	for _, g := range x.Grantees {
		if err := r.s.Grant(octx, store.Ref{ID: ref.ID}, g); err != nil {
			return fmt.Errorf("grant to %s: %w", g, err)
		}
	}
	r.mu.Lock()
	r.order.note(&entry{Op: opPut, Owner: x.Owner, Kind: ref.Kind, ID: ref.ID.String(), CandidateID: x.CandidateID}, x.At)
	r.mu.Unlock()
	return nil
}

func strictJSON(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}
