package client

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// maxEventBytes bounds one event's data.
const maxEventBytes = 64 << 20

// Event is one server-sent event.
type Event struct {
	ID   string // the event's id ("" when it set none): a receipt seq for subscriptions
	Name string // the event type; "message" when the server named none
	Data []byte // the signed JSON document
}

// Stream reads the events of one text/event-stream response. It is used
// by one goroutine; Close it when done.
type Stream struct {
	resp *http.Response
	r    *bufio.Reader
	last string
}

// Subscribe posts a subscription intent and returns its event stream.
// lastEventID, when not "", resumes after that event (Last-Event-ID).
func (c *Client) Subscribe(ctx context.Context, intent []byte, lastEventID string) (*Stream, error) {
	return c.openStream(ctx, PathSubscribe, intent, lastEventID)
}

// StreamIntent posts any intent with Accept: text/event-stream and
// returns its event stream: one candidate per event, then `end`.
func (c *Client) StreamIntent(ctx context.Context, intent []byte) (*Stream, error) {
	return c.openStream(ctx, PathIntent, intent, "")
}

func (c *Client) openStream(ctx context.Context, path string, intent []byte, lastEventID string) (*Stream, error) {
	req, err := c.request(ctx, http.MethodPost, path, nil, intent, "application/oap+json")
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/event-stream")
	if lastEventID != "" {
		req.Header.Set("Last-Event-ID", lastEventID)
	}
	resp, err := c.httpClient().Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		defer resp.Body.Close()
		body, _ := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
		return nil, newError(resp.StatusCode, body)
	}
	return &Stream{resp: resp, r: bufio.NewReaderSize(resp.Body, 64<<10), last: lastEventID}, nil
}

// LastEventID is the id to resume from: the last id the server sent,
// in an event or in a heartbeat.
func (s *Stream) LastEventID() string { return s.last }

// Close ends the stream.
func (s *Stream) Close() error { return s.resp.Body.Close() }

// Next returns the next event; io.EOF when the server ended the stream.
func (s *Stream) Next() (*Event, error) {
	var ev Event
	var data bytes.Buffer
	id, hasID := "", false
	for {
		line, err := s.readLine()
		if err != nil {
			return nil, err
		}
		if len(line) == 0 { // dispatch
			if hasID {
				s.last = id
			}
			if data.Len() == 0 {
				ev, id, hasID = Event{}, "", false
				continue
			}
			ev.ID, ev.Data = id, bytes.TrimSuffix(data.Bytes(), []byte("\n"))
			if ev.Name == "" {
				ev.Name = "message"
			}
			return &ev, nil
		}
		field, value := splitField(line)
		switch field {
		case "id":
			// The specification ignores an id holding NUL; any control
			// byte is ignored here, since Subscribe could not send such an
			// id back as Last-Event-ID (an invalid header value).
			if sendableID(value) {
				id, hasID = value, true
			}
		case "event":
			ev.Name = value
		case "data":
			data.WriteString(value)
			data.WriteByte('\n')
			if data.Len() > maxEventBytes {
				return nil, fmt.Errorf("aqlstore client: an event is over %d bytes", maxEventBytes)
			}
		}
	}
}

// readLine reads one line without its end (LF, CRLF or CR-less).
func (s *Stream) readLine() (string, error) {
	line, err := s.r.ReadString('\n')
	if err != nil {
		if errors.Is(err, io.EOF) && line == "" {
			return "", io.EOF
		}
		if !errors.Is(err, io.EOF) {
			return "", err
		}
	}
	return strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r"), nil
}

// sendableID reports whether an event id can travel in a header: no
// control byte but tab (RFC 9110 field-value).
func sendableID(id string) bool {
	for i := 0; i < len(id); i++ {
		if c := id[i]; c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// splitField splits "field: value"; a comment (":…") has field "".
func splitField(line string) (string, string) {
	field, value, _ := strings.Cut(line, ":")
	return field, strings.TrimPrefix(value, " ")
}
