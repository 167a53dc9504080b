package cluster

import (
	"fmt"
	"log"
	"slices"
	"time"

	"github.com/aqlstore/aqlstore/query/sign"
	"github.com/aqlstore/aqlstore/store"
)

// Options configure a Node. Zero fields take their defaults
// (EnsureDefaults).
type Options struct {
	// URL is the NATS server (or comma-separated servers) to connect to.
	URL string
	// Name names the node; it names its durable consumers, so a restarted
	// node with the same Name resumes where it stopped. Required.
	Name string
	// Shards is the number of shards of the cluster; every node must use
	// the same number (default 1). It cannot change once documents are
	// stored: the routing hash depends on it.
	Shards int
	// Replicas is the number of JetStream replicas of each shard's stream:
	// min(3, NATS servers) is the usual choice (default 1).
	Replicas int
	// Serve lists the shards this node replicates (0-based); nil serves
	// none: the node only routes writes and merges queries.
	Serve []int
	// Bootstrap maps a served shard to the path of an export of another
	// replica of it (Node.ExportShard): a replica this node has never run
	// (no durable consumer yet) imports it and applies only the stream
	// after the export's sequence. Ignored for a shard this node already
	// replicates.
	Bootstrap map[int]string
	// Dir holds the local stores of the served shards (Dir/shard-<i>).
	Dir string
	// Signer signs merged responses and seals cursors; required for
	// queries. Every node should share one key so that a cursor works on
	// any node.
	Signer *sign.Signer
	// Keys resolves intent issuers' keys beyond did:key.
	Keys sign.Resolver
	// Store tunes the local stores.
	Store store.Options
	// Now dates responses and checks validity windows (default time.Now).
	Now func() time.Time
	// RequestTimeout bounds one shard's answer to a scattered request
	// (default 10s).
	RequestTimeout time.Duration
	// WaitApplied bounds how long a shard waits for a sequence a query
	// must see (default 5s).
	WaitApplied time.Duration
	// Logf logs what a replica skips (default log.Printf).
	Logf func(format string, args ...any)
}

// EnsureDefaults fills zero fields with their defaults and returns o.
func (o *Options) EnsureDefaults() *Options {
	if o.Shards == 0 {
		o.Shards = 1
	}
	if o.Replicas == 0 {
		o.Replicas = 1
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.RequestTimeout == 0 {
		o.RequestTimeout = 10 * time.Second
	}
	if o.WaitApplied == 0 {
		o.WaitApplied = 5 * time.Second
	}
	if o.Logf == nil {
		o.Logf = log.Printf
	}
	o.Store.EnsureDefaults()
	return o
}

// Validate reports the first option that is out of range.
func (o *Options) Validate() error {
	switch {
	case o.URL == "":
		return fmt.Errorf("%w: URL is empty; give the NATS server, e.g. nats://127.0.0.1:4222", ErrInvalidOptions)
	case o.Name == "" || !isToken(o.Name):
		return fmt.Errorf("%w: Name %q must be non-empty letters, digits, '-' or '_' (it names durable consumers)", ErrInvalidOptions, o.Name)
	case o.Shards < 1 || o.Shards > 1024:
		return fmt.Errorf("%w: Shards %d is out of range 1..1024", ErrInvalidOptions, o.Shards)
	case o.Replicas < 1 || o.Replicas > 5:
		return fmt.Errorf("%w: Replicas %d is out of range 1..5 (JetStream's limit)", ErrInvalidOptions, o.Replicas)
	case len(o.Serve) > 0 && o.Dir == "":
		return fmt.Errorf("%w: Dir is empty but the node serves shards %v; give a directory for their stores", ErrInvalidOptions, o.Serve)
	case o.RequestTimeout < 0 || o.WaitApplied < 0:
		return fmt.Errorf("%w: RequestTimeout %s and WaitApplied %s must not be negative (0: the defaults)", ErrInvalidOptions, o.RequestTimeout, o.WaitApplied)
	}
	for _, s := range o.Serve {
		if s < 0 || s >= o.Shards {
			return fmt.Errorf("%w: Serve names shard %d, but shards are 0..%d", ErrInvalidOptions, s, o.Shards-1)
		}
	}
	for s := range o.Bootstrap {
		if !slices.Contains(o.Serve, s) {
			return fmt.Errorf("%w: Bootstrap names shard %d, which the node does not serve (Serve %v); serve it, or drop its export", ErrInvalidOptions, s, o.Serve)
		}
	}
	return o.Store.Validate()
}

func isToken(s string) bool {
	for _, r := range s {
		if !(r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}
