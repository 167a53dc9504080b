package aql

import (
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/cockroachdb/apd/v3"
)

func mustParse(t testing.TB, b []byte, opts *Options) *Intent {
	t.Helper()
	in, err := Parse(b, opts)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return in
}

func parseFixture(t testing.TB, name string) *Intent {
	t.Helper()
	return mustParse(t, readFile(t, filepath.Join("testdata", "valid", name)), nil)
}

// dumpTree renders a compiled tree one node a line: pointer, kind and,
// for a leaf, operator and path.
func dumpTree(n *Node) []string {
	if n == nil {
		return []string{"<nil>"}
	}
	kinds := map[NodeKind]string{NodeLeaf: "leaf", NodeAllOf: "all_of", NodeAnyOf: "any_of", NodeNot: "not"}
	line := n.Pointer + " " + kinds[n.Kind]
	if n.Leaf != nil {
		line += " " + n.Leaf.Operator.String() + " " + n.Leaf.Path.String()
	}
	out := []string{line}
	for _, c := range n.Children {
		out = append(out, dumpTree(c)...)
	}
	return out
}

func TestParseFixtureTree(t *testing.T) {
	in := parseFixture(t, "all-operators.json")
	got := dumpTree(in.Constraints)
	want := []string{
		"/constraints all_of",
		a + "0 leaf eq /sku", a + "1 leaf ne /status", a + "2 leaf lt /price/amount", a + "3 leaf gte /stock",
		a + "4 leaf in /region", a + "5 leaf contains /tags", a + "6 leaf matches /title", a + "7 leaf before /ships_by",
		a + "8 leaf within /listed_at", a + "9 leaf exists /warranty",
		a + "10 any_of", a + "10/any_of/0 leaf gt /seller/rating", a + "10/any_of/1 leaf eq /seller/verified",
		a + "11 not", a + "11/not leaf in /flags/*",
		a + "12 leaf after /updated_at", a + "13 leaf outside /offer/**/discount_until", a + "14 leaf not_in /category",
		a + "15 leaf lte /weight_kg", a + "16 leaf lt /released",
	}
	if !slices.Equal(got, want) {
		t.Errorf("tree:\n got %q\nwant %q", got, want)
	}
}

// TestParseNormalizes checks the two extensions the README names: a top-level
// array is the AllOf node, and `not` over an array is Not{AnyOf}, each
// node keeping the pointer of the node as written.
func TestParseNormalizes(t *testing.T) {
	in := parseFixture(t, "array-constraints.json")
	got := dumpTree(in.Constraints)
	want := []string{
		"/constraints all_of", "/constraints/0 leaf eq /kind",
		"/constraints/1 not", "/constraints/1/not any_of",
		"/constraints/1/not/0 leaf eq /seller/blocked", "/constraints/1/not/1 leaf in /region",
	}
	if !slices.Equal(got, want) {
		t.Errorf("tree:\n got %q\nwant %q", got, want)
	}
	if in.MaxEventRatePerMinute != 30 || in.Category != CategorySubscription {
		t.Errorf("rate %d category %q", in.MaxEventRatePerMinute, in.Category)
	}
}

func leafAt(t *testing.T, in *Intent, i int) *Leaf {
	t.Helper()
	return in.Constraints.Children[i].Leaf
}

func decimal(t testing.TB, s string) *apd.Decimal {
	t.Helper()
	d, _, err := apd.NewFromString(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func instantOf(t testing.TB, s string) canon.Instant {
	t.Helper()
	v, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatal(err)
	}
	return canon.Instant{T: v.UTC()}
}

// TestParseCompilesOperands checks what each operator's value compiles to.
func TestParseCompilesOperands(t *testing.T) {
	in := parseFixture(t, "all-operators.json")
	checkDecimal := func(i int, want string) {
		t.Helper()
		if l := leafAt(t, in, i); l.Decimal == nil || l.Decimal.Cmp(decimal(t, want)) != 0 || l.IsTime {
			t.Errorf("leaf %d: decimal %v, want %s", i, l.Decimal, want)
		}
	}
	checkDecimal(2, "250")
	checkDecimal(3, "1")
	checkDecimal(15, "2.5")
	if l := leafAt(t, in, 16); !l.IsTime || l.Instant.Compare(instantOf(t, "2026-04-01T17:00:00.5Z")) != 0 || l.Decimal != nil {
		t.Errorf("lt timestamp: %v %v", l.IsTime, l.Instant)
	}
	if l := leafAt(t, in, 4); !reflect.DeepEqual(l.Set, []any{"EU", "EEA"}) {
		t.Errorf("in set %v", l.Set)
	}
	if l := leafAt(t, in, 6); l.Regex == nil || l.Regex.MatchTimeout != DefaultRegexTimeout {
		t.Errorf("regex %v", l.Regex)
	} else if ok, err := l.Regex.MatchString("Laptop 14"); !ok || err != nil {
		t.Errorf("regex does not match: %v %v", ok, err)
	}
	if l := leafAt(t, in, 7); !l.IsTime || l.Instant.Compare(instantOf(t, "2030-01-01T00:00:00Z")) != 0 {
		t.Errorf("before %v", l.Instant)
	}
	if l := leafAt(t, in, 12); l.Instant.Compare(instantOf(t, "2025-12-31T23:00:00Z")) != 0 || l.Instant.T.Location() != time.UTC {
		t.Errorf("after %v", l.Instant)
	}
	want := Interval{Start: instantOf(t, "2026-01-01T00:00:00Z"), End: instantOf(t, "2026-12-31T23:59:59Z")}
	if l := leafAt(t, in, 8); l.Interval != want {
		t.Errorf("within %v, want %v", l.Interval, want)
	}
	want = Interval{Start: instantOf(t, "2026-03-01T00:00:00Z"), End: instantOf(t, "2026-03-31T23:59:59.999Z")}
	if l := leafAt(t, in, 13); l.Interval != want {
		t.Errorf("outside %v, want %v", l.Interval, want)
	}
	if l := leafAt(t, in, 9); !l.Exists {
		t.Errorf("exists false")
	}
	if l := leafAt(t, in, 0); l.Value != "LT-2040" || l.Operator != OpEq {
		t.Errorf("eq leaf %+v", l)
	}
}

// TestParseCompilesMembers checks the top-level members of the intent.
func TestParseCompilesMembers(t *testing.T) {
	in := parseFixture(t, "all-operators.json")
	if in.IntentID != "urn:oap:intent:aqlstore-fixture-all-operators" || in.IssuerDID != "did:key:z6MkaqlstoreFixtureIssuer" ||
		in.AgentDID != "did:web:buyer.aqlstore.test" || len(in.DelegationChain) != 1 || in.Category != CategoryCommercial {
		t.Errorf("identity: %q %q %q %v %q", in.IntentID, in.IssuerDID, in.AgentDID, in.DelegationChain, in.Category)
	}
	b := in.Budget
	if b == nil || b.AmountText != "600.00" || b.Amount.Cmp(decimal(t, "600")) != 0 || b.Currency != "EUR" ||
		b.Allocation != "ranked_top_k" || b.TopK != 3 || len(b.Distribution) != 3 || b.Distribution[1].Cmp(decimal(t, "0.3")) != 0 {
		t.Errorf("budget %+v", b)
	}
	var names []string
	for _, q := range in.QualityFloor {
		names = append(names, fmt.Sprintf("%s=%v", q.Name, q.Value))
	}
	wantQ := []string{"conformance_level=L2", "cooling_off_minutes=10", "latency_p99_ms=800", "performance_score=0.75", "provider_reputation=0.6"}
	if !slices.Equal(names, wantQ) {
		t.Errorf("quality floor %q, want %q", names, wantQ)
	}
	wantV := Validity{From: instantOf(t, "2026-05-01T00:00:00Z").T, To: instantOf(t, "2026-06-01T00:00:00Z").T}
	if in.Validity != wantV || in.ResolutionPolicy != "ranked_set" {
		t.Errorf("validity %v policy %q", in.Validity, in.ResolutionPolicy)
	}
	if in.Signature != (Signature{Alg: "EdDSA", Value: "aqlstore-fixture-signature", Kid: "did:key:z6MkaqlstoreFixtureIssuer#key-1"}) {
		t.Errorf("signature %+v", in.Signature)
	}
	if got := pointerTexts(in.Projection.Include); !slices.Equal(got, []string{"/sku", "/price", "/seller/*"}) {
		t.Errorf("include %q", got)
	}
	if got := pointerTexts(in.Projection.Exclude); !slices.Equal(got, []string{"/internal/**"}) {
		t.Errorf("exclude %q", got)
	}
	// The decoded intent, its numbers in RFC 8785 form.
	want, err := canon.DecodeCanonical(canon.AppendValue(nil, fixture(t, "all-operators.json")))
	if err != nil || !reflect.DeepEqual(in.Document, want) {
		t.Errorf("Document is not the decoded intent (%v)", err)
	}
}

func pointerTexts(ps []*canon.Pointer) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.String()
	}
	return out
}

func TestParseDefaultsAndOptionalMembers(t *testing.T) {
	in := parseFixture(t, "minimal.json")
	if in.ResolutionPolicy != "ranked_set" || in.Budget != nil || in.QualityFloor != nil || in.PaymentConstraints != nil ||
		in.MaxEventRatePerMinute != 0 || in.AgentDID != "" {
		t.Errorf("defaults: %+v", in)
	}
	if in.Constraints.Kind != NodeLeaf || in.Constraints.Pointer != "/constraints" {
		t.Errorf("root leaf %+v", in.Constraints)
	}
	if !in.Projection.Include[0].IsRoot() {
		t.Errorf(`include "/" is not the root`)
	}
}

func TestParsePaymentConstraints(t *testing.T) {
	in := parseFixture(t, "payment.json")
	if in.PaymentConstraints["preferred_instrument"] != "sepa-ct" || in.ResolutionPolicy != "single_best" {
		t.Errorf("payment %v policy %q", in.PaymentConstraints, in.ResolutionPolicy)
	}
}

// TestParseIntegerInSchemaSense checks that 3.0 is an integer, as JSON
// Schema's "integer" says.
func TestParseIntegerInSchemaSense(t *testing.T) {
	in := mustParse(t, edited(t, "all-operators.json", set("/budget/top_k", `3.0`), set("/max_event_rate_per_minute", `6e1`)), nil)
	if in.Budget.TopK != 3 || in.MaxEventRatePerMinute != 60 {
		t.Errorf("top_k %d rate %d", in.Budget.TopK, in.MaxEventRatePerMinute)
	}
}

// TestParseDistributionExact checks the sum that float64 gets wrong. Each
// share is the double its literal denotes, written shortest (RFC 8785):
// 0.70000000000000001 is 0.7, so that sum is 1, while 0.7000001 is not.
func TestParseDistributionExact(t *testing.T) {
	b := edited(t, "all-operators.json", set("/budget/top_k", `3`), set("/budget/distribution", `[0.1, 0.2, 0.7]`))
	mustParse(t, b, nil)
	b = edited(t, "all-operators.json", set("/budget/top_k", `3`), set("/budget/distribution", `[0.1, 0.2, 0.70000000000000001]`))
	mustParse(t, b, nil)
	b = edited(t, "all-operators.json", set("/budget/distribution", `[0.1, 0.2, 0.7000001]`))
	if _, err := Parse(b, nil); err == nil {
		t.Errorf("a sum of 1.0000001 was accepted")
	}
}

func TestParseRegexTimeoutOption(t *testing.T) {
	in := mustParse(t, edited(t, "all-operators.json"), &Options{RegexTimeout: time.Second})
	if got := leafAt(t, in, 6).Regex.MatchTimeout; got != time.Second {
		t.Errorf("MatchTimeout %v", got)
	}
}

// TestRegexTimeoutBounds checks that a catastrophic pattern fails with an
// error instead of spinning.
func TestRegexTimeoutBounds(t *testing.T) {
	b := edited(t, "all-operators.json", set(a+"6/value", `"^(a+)+$"`))
	in := mustParse(t, b, &Options{RegexTimeout: 10 * time.Millisecond})
	_, err := leafAt(t, in, 6).Regex.MatchString(strings.Repeat("a", 40) + "!")
	if err == nil {
		t.Errorf("no timeout error")
	}
}

func TestOptionsEnsureDefaults(t *testing.T) {
	o := (&Options{MaxNodes: 7, RegexTimeout: -1}).EnsureDefaults()
	if o.MaxNodes != 7 || o.RegexTimeout != DefaultRegexTimeout || o.MaxRegexBytes != DefaultMaxRegexBytes ||
		o.MaxTreeDepth != DefaultMaxTreeDepth || o.MaxBytes != DefaultMaxBytes || o.MaxProblems != DefaultMaxProblems ||
		o.Limits != canon.DefaultLimits() || o.PointerLimits.MaxBytes != canon.DefaultPointerMaxBytes ||
		o.PointerLimits.MaxSegments != canon.DefaultPointerMaxSegments {
		t.Errorf("defaults: %+v", o)
	}
	caller := &Options{}
	mustParse(t, edited(t, "minimal.json"), caller)
	if *caller != (Options{}) {
		t.Errorf("Parse wrote to the caller's options: %+v", caller)
	}
}

func TestParseValue(t *testing.T) {
	doc := fixture(t, "minimal.json")
	in, err := ParseValue(doc, nil)
	if err != nil || in.IntentID != "urn:oap:intent:aqlstore-fixture-minimal" {
		t.Fatalf("ParseValue: %v", err)
	}
	if _, err := ParseValue([]any{}, nil); !errors.Is(err, ErrInvalid) {
		t.Errorf("ParseValue of an array: %v", err)
	}
}

func TestInvalidErrorText(t *testing.T) {
	_, err := Parse(edited(t, "minimal.json", set("/constraints/operator", `"starts_with"`)), nil)
	want := `aql: invalid intent: at /constraints/operator: unknown operator "starts_with" (one of eq, ne, lt, lte, gt, gte, in, not_in, contains, matches, before, after, within, outside, exists)`
	if err == nil || err.Error() != want {
		t.Errorf("error:\n got %v\nwant %s", err, want)
	}
	_, err = Parse(edited(t, "minimal.json", del("/intent_id"), set("/category", `"x"`)), nil)
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != 3 || lines[0] != "aql: invalid intent: 2 problems" || !strings.HasPrefix(lines[1], "at /intent_id: ") ||
		!strings.HasPrefix(lines[2], "at /category: ") {
		t.Errorf("error lines %q", lines)
	}
}

func TestInvalidErrorWrapsCanon(t *testing.T) {
	_, err := Parse([]byte(`{"a": 1, "a": 2}`), nil)
	if !errors.Is(err, ErrInvalid) || !errors.Is(err, canon.ErrDuplicateName) {
		t.Errorf("%v does not match both sentinels", err)
	}
	if !strings.Contains(err.Error(), "line 1, column") {
		t.Errorf("no line in %v", err)
	}
}

// TestParseConcurrent lets the race detector watch Parse and a shared
// compiled regex used from several goroutines.
func TestParseConcurrent(t *testing.T) {
	b := edited(t, "all-operators.json")
	shared := mustParse(t, b, nil)
	done := make(chan error)
	for range 4 {
		go func() {
			_, err := Parse(b, nil)
			if err == nil {
				_, err = leafAt(t, shared, 6).Regex.MatchString("Laptop")
			}
			done <- err
		}()
	}
	for range 4 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

// TestNumberPointerEscaped: a number without a value is reported at its
// pointer, with the member names escaped as RFC 6901 says.
func TestNumberPointerEscaped(t *testing.T) {
	_, err := Parse([]byte(`{"a~/b":[0,{"c":1e400}]}`), nil)
	var ie *InvalidError
	if !errors.As(err, &ie) {
		t.Fatalf("got %v, want an *InvalidError", err)
	}
	for _, p := range ie.Problems {
		if p.Code == CodeBadValue && p.Pointer == "/a~0~1b/1/c" {
			return
		}
	}
	t.Fatalf("no bad-value problem at /a~0~1b/1/c in %v", ie.Problems)
}
