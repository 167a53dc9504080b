package aql

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aqlstore/aqlstore/canon"
)

// The boundary tests of Parse's limits, one per limit: an intent exactly
// at the limit parses, one past it is refused with one CodeLimit problem
// at the JSON Pointer of the offending node, whose message names the
// limit's Options field and its value. Each runs at the default and at a
// small configured value.

// limitProblem parses b with opts and checks that it is refused with a
// CodeLimit problem at ptr whose message holds every one of parts.
func limitProblem(t *testing.T, b []byte, opts *Options, ptr string, parts ...string) {
	t.Helper()
	_, err := Parse(b, opts)
	var ie *InvalidError
	if !errors.As(err, &ie) || !errors.Is(err, ErrInvalid) {
		t.Fatalf("got %v, want an *InvalidError", err)
	}
	for _, p := range ie.Problems {
		if p.Code != CodeLimit {
			continue
		}
		if p.Pointer != ptr {
			t.Errorf("limit problem at %q, want %q: %s", p.Pointer, ptr, p.Message)
		}
		for _, part := range parts {
			if !strings.Contains(p.Message, part) {
				t.Errorf("message %q does not say %q", p.Message, part)
			}
		}
		return
	}
	t.Fatalf("no %s problem among %v", CodeLimit, ie.Problems)
}

// mustParseWith parses b with opts, failing the test on an error.
func mustParseWith(t *testing.T, b []byte, opts *Options) *Intent {
	t.Helper()
	in, err := Parse(b, opts)
	if err != nil {
		t.Fatalf("an intent at the limit is refused: %.300v", err)
	}
	return in
}

// withConstraints is the minimal fixture with its constraints replaced by
// the JSON literal c.
func withConstraints(t *testing.T, c string) []byte {
	t.Helper()
	return edited(t, "minimal.json", set("/constraints", c))
}

// leafJSON is a leaf testing field i.
func leafJSON(i int) string {
	return `{"path":"/f` + strconv.Itoa(i) + `","operator":"eq","value":1}`
}

func TestLimitIntentBytes(t *testing.T) {
	for _, opts := range []*Options{nil, {MaxBytes: 512}} {
		max := optionsOrDefault(opts).MaxBytes
		b := withConstraints(t, leafJSON(0))
		// Whitespace after the document counts: the limit is on bytes
		// received, checked before anything is decoded.
		at := append(b, strings.Repeat(" ", max-len(b))...)
		mustParseWith(t, at, opts)
		limitProblem(t, append(at, ' '), opts, "",
			"intent is "+strconv.Itoa(max+1)+" bytes, over the limit of "+strconv.Itoa(max)+" (Options.MaxBytes)")
	}
}

// allOf is an all_of of n leaves: n+1 constraint nodes.
func allOf(n int) string {
	leaves := make([]string, n)
	for i := range leaves {
		leaves[i] = leafJSON(i)
	}
	return `{"all_of":[` + strings.Join(leaves, ",") + `]}`
}

func TestLimitConstraintNodes(t *testing.T) {
	for _, opts := range []*Options{nil, {MaxNodes: 5}} {
		max := optionsOrDefault(opts).MaxNodes
		in := mustParseWith(t, withConstraints(t, allOf(max-1)), opts)
		if len(in.Constraints.Children) != max-1 {
			t.Fatalf("compiled %d leaves, want %d", len(in.Constraints.Children), max-1)
		}
		// The all_of is node 1, so its leaf max-1 (0-based) is node max+1.
		limitProblem(t, withConstraints(t, allOf(max)), opts, "/constraints/all_of/"+strconv.Itoa(max-1),
			"constraint node "+strconv.Itoa(max+1)+" is over the limit of "+strconv.Itoa(max)+" nodes (Options.MaxNodes)")
	}
	// A `not` array counts as the AnyOf node it becomes.
	limitProblem(t, withConstraints(t, `{"not":[`+leafJSON(0)+`,`+leafJSON(1)+`]}`), &Options{MaxNodes: 3},
		"/constraints/not/1", "constraint node 4 is over the limit of 3 nodes")
}

// notChain is a tree of the given depth: depth-1 nested `not` nodes over
// a leaf. A `not` over one node adds a tree level but only one level of
// JSON nesting, so the tree limit, not canon's nesting limit, is what a
// deep chain meets first.
func notChain(depth int) string {
	return strings.Repeat(`{"not":`, depth-1) + leafJSON(0) + strings.Repeat("}", depth-1)
}

func TestLimitConstraintDepth(t *testing.T) {
	for _, opts := range []*Options{nil, {MaxTreeDepth: 3}} {
		max := optionsOrDefault(opts).MaxTreeDepth
		mustParseWith(t, withConstraints(t, notChain(max)), opts)
		limitProblem(t, withConstraints(t, notChain(max+1)), opts, "/constraints"+strings.Repeat("/not", max),
			"constraint tree depth "+strconv.Itoa(max+1)+" is over the limit of "+strconv.Itoa(max)+" (Options.MaxTreeDepth)")
	}
	// A top-level constraints array is the root all_of: its elements are
	// at depth 2.
	b := edited(t, "minimal.json", set("/constraints", `[`+leafJSON(0)+`]`))
	limitProblem(t, b, &Options{MaxTreeDepth: 1}, "/constraints/0", "constraint tree depth 2 is over the limit of 1")
}

// regexLeaf is a matches leaf with a pattern of n bytes.
func regexLeaf(n int) string {
	return `{"path":"/name","operator":"matches","value":"` + strings.Repeat("a", n) + `"}`
}

func TestLimitRegexBytes(t *testing.T) {
	for _, opts := range []*Options{nil, {MaxRegexBytes: 8}} {
		max := optionsOrDefault(opts).MaxRegexBytes
		in := mustParseWith(t, withConstraints(t, regexLeaf(max)), opts)
		if in.Constraints.Leaf.Regex == nil {
			t.Fatal("the pattern at the limit did not compile")
		}
		limitProblem(t, withConstraints(t, regexLeaf(max+1)), opts, "/constraints/value",
			"pattern is "+strconv.Itoa(max+1)+" bytes, over the limit of "+strconv.Itoa(max)+" (Options.MaxRegexBytes)")
	}
}

// TestLimitRegexMatchTime checks that every compiled pattern carries the
// match timeout (query/eval's TestLimitRegexMatchTime shows what a match
// that runs into it does).
func TestLimitRegexMatchTime(t *testing.T) {
	for _, opts := range []*Options{nil, {RegexTimeout: 7 * time.Millisecond}} {
		want := optionsOrDefault(opts).RegexTimeout
		in := mustParseWith(t, withConstraints(t, `{"any_of":[`+regexLeaf(3)+`,{"not":`+regexLeaf(4)+`}]}`), opts)
		for _, n := range []*Node{in.Constraints.Children[0], in.Constraints.Children[1].Children[0]} {
			if got := n.Leaf.Regex.MatchTimeout; got != want {
				t.Errorf("regex at %s has MatchTimeout %v, want %v", n.Pointer, got, want)
			}
		}
	}
	if DefaultRegexTimeout.Milliseconds() != 100 {
		t.Fatalf("the README documents a 100 ms match timeout, the code has %v", DefaultRegexTimeout)
	}
}

// pathLeaf is an exists leaf whose path is p.
func pathLeaf(p string) string {
	return `{"path":` + strconv.Quote(p) + `,"operator":"exists","value":true}`
}

func TestLimitPointerBytes(t *testing.T) {
	for _, opts := range []*Options{nil, {PointerLimits: canon.PointerLimits{MaxBytes: 8}}} {
		max := optionsOrDefault(opts).PointerLimits.MaxBytes
		at := "/" + strings.Repeat("a", max-1)
		mustParseWith(t, withConstraints(t, pathLeaf(at)), opts)
		want := "pointer is " + strconv.Itoa(max+1) + " bytes, over the limit of " + strconv.Itoa(max) + " (Options.PointerLimits.MaxBytes)"
		limitProblem(t, withConstraints(t, pathLeaf(at+"a")), opts, "/constraints/path", want)
		// Projection pointers have the same limit.
		b := edited(t, "minimal.json", set("/projection/include", `[`+strconv.Quote(at)+`]`))
		mustParseWith(t, b, opts)
		b = edited(t, "minimal.json", set("/projection/include", `["/", `+strconv.Quote(at+"a")+`]`))
		limitProblem(t, b, opts, "/projection/include/1", want)
	}
}

func TestLimitPointerSegments(t *testing.T) {
	for _, opts := range []*Options{nil, {PointerLimits: canon.PointerLimits{MaxSegments: 3}}} {
		max := optionsOrDefault(opts).PointerLimits.MaxSegments
		at := strings.Repeat("/**", max)
		mustParseWith(t, withConstraints(t, pathLeaf(at)), opts)
		limitProblem(t, withConstraints(t, pathLeaf(at+"/a")), opts, "/constraints/path",
			"pointer has "+strconv.Itoa(max+1)+" segments, over the limit of "+strconv.Itoa(max)+" (Options.PointerLimits.MaxSegments)")
	}
}

// subscription is the minimal fixture as a subscription asking for rate
// events per minute.
func subscription(t *testing.T, rate int) []byte {
	return edited(t, "minimal.json", set("/category", `"subscription"`),
		set("/max_event_rate_per_minute", strconv.Itoa(rate)))
}

func TestLimitEventsPerMinute(t *testing.T) {
	for _, opts := range []*Options{nil, {MaxEventRate: 10}} {
		max := optionsOrDefault(opts).MaxEventRate
		if in := mustParseWith(t, subscription(t, max), opts); in.MaxEventRatePerMinute != max {
			t.Fatalf("rate %d, want %d", in.MaxEventRatePerMinute, max)
		}
		limitProblem(t, subscription(t, max+1), opts, "/max_event_rate_per_minute",
			"max_event_rate_per_minute "+strconv.Itoa(max+1)+" is over the limit of "+strconv.Itoa(max)+" events per minute (Options.MaxEventRate")
	}
	if DefaultMaxEventRate != 6000 {
		t.Fatalf("the README documents 6,000 events per minute, the code has %d", DefaultMaxEventRate)
	}
}

// TestLimitProblems: an intent with exactly MaxProblems problems lists
// them all; one with more lists MaxProblems and then says it stopped.
func TestLimitProblems(t *testing.T) {
	const max = 4
	opts := &Options{MaxProblems: max}
	// Each leaf with an unknown operator is one problem.
	bad := func(n int) []byte {
		leaves := make([]string, n)
		for i := range leaves {
			leaves[i] = `{"path":"/a","operator":"nope","value":1}`
		}
		return withConstraints(t, `{"all_of":[`+strings.Join(leaves, ",")+`]}`)
	}
	_, err := Parse(bad(max), opts)
	if got := problemsOf(t, err); len(got) != max || slices.Contains(got, " "+CodeLimit) {
		t.Fatalf("%d problems: %v, want %d without a limit problem", len(got), got, max)
	}
	_, err = Parse(bad(max+1), opts)
	var ie *InvalidError
	if !errors.As(err, &ie) || len(ie.Problems) != max+1 {
		t.Fatalf("got %v, want %d problems and the limit", err, max)
	}
	last := ie.Problems[max]
	if last.Code != CodeLimit || !strings.Contains(last.Message, "more than 4 problems (Options.MaxProblems)") {
		t.Fatalf("last problem %+v, want the MaxProblems limit", last)
	}
}
