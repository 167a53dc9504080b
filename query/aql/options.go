package aql

import (
	"time"

	"github.com/aqlstore/aqlstore/canon"
)

// Default limits for Parse. An intent arrives from an untrusted issuer and
// is compiled before anything is evaluated, so everything compiling costs
// is bounded here: real intents are a few kilobytes with tens of
// constraint nodes, which leaves these limits far above honest use.
const (
	DefaultRegexTimeout  = 100 * time.Millisecond // per match; regexp2 otherwise may spin for seconds on ^(a+)+$
	DefaultMaxRegexBytes = 1024                   // one matches pattern
	DefaultMaxNodes      = 1000                   // compiled constraint nodes
	DefaultMaxTreeDepth  = 32                     // constraint tree depth; the root node has depth 1
	DefaultMaxBytes      = 1 << 20                // the intent document
	DefaultMaxProblems   = 100                    // problems reported before Parse stops collecting
	DefaultMaxEventRate  = 6000                   // max_event_rate_per_minute a subscription may ask for
)

// Options bound what Parse accepts. The zero value of a field means its
// default; a nil *Options means all defaults. Options are read, never
// kept: Parse copies them.
type Options struct {
	// Limits are canon's decoding limits (nesting depth, members).
	Limits canon.Limits
	// PointerLimits bound every path and projection pointer.
	PointerLimits canon.PointerLimits
	// RegexTimeout is set as MatchTimeout on every compiled matches regex.
	RegexTimeout time.Duration
	// MaxRegexBytes bounds one matches pattern.
	MaxRegexBytes int
	// MaxNodes bounds the compiled constraint nodes (leaves and
	// combinators, including the AnyOf that a `not` array becomes).
	MaxNodes int
	// MaxTreeDepth bounds the depth of the constraint tree.
	MaxTreeDepth int
	// MaxBytes bounds the intent's size, checked before decoding.
	MaxBytes int
	// MaxProblems bounds how many problems one InvalidError lists; a
	// hostile intent could otherwise produce one per array element.
	MaxProblems int
	// MaxEventRate bounds the max_event_rate_per_minute a subscription
	// intent may ask for; a server passes its own (serve
	// --max-events-per-minute).
	MaxEventRate int
}

// EnsureDefaults fills zero or negative fields with their defaults and
// returns o.
func (o *Options) EnsureDefaults() *Options {
	o.Limits.EnsureDefaults()
	o.PointerLimits = pointerDefaults(o.PointerLimits)
	o.RegexTimeout = orDefault(o.RegexTimeout, DefaultRegexTimeout)
	o.MaxRegexBytes = orDefault(o.MaxRegexBytes, DefaultMaxRegexBytes)
	o.MaxNodes = orDefault(o.MaxNodes, DefaultMaxNodes)
	o.MaxTreeDepth = orDefault(o.MaxTreeDepth, DefaultMaxTreeDepth)
	o.MaxBytes = orDefault(o.MaxBytes, DefaultMaxBytes)
	o.MaxProblems = orDefault(o.MaxProblems, DefaultMaxProblems)
	o.MaxEventRate = orDefault(o.MaxEventRate, DefaultMaxEventRate)
	return o
}

// pointerDefaults makes the pointer limits explicit, so that Parse can
// name a crossed limit with its value (canon applies the same defaults).
func pointerDefaults(l canon.PointerLimits) canon.PointerLimits {
	l.MaxBytes = orDefault(l.MaxBytes, canon.DefaultPointerMaxBytes)
	l.MaxSegments = orDefault(l.MaxSegments, canon.DefaultPointerMaxSegments)
	return l
}

func orDefault[T int | time.Duration](v, d T) T {
	if v <= 0 {
		return d
	}
	return v
}

// optionsOrDefault copies opts so that EnsureDefaults never writes to the
// caller's struct.
func optionsOrDefault(opts *Options) *Options {
	var o Options
	if opts != nil {
		o = *opts
	}
	return o.EnsureDefaults()
}
