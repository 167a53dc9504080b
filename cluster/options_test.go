package cluster

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestOptionsValidate: each option out of range is refused, naming it,
// before the node connects to anything.
func TestOptionsValidate(t *testing.T) {
	good := func() Options {
		return Options{URL: "nats://127.0.0.1:4222", Name: "n1", Shards: 3, Serve: []int{0, 2}, Dir: t.TempDir()}
	}
	o := good()
	if err := o.EnsureDefaults().Validate(); err != nil {
		t.Fatalf("good options: %v", err)
	}
	for _, c := range []struct {
		name string
		edit func(*Options)
	}{
		{"URL", func(o *Options) { o.URL = "" }},
		{"Name", func(o *Options) { o.Name = "a b" }},
		{"Shards", func(o *Options) { o.Shards = 2000 }},
		{"Replicas", func(o *Options) { o.Replicas = 7 }},
		{"Dir", func(o *Options) { o.Dir = "" }},
		{"Serve names shard 3", func(o *Options) { o.Serve = []int{3} }},
		{"RequestTimeout", func(o *Options) { o.RequestTimeout = -time.Second }},
		{"WaitApplied", func(o *Options) { o.WaitApplied = -time.Second }},
		{"Bootstrap names shard 1", func(o *Options) { o.Bootstrap = map[int]string{1: "x"} }},
	} {
		o := good()
		c.edit(&o)
		err := o.EnsureDefaults().Validate()
		if !errors.Is(err, ErrInvalidOptions) || !strings.Contains(err.Error(), c.name) {
			t.Errorf("%s: %v, want ErrInvalidOptions naming %q", c.name, err, c.name)
		}
	}
}
