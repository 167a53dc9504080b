package corpus

import (
	"bytes"
	"encoding/json"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestExpectedCount generates documents, checks every controlled predicate
// on each decoded document with an independent checker, and compares the
// counts of several prefixes (including partial blocks) with ExpectedCount.
func TestExpectedCount(t *testing.T) {
	const seed, n = 42, 2 * BlockSize
	prefixes := []int{0, 1, 137, BlockSize - 1, BlockSize, 12345, n}
	for _, kind := range Kinds() {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			preds := Predicates(kind)
			counts := make([]int, len(preds)) // running counts
			want := map[int][]int{}           // prefix → counts at it
			for i, doc := range generate(t, kind, seed, n) {
				if slices.Contains(prefixes, i) {
					want[i] = slices.Clone(counts)
				}
				subject := resolve(decode(t, doc), PredicateRoot(kind))[0]
				for j, p := range preds {
					if holds(t, p, subject) {
						counts[j]++
					}
				}
			}
			want[n] = counts
			for _, m := range prefixes {
				for j, p := range preds {
					if got := ExpectedCount(kind, p, seed, m); got != want[m][j] {
						t.Errorf("ExpectedCount(%s, n=%d) = %d, documents say %d", p.Name, m, got, want[m][j])
					}
				}
			}
			for j, p := range preds { // n is two full blocks: exact selectivity
				if exact := int(2 * p.Selectivity * BlockSize); counts[j] != exact || exact == 0 {
					t.Errorf("%s matched %d of %d, want %d", p.Name, counts[j], n, exact)
				}
			}
		})
	}
}

// TestPredicateList pins what the benchmarks rely on: eq at the five
// selectivities on every kind, a decimal range and an instant at 0.1%.
func TestPredicateList(t *testing.T) {
	for _, kind := range Kinds() {
		var eqs []float64
		var price, after bool
		for _, p := range Predicates(kind) {
			switch {
			case p.Operator == "eq" && strings.HasPrefix(p.Name, "eq_"):
				eqs = append(eqs, p.Selectivity)
			case p.Operator == "lte" && p.Value == "100.00" && p.Selectivity == 0.001:
				price = true
			case p.Operator == "after" && p.Selectivity == 0.001:
				after = true
			}
		}
		if !slices.Equal(eqs, []float64{0.0001, 0.001, 0.01, 0.1, 0.5}) {
			t.Errorf("%s: eq selectivities %v", kind, eqs)
		}
		if kind != KindKnowledge && kind != KindMessage && !price {
			t.Errorf("%s: no lte \"100.00\" predicate at 0.1%%", kind)
		}
		if !after {
			t.Errorf("%s: no after predicate at 0.1%%", kind)
		}
	}
	if !slices.ContainsFunc(Predicates(KindManifest), func(p Predicate) bool { return p.Path == "/actions/*/side_effects" }) {
		t.Error("manifest: no predicate on /actions/*/side_effects")
	}
}

func TestExpectedCountUnknown(t *testing.T) {
	p := Predicates(KindOffer)[0]
	if got := ExpectedCount("nope", p, 1, 10); got != -1 {
		t.Errorf("unknown kind: got %d, want -1", got)
	}
	p.Value = "something else"
	if got := ExpectedCount(KindOffer, p, 1, 10); got != -1 {
		t.Errorf("altered predicate: got %d, want -1", got)
	}
	if got := ExpectedCount(KindOffer, Predicates(KindOffer)[4], 1, 1_000_000); got != 500_000 {
		t.Errorf("eq_50pct over 100 blocks: got %d, want 500000", got)
	}
}

func TestPermuteIsBijection(t *testing.T) {
	seen := make([]bool, BlockSize)
	for x := uint32(0); x < BlockSize; x++ {
		y := permute(12345, x)
		if y >= BlockSize || seen[y] {
			t.Fatalf("permute(%d) = %d repeats or leaves the block", x, y)
		}
		seen[y] = true
	}
}

// TestPoolsAvoidControlledValues guards exact counts: a random value equal
// to (or, for contains on strings, containing) a controlled one would add
// matches that ExpectedCount does not know about.
func TestPoolsAvoidControlledValues(t *testing.T) {
	controlled := []string{"sel_", "LI", "irreversible", "clearance", "quantum_gravity", "urgent", "outage"}
	pools := [][]string{adjectives, nouns, capabilities, audiences, toolCategories, surnames,
		legalForms, countries, jurisdictions, regions, sideEffects, productCategories, offerTags,
		topics, priorities, vocabulary}
	for _, pool := range pools {
		for _, w := range pool {
			for _, c := range controlled {
				if w == c || (c != "LI" && strings.Contains(w, c)) {
					t.Errorf("pool word %q collides with controlled value %q", w, c)
				}
			}
		}
	}
}

func decode(t *testing.T, doc []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber() // compare numbers exactly, as AQL does
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decode %s: %v", doc, err)
	}
	return v
}

// resolve walks an extended JSON Pointer whose "*" segments fan out over
// array elements and object members.
func resolve(v any, ptr string) []any {
	if ptr == "" || ptr == "/" {
		return []any{v}
	}
	vals := []any{v}
	for _, seg := range strings.Split(ptr[1:], "/") {
		seg = strings.NewReplacer("~1", "/", "~0", "~").Replace(seg)
		var next []any
		for _, cur := range vals {
			next = append(next, step(cur, seg)...)
		}
		vals = next
	}
	return vals
}

func step(v any, seg string) []any {
	switch v := v.(type) {
	case map[string]any:
		if seg == "*" {
			out := make([]any, 0, len(v))
			for _, m := range v {
				out = append(out, m)
			}
			return out
		}
		if m, ok := v[seg]; ok {
			return []any{m}
		}
	case []any:
		if seg == "*" {
			return v
		}
		if j, err := strconv.Atoi(seg); err == nil && j >= 0 && j < len(v) {
			return []any{v[j]}
		}
	}
	return nil
}

// holds applies p existentially over the values its path resolves to.
func holds(t *testing.T, p Predicate, doc any) bool {
	for _, v := range resolve(doc, p.Path) {
		if apply(t, p.Operator, v, p.Value) {
			return true
		}
	}
	return false
}

func apply(t *testing.T, op string, got, want any) bool {
	switch op {
	case "eq":
		return equal(got, want)
	case "contains":
		if s, ok := got.(string); ok {
			return strings.Contains(s, want.(string))
		}
		arr, _ := got.([]any)
		return slices.ContainsFunc(arr, func(e any) bool { return equal(e, want) })
	case "lte", "gte":
		a, b := rat(got), rat(want)
		if a == nil || b == nil {
			return false
		}
		c := a.Cmp(b)
		return op == "lte" && c <= 0 || op == "gte" && c >= 0
	case "after":
		a, err1 := time.Parse(time.RFC3339, asString(got))
		b, err2 := time.Parse(time.RFC3339, asString(want))
		return err1 == nil && err2 == nil && a.After(b)
	}
	t.Fatalf("checker lacks operator %q", op)
	return false
}

// equal is structural equality for scalars; numbers compare by value, and
// never equal a string.
func equal(got, want any) bool {
	if n, ok := got.(json.Number); ok {
		if _, isStr := want.(string); isStr {
			return false
		}
		a, b := rat(n), rat(want)
		return a != nil && b != nil && a.Cmp(b) == 0
	}
	return got == want
}

// rat reads a JSON number or a decimal string exactly; nil otherwise.
func rat(v any) *big.Rat {
	var s string
	switch v := v.(type) {
	case json.Number:
		s = string(v)
	case string:
		s = v
	case int:
		s = strconv.Itoa(v)
	case float64:
		s = strconv.FormatFloat(v, 'f', -1, 64)
	default:
		return nil
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return nil
	}
	return r
}

func asString(v any) string { s, _ := v.(string); return s }
