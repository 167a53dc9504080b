package canon

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// TestSignalsCanonical: signals a program builds are stored as the
// candidate shape would give them, or refused at their pointer.
func TestSignalsCanonical(t *testing.T) {
	for _, c := range []struct {
		in   Signals
		want *Signals
		ptr  string // the refused member, "" when accepted
	}{
		{Signals{Score: "1.50"}, &Signals{Score: "1.5"}, ""},
		{Signals{Score: "1E2"}, &Signals{Score: "100"}, ""},
		{Signals{Score: "-0.0"}, &Signals{Score: "0"}, ""},
		{Signals{Cost: &Cost{Amount: "79.99", Currency: "EUR"}}, &Signals{Cost: &Cost{Amount: "79.99", Currency: "EUR"}}, ""},
		{Signals{Quality: map[string]any{"p": Number("2.0"), "s": "x"}}, &Signals{Quality: map[string]any{"p": Number("2"), "s": "x"}}, ""},
		{Signals{}, &Signals{}, ""},
		{Signals{Score: "abc"}, nil, "/score"},
		{Signals{Score: "NaN"}, nil, "/score"},
		{Signals{Score: "01"}, nil, "/score"},
		{Signals{Score: "1e400"}, nil, "/score"},
		{Signals{Score: "1e999999999999"}, nil, "/score"},
		{Signals{Cost: &Cost{Amount: "1e3"}}, nil, "/cost/amount"},
		{Signals{Quality: map[string]any{"p": make(chan int)}}, nil, "/quality/p"},
	} {
		got, err := c.in.Canonical()
		if c.ptr == "" {
			if err != nil || !reflect.DeepEqual(got, c.want) {
				t.Errorf("%+v: %+v, %v; want %+v", c.in, got, err, c.want)
			}
			continue
		}
		var de *DocumentError
		var ve *ValueError
		switch {
		case err == nil:
			t.Errorf("%+v: accepted as %+v, want refused at %s", c.in, got, c.ptr)
		case errors.As(err, &de) && de.Pointer == c.ptr, errors.As(err, &ve) && ve.Pointer() == c.ptr:
		default:
			t.Errorf("%+v: %v, want refused at %s", c.in, err, c.ptr)
		}
		if err != nil && !strings.Contains(err.Error(), c.ptr) {
			t.Errorf("%+v: %q does not name %s", c.in, err, c.ptr)
		}
	}
}
