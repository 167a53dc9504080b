package query

import (
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/index"
	"github.com/aqlstore/aqlstore/query/aql"
	"github.com/aqlstore/aqlstore/store"
	"pgregory.net/rapid"
)

// The vocabulary is small on purpose, so random constraints often hit.
var (
	diffNames   = []string{"a", "b", "tags", "price", "at", "n", "k~1", "0"}
	diffStrings = []string{"x", "y", "sale", "resale", "79.99", "100.00", "2026-05-03T10:00:00Z",
		"2026-05-03T12:00:00+02:00", "2026-06-01T00:00:00.5Z", "", "ü-unicode", strings.Repeat("long", 40),
		"1.50", "-2.000", "100", "0.30000000000000001", "9007199254740993", // decimal strings of mixed scale
		"2026-06-01T00:00:00.5000000001Z"} // past the ninth digit: last, the indices above stay
	diffNumbers = []string{"0", "1", "1.5", "-2", "100", "79.99", "1e3", "0.3", "0.30000000000000001", "9007199254740993"}
)

func genValue(t *rapid.T, depth int) string {
	kinds := 7
	if depth >= 3 {
		kinds = 4
	}
	switch rapid.IntRange(0, kinds-1).Draw(t, "vkind") {
	case 0:
		return fmt.Sprintf("%q", rapid.SampledFrom(diffStrings).Draw(t, "str"))
	case 1:
		return rapid.SampledFrom(diffNumbers).Draw(t, "num")
	case 2:
		return rapid.SampledFrom([]string{"true", "false", "null"}).Draw(t, "lit")
	case 3:
		return fmt.Sprintf("%q", rapid.SampledFrom(diffStrings[:4]).Draw(t, "str2"))
	case 4:
		n := rapid.IntRange(0, 3).Draw(t, "alen")
		elems := make([]string, n)
		for i := range elems {
			elems[i] = genValue(t, depth+1)
		}
		return "[" + strings.Join(elems, ",") + "]"
	case 5:
		return genRangedArray(t)
	}
	return genObject(t, depth+1)
}

// genRangedArray draws an array of two or three instants, or of numbers
// and decimal strings: several values of one range type at one path,
// often on both sides of a bound, where a range is not the complement
// of the values outside it.
func genRangedArray(t *rapid.T) string {
	values := []string{`"2026-05-03T10:00:00Z"`, `"2026-05-03T12:00:00+02:00"`, `"2026-06-01T00:00:00.5Z"`,
		`"2026-05-03T09:30:00Z"`, `"2026-06-01T00:00:00.5000000001Z"`, `"2026-04-01T00:00:00Z"`}
	if rapid.Bool().Draw(t, "numeric") {
		values = append(slices.Clone(diffNumbers), `"79.99"`, `"100.00"`, `"1.50"`, `"-2.000"`)
	}
	elems := rapid.SliceOfN(rapid.SampledFrom(values), 2, 3).Draw(t, "ranged")
	return "[" + strings.Join(elems, ",") + "]"
}

func genObject(t *rapid.T, depth int) string {
	names := rapid.SliceOfNDistinct(rapid.SampledFrom(diffNames), 0, 4, rapid.ID[string]).Draw(t, "names")
	members := make([]string, len(names))
	for i, n := range names {
		members[i] = fmt.Sprintf("%q:%s", n, genValue(t, depth))
	}
	if depth == 0 && !slices.Contains(names, "at") && rapid.Bool().Draw(t, "ranged at") {
		members = append(members, `"at":`+genRangedMember(t))
	}
	return "{" + strings.Join(members, ",") + "}"
}

// genRangedMember draws one instant or number, mostly, and otherwise
// several (genRangedArray): a path where most documents hold one value
// of a range type, whose ranges are read by their complement, and a few
// hold several, which forbid it.
func genRangedMember(t *rapid.T) string {
	if rapid.IntRange(0, 3).Draw(t, "several") == 0 {
		return genRangedArray(t)
	}
	if rapid.Bool().Draw(t, "instant") {
		return fmt.Sprintf("%q", rapid.SampledFrom(append(diffStrings[6:9:9], diffStrings[len(diffStrings)-1])).Draw(t, "inst"))
	}
	return rapid.SampledFrom(diffNumbers).Draw(t, "num")
}

func genPath(t *rapid.T) string {
	n := rapid.IntRange(1, 3).Draw(t, "plen")
	segs := make([]string, n)
	for i := range segs {
		segs[i] = rapid.SampledFrom(append([]string{"*", "**", "0", "1"}, diffNames...)).Draw(t, "seg")
		segs[i] = strings.ReplaceAll(segs[i], "~1", "~01") // the member "k~1" is written k~01
	}
	return "/" + strings.Join(segs, "/")
}

func genLeaf(t *rapid.T) string {
	op := rapid.SampledFrom([]string{"eq", "ne", "lt", "lte", "gt", "gte", "in", "not_in", "contains",
		"matches", "before", "after", "within", "outside", "exists"}).Draw(t, "op")
	var v string
	switch op {
	case "exists":
		v = rapid.SampledFrom([]string{"true", "false"}).Draw(t, "b")
	case "in", "not_in":
		v = "[" + genValue(t, 3) + "," + genValue(t, 3) + "]"
	case "matches":
		v = fmt.Sprintf("%q", rapid.SampledFrom([]string{"^s", "ale$", "[0-9]+\\.[0-9]{2}", "x|y", "."}).Draw(t, "re"))
	case "before", "after":
		v = fmt.Sprintf("%q", rapid.SampledFrom(append(diffStrings[6:9:9], diffStrings[len(diffStrings)-1])).Draw(t, "inst"))
	case "within", "outside":
		v = `["2026-05-03T09:00:00Z","2026-05-03T10:00:00Z"]`
	case "lt", "lte", "gt", "gte":
		v = rapid.SampledFrom([]string{"1", "79.99", `"79.99"`, `"100.00"`, `"2026-05-03T10:00:00Z"`, "0.30000000000000001",
			"1.50", `"1.5"`, "-2", `"-2.0"`, "9007199254740993", `"9007199254740993"`, `"0.30000000000000001"`,
			`"2026-06-01T00:00:00.5Z"`, `"2026-06-01T00:00:00.50000000001Z"`}).Draw(t, "bound")
	default:
		v = genValue(t, 2)
	}
	path := genPath(t)
	switch op {
	case "lt", "lte", "gt", "gte", "before", "after", "within", "outside":
		if rapid.Bool().Draw(t, "ranged path") {
			path = rapid.SampledFrom([]string{"/at", "/at/*", "/**"}).Draw(t, "path")
		}
	}
	return fmt.Sprintf(`{"path":%q,"operator":%q,"value":%s}`, path, op, v)
}

func genTree(t *rapid.T, depth int) string {
	if depth >= 3 || rapid.IntRange(0, 2).Draw(t, "leafy") == 0 {
		return genLeaf(t)
	}
	switch rapid.IntRange(0, 3).Draw(t, "comb") {
	case 0:
		return `{"not":` + genTree(t, depth+1) + `}`
	case 1:
		return `{"not":[` + genTree(t, depth+1) + `,` + genTree(t, depth+1) + `]}`
	}
	n := rapid.IntRange(1, 3).Draw(t, "clen")
	kids := make([]string, n)
	for i := range kids {
		kids[i] = genTree(t, depth+1)
	}
	comb := rapid.SampledFrom([]string{"all_of", "any_of"}).Draw(t, "allany")
	return fmt.Sprintf(`{%q:[%s]}`, comb, strings.Join(kids, ","))
}

func genIntent(t *rapid.T) string {
	include := rapid.SampledFrom([]string{`["/"]`, `["/a"]`, `["/a","/b"]`, `["/tags/*"]`}).Draw(t, "include")
	if rapid.IntRange(0, 3).Draw(t, "randinclude") == 0 {
		// An include may not name an array position (aql.IncludeByPosition):
		// a segment of digits becomes *.
		segs := strings.Split(genPath(t), "/")
		for i, seg := range segs {
			if seg == "0" || seg == "1" {
				segs[i] = "*"
			}
		}
		include = fmt.Sprintf("[%q]", strings.Join(segs, "/"))
	}
	exclude := ""
	if rapid.IntRange(0, 3).Draw(t, "randexclude") == 0 {
		exclude = fmt.Sprintf(`,"exclude":[%q]`, genPath(t)) // positions allowed
	}
	policy := rapid.SampledFrom([]string{"ranked_set", "full_set", "full_set", "single_best"}).Draw(t, "policy")
	budget := rapid.SampledFrom([]string{"", "", `,"budget":{"amount":"3.00","currency":"EUR","allocation":"single_winner"}`,
		`,"budget":{"amount":"0.5","currency":"USD","allocation":"single_winner"}`}).Draw(t, "budget")
	return `{"intent_id":"urn:oap:intent:diff","issuer_did":"did:web:diff.example","category":"knowledge",` +
		`"constraints":` + genTree(t, 0) + `,"projection":{"include":` + include + exclude + `}` + budget + `,` +
		`"validity":{"from":"2026-05-01T00:00:00Z","to":"2026-06-01T00:00:00Z"},` +
		`"resolution_policy":"` + policy + `","signature":{"alg":"EdDSA","value":"x"}}`
}

// genSignals draws a score or none; equal values written differently
// (1, 1.0; 0.5, 0.50) must rank as one value. It draws a cost too, in
// one of two currencies or none, which a budget allots.
func genSignals(t *rapid.T) *canon.Signals {
	score := rapid.SampledFrom([]string{"", "", "1", "1.0", "0.5", "0.50", "-2", "10", "1e-3", "0"}).Draw(t, "score")
	cost := rapid.SampledFrom([]*canon.Cost{nil, nil, {Amount: "1.00", Currency: "EUR"}, {Amount: "2.5", Currency: "EUR"},
		{Amount: "0.25", Currency: "USD"}}).Draw(t, "cost")
	if score == "" && cost == nil {
		return nil
	}
	return &canon.Signals{Score: canon.Number(score), Cost: cost}
}

// diffChecks is how many random stores TestPlannerEqualsFullScan checks
// by default: more than rapid's 100, for the test that guards R3.
const diffChecks = 200

// setRapidChecks sets rapid's number of checks to n for t, unless the
// command line or the environment chose one. The count is one global
// flag, so the old value comes back when t ends.
func setRapidChecks(t *testing.T, n int) {
	explicit := os.Getenv("RAPID_CHECKS") != ""
	flag.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "rapid.checks" })
	f := flag.Lookup("rapid.checks")
	if explicit || f == nil {
		return
	}
	old := f.Value.String()
	if err := f.Value.Set(strconv.Itoa(n)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Value.Set(old) })
}

// Counters that show the random cases were not vacuous.
var diffCompared, diffNonEmpty, diffRejected, diffParseFail atomic.Int64

// compare resolves in as principal ("" is public) through the planner and
// by full scan, page by page (full_set pages of a random size, walked to
// the end through the cursors): the whole responses, rejections included
// (R3), must be identical but for their ids and times, and so must the
// rejected totals.
func compare(t *rapid.T, s *store.Store, ix *index.Index, in *aql.Intent, principal string) {
	pageSize := rapid.IntRange(1, 4).Draw(t, "pagesize")
	maxRejected := rapid.SampledFrom([]int{-1, 1, 2, 1 << 20}).Draw(t, "maxrejected")
	cursor := ""
	for page := 0; ; page++ {
		// Each page ranks its own way: a cursor one strategy issued must
		// serve the other.
		with := rapid.SampledFrom([]rankStrategy{rankByCost, rankForceWalk, rankForceWalkDense, rankForceSort}).Draw(t, "rank")
		var rank *RankChoice
		opts := func(ix *index.Index) *Options {
			return &Options{Signer: testSigner(), At: at, Principal: principal, MaxRejected: maxRejected, PageSize: pageSize,
				Cursor: cursor, Index: ix, rankWith: with, Explain: func(p *Plan) { rank = p.Rank; countRangeOps(p) }}
		}
		full, err := Resolve(context.Background(), s, in, opts(nil))
		if err != nil {
			t.Fatalf("full scan: %v", err)
		}
		planned, err := Resolve(context.Background(), s, in, opts(ix))
		if err != nil {
			t.Fatalf("planner: %v", err)
		}
		countRank(t, with, rank)
		checkOracle(t, full)
		checkOracle(t, planned)
		if page == 0 {
			diffCompared.Add(1)
			if len(full.Candidates) > 0 {
				diffNonEmpty.Add(1)
			}
			if len(full.Rejected) > 0 {
				diffRejected.Add(1)
			}
		}
		if a, b := responseJSON(full), responseJSON(planned); a != b {
			t.Fatalf("page %d: planner and full scan differ\nfull:    %s\nplanner: %s", page, a, b)
		}
		if full.RejectedTotal != planned.RejectedTotal {
			t.Fatalf("page %d: the planner rejected %d, the full scan %d", page, planned.RejectedTotal, full.RejectedTotal)
		}
		if cursor = full.NextCursor; cursor == "" {
			return
		}
	}
}

// diffWalks and diffSorts count the lazy pages ranked each way, as
// explain reported them.
var diffWalks, diffSorts atomic.Int64

// diffRanges counts the range leaves planned (explain names both ways
// index.Range; rangeComplements counts those read by their complement).
var diffRanges atomic.Int64

func countRangeOps(p *Plan) {
	if p != nil {
		countRangeNodes(p.Root)
	}
}

func countRangeNodes(n *PlanNode) {
	if n == nil {
		return
	}
	switch n.Op {
	case "index.Range":
		diffRanges.Add(1)
	}
	for _, c := range n.Children {
		countRangeNodes(c)
	}
}

// countRank checks that a forced strategy was the one explain reports
// (the last resolution, when a lazy miss started it again, judged every
// candidate and reports none), and counts it.
func countRank(t *rapid.T, with rankStrategy, rank *RankChoice) {
	switch {
	case rank == nil:
	case rank.Op == "rank.Walk":
		diffWalks.Add(1)
	case with == rankForceWalk || with == rankForceWalkDense:
		t.Fatalf("walk forced, explain says %s", rank)
	default:
		diffSorts.Add(1)
	}
	if rank != nil && with == rankForceSort && rank.Op != "rank.Select" {
		t.Fatalf("sort forced, explain says %s", rank)
	}
}

// responseJSON is the response's RFC 8785 form without what differs
// between two resolutions of one intent: the response and decision ids,
// the evaluation times and the signature (next_cursor is sealed with a
// fixed key over the same state, so it stays).
func responseJSON(r *Response) string {
	return string(canon.AppendValue(nil, withoutIDs(r.unsigned())))
}

func withoutIDs(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			switch k {
			case "response_id", "decision_id", "evaluated_at", "signature":
				continue
			}
			out[k] = withoutIDs(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = withoutIDs(x)
		}
		return out
	}
	return v
}

// TestPlannerEqualsFullScan: random stores, random intents over the whole
// operator set, with deletes and a reopen in between (metamorphic). It
// runs diffChecks checks unless -rapid.checks (or RAPID_CHECKS) says how
// many: make test-long asks for 5,000.
func TestPlannerEqualsFullScan(t *testing.T) {
	setRapidChecks(t, diffChecks)
	ranges0, complements0 := diffRanges.Load(), rangeComplements.Load()
	rapid.Check(t, func(t *rapid.T) {
		d, s, ix := openDiffStore(t)
		defer d.remove()
		ctx := context.Background()
		var refs []store.Ref
		n := rapid.IntRange(1, 40).Draw(t, "docs")
		for i := 0; i < n; i++ {
			body := genObject(t, 0)
			owner := rapid.SampledFrom([]string{store.Public, store.Public, "did:key:other"}).Draw(t, "owner")
			ref, err := s.Put(ctx, store.Document{Body: []byte(body), Owner: owner, Kind: canon.KindJSON, Signals: genSignals(t)})
			if err == nil {
				refs = append(refs, ref)
			}
		}
		for _, ref := range refs {
			if rapid.IntRange(0, 4).Draw(t, "del") == 0 {
				_ = s.Delete(ctx, ref)
			}
		}
		if rapid.Bool().Draw(t, "compact") {
			// Compact drops the postings and path ids deletes emptied;
			// documents put after it may bring the same paths back under
			// new ids.
			if err := s.Compact(ctx); err != nil {
				t.Fatal(err)
			}
			for range rapid.IntRange(0, 10).Draw(t, "after compact") {
				_, _ = s.Put(ctx, store.Document{Body: []byte(genObject(t, 0)), Owner: store.Public, Kind: canon.KindJSON})
			}
		}
		if rapid.Bool().Draw(t, "reopen") {
			s, ix = d.reopen(t, s)
		}
		defer s.Close()
		for q := 0; q < 5; q++ {
			src := genIntent(t)
			in, err := aql.Parse([]byte(src), nil)
			if err != nil {
				diffParseFail.Add(1)
				continue // a generated operand the intent rules refuse
			}
			compare(t, s, ix, in, "")
		}
	})
	t.Logf("%d intents compared (%d with candidates, %d with rejections listed), %d generated intents refused by the parser; "+
		"%d planner resolutions judged lazily (%d started again)",
		diffCompared.Load(), diffNonEmpty.Load(), diffRejected.Load(), diffParseFail.Load(), lazyPages.Load(), lazyMisses.Load())
	if lazyPages.Load() == 0 {
		t.Error("no resolution took the lazy path: the test no longer covers it")
	}
	t.Logf("lazy pages ranked: %d by walking the rank order, %d by sorting", diffWalks.Load(), diffSorts.Load())
	if diffWalks.Load() == 0 || diffSorts.Load() == 0 {
		t.Error("a ranking strategy was never taken: the test no longer covers both")
	}
	ranges, complements := diffRanges.Load()-ranges0, rangeComplements.Load()-complements0
	t.Logf("range leaves: %d planned, %d of them read by their complement", ranges, complements)
	if complements == 0 || ranges <= complements {
		t.Error("a range was never read one of the two ways: the test no longer covers both")
	}
}
