package cluster

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/aqlstore/aqlstore/canon"
)

// A reply goes over NATS framed, not as JSON: its small members as a
// JSON header, then each list of candidates with the members' RFC 8785
// bytes copied as they are (JSON would carry them in base64, and a
// decoder copy them again). The frame:
//
//	uvarint len, header JSON (the reply without its lists)
//	for Candidates, Before, Rejected: uvarint count, then per candidate
//	  string score, string id, varint order, uvarint shard, uvarint num,
//	  string cost amount, string cost currency (both "" for none), bytes doc
//
// where a string or bytes is a uvarint length and that many bytes.

func encodeReply(rep *reply) ([]byte, error) {
	head := *rep
	head.Candidates, head.Before, head.Rejected = nil, nil, nil
	h, err := json.Marshal(&head)
	if err != nil {
		return nil, err
	}
	n := len(h) + 16
	for _, l := range [][]shardCandidate{rep.Candidates, rep.Before, rep.Rejected} {
		for i := range l {
			n += len(l[i].Doc) + len(l[i].Key.ID) + len(l[i].Key.Score) + 48
		}
	}
	b := binary.AppendUvarint(make([]byte, 0, n), uint64(len(h)))
	b = append(b, h...)
	for _, l := range [][]shardCandidate{rep.Candidates, rep.Before, rep.Rejected} {
		b = binary.AppendUvarint(b, uint64(len(l)))
		for i := range l {
			c := &l[i]
			b = appendBytes(b, []byte(c.Key.Score))
			b = appendBytes(b, []byte(c.Key.ID))
			b = binary.AppendVarint(b, c.Key.Order)
			b = binary.AppendUvarint(b, uint64(c.Key.Shard))
			b = binary.AppendUvarint(b, uint64(c.Key.Num))
			var cost canon.Cost
			if c.Cost != nil {
				cost = *c.Cost
			}
			b = appendBytes(b, []byte(cost.Amount))
			b = appendBytes(b, []byte(cost.Currency))
			b = appendBytes(b, c.Doc)
		}
	}
	return b, nil
}

func appendBytes(b, v []byte) []byte {
	return append(binary.AppendUvarint(b, uint64(len(v))), v...)
}

// errShortFrame is a frame that ends before its last field.
var errShortFrame = errors.New("the frame ends early")

// frameReader reads a frame's fields, remembering the first error.
type frameReader struct {
	b   []byte
	off int
	err error
}

func (r *frameReader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b[r.off:])
	if n <= 0 {
		r.err = fmt.Errorf("%w: a number at byte %d", errShortFrame, r.off)
		return 0
	}
	r.off += n
	return v
}

func (r *frameReader) varint() int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b[r.off:])
	if n <= 0 {
		r.err = fmt.Errorf("%w: a number at byte %d", errShortFrame, r.off)
		return 0
	}
	r.off += n
	return v
}

// bytes returns the next length-prefixed field, sharing the frame.
func (r *frameReader) bytes() []byte {
	n := r.uvarint()
	if r.err != nil {
		return nil
	}
	if n > uint64(len(r.b)-r.off) {
		r.err = fmt.Errorf("%w: a field of %d bytes at byte %d, %d left", errShortFrame, n, r.off, len(r.b)-r.off)
		return nil
	}
	v := r.b[r.off : r.off+int(n) : r.off+int(n)]
	r.off += int(n)
	return v
}

// decodeReply reads a frame encodeReply wrote. The candidates' Doc
// bytes share b.
func decodeReply(b []byte) (*reply, error) {
	r := &frameReader{b: b}
	var rep reply
	if h := r.bytes(); r.err == nil {
		if err := json.Unmarshal(h, &rep); err != nil {
			return nil, fmt.Errorf("decode reply header: %w", err)
		}
	}
	for _, l := range []*[]shardCandidate{&rep.Candidates, &rep.Before, &rep.Rejected} {
		count := r.uvarint()
		if count > uint64(len(b)) {
			return nil, fmt.Errorf("decode reply: %d candidates in a frame of %d bytes", count, len(b))
		}
		for range count {
			var c shardCandidate
			c.Key.Score = canon.Number(r.bytes())
			c.Key.ID = string(r.bytes())
			c.Key.Order = r.varint()
			c.Key.Shard = int(r.uvarint())
			c.Key.Num = uint32(r.uvarint())
			if amount, currency := r.bytes(), r.bytes(); len(amount) > 0 {
				c.Cost = &canon.Cost{Amount: string(amount), Currency: string(currency)}
			}
			if doc := r.bytes(); len(doc) > 0 {
				c.Doc = doc // nil when none, as in the reply sent
			}
			if r.err != nil {
				break
			}
			*l = append(*l, c)
		}
	}
	if r.err == nil && r.off != len(b) {
		r.err = fmt.Errorf("%d bytes after the last field", len(b)-r.off)
	}
	if r.err != nil {
		return nil, fmt.Errorf("decode reply: %w", r.err)
	}
	return &rep, nil
}
