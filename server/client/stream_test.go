package client

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestStreamParsesEventsAndHeartbeatIDs(t *testing.T) {
	text := "retry: 2000\n\n" +
		"event: subscribed\ndata: {\"a\":1}\n\n" +
		"id: 7\nevent: candidate\ndata: {\"b\":\ndata: 2}\n\n" +
		": heartbeat\nid: 9\n\n" +
		"data: plain\r\n\r\n"
	s := &Stream{r: bufio.NewReader(strings.NewReader(text))}
	want := []Event{{Name: "subscribed", Data: []byte(`{"a":1}`)}, {ID: "7", Name: "candidate", Data: []byte("{\"b\":\n2}")},
		{Name: "message", Data: []byte("plain")}}
	for i, w := range want {
		ev, err := s.Next()
		if err != nil || ev.ID != w.ID || ev.Name != w.Name || string(ev.Data) != string(w.Data) {
			t.Fatalf("event %d: %+v %v, want %+v", i, ev, err, w)
		}
		if i == 1 && s.LastEventID() != "7" {
			t.Fatalf("LastEventID %q after event 7", s.LastEventID())
		}
	}
	if s.LastEventID() != "9" {
		t.Fatalf("a heartbeat's id did not move LastEventID: %q", s.LastEventID())
	}
	if _, err := s.Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("end of stream: %v", err)
	}
}
