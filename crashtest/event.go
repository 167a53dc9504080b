package crashtest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/aqlstore/aqlstore/canon"
)

// Doc names one stored document as the harness tracks it. Owner, Kind
// and Key (the natural key) identify it; ID is the content id its body
// must have.
type Doc struct {
	Owner string     `json:"o"`
	Kind  canon.Kind `json:"k"`
	Key   string     `json:"key"`
	ID    string     `json:"id"`
}

func (d Doc) String() string {
	return fmt.Sprintf("%s %q of %s (%.12s…)", d.Kind, d.Key, d.Owner, d.ID)
}

// Event kinds.
const (
	EvStart = "start" // the child is about to open the store
	EvOpen  = "open"  // the workload opened the store
	EvBegin = "begin" // a mutation is about to start
	EvAck   = "ack"   // the mutation returned without error
)

// Event is one line of the workload's log. A begin names every document
// the mutation puts (Puts) and deletes (Dels); its ack repeats only Op.
type Event struct {
	Ev     string `json:"ev"`
	Op     int    `json:"op,omitempty"`
	What   string `json:"what,omitempty"` // put, batch, bulk, delete, reput, pairl, aidp, observe, import
	Writer int    `json:"w,omitempty"`
	Puts   []Doc  `json:"puts,omitempty"`
	Dels   []Doc  `json:"dels,omitempty"`
}

func (e *Event) String() string {
	return fmt.Sprintf("op %d (%s by writer %d: %d puts, %d deletes)", e.Op, e.What, e.Writer, len(e.Puts), len(e.Dels))
}

// Log receives the workload's events. Emit returns once the event is
// recorded where the harness will read it (for a child process: written
// to the pipe), so an event emitted before a mutation starts is seen even
// if the process dies during the mutation. Implementations are safe for
// concurrent use.
type Log interface {
	Emit(Event) error
}

// lineLog writes one JSON event per line and flushes it before Emit
// returns.
type lineLog struct {
	mu sync.Mutex
	w  *bufio.Writer
}

// NewLineLog returns a Log writing JSON lines to w (a child's stdout).
func NewLineLog(w io.Writer) Log { return &lineLog{w: bufio.NewWriter(w)} }

func (l *lineLog) Emit(e Event) error {
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.w.Write(append(b, '\n'))
	return l.w.Flush()
}

// memLog keeps events in memory, for a workload run in process.
type memLog struct {
	mu     sync.Mutex
	events []Event
}

func (l *memLog) Emit(e Event) error {
	l.mu.Lock()
	l.events = append(l.events, e)
	l.mu.Unlock()
	return nil
}

// acks counts the acknowledgements recorded.
func (l *memLog) acks() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, e := range l.events {
		if e.Ev == EvAck {
			n++
		}
	}
	return n
}

// freeze runs fn with no event recorded meanwhile and returns the events
// recorded before it. A mutation emits its begin before it starts and its
// ack after it returns, so what fn sees of the store is bounded by the
// events returned: every acknowledged mutation has returned, and no
// mutation missing from them has started.
func (l *memLog) freeze(fn func()) []Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	fn()
	return append([]Event(nil), l.events...)
}

// ParseLog decodes a log written by NewLineLog. A last line without its
// newline was cut by the kill and is dropped: a begin cut short was never
// followed by its mutation, an ack cut short leaves its mutation in
// flight. Any complete line that is not an event is ErrProtocol.
func ParseLog(b []byte) ([]Event, error) {
	var out []Event
	for n := 1; len(b) > 0; n++ {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			break
		}
		var e Event
		dec := json.NewDecoder(bytes.NewReader(b[:i]))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&e); err != nil {
			return nil, fmt.Errorf("%w: line %d: %v: %.80q", ErrProtocol, n, err, b[:i])
		}
		switch e.Ev {
		case EvStart, EvOpen, EvBegin, EvAck:
		default:
			return nil, fmt.Errorf("%w: line %d: unknown event %q", ErrProtocol, n, e.Ev)
		}
		out = append(out, e)
		b = b[i+1:]
	}
	return out, nil
}
