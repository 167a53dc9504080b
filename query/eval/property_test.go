package eval

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aqlstore/aqlstore/canon"
	"github.com/aqlstore/aqlstore/query/aql"
	"github.com/dlclark/regexp2/v2"
	"pgregory.net/rapid"
)

// Generators draw from small pools on purpose, so that random constraints
// hit random documents often: the same keys, colliding numbers written
// differently (1, 1.0, 1e0), decimal strings, instants that are equal
// across offsets.
var (
	genKeys     = []string{"a", "b", "c", "x~y", "p/q", "é", "日本", "*"}
	genSegments = []string{"a", "b", "c", "x~y", "p/q", "é", "日本", "0", "1", "*", "**", "*", "**"}
	genStrings  = []string{"", "a", "aa", "abc", "bc", "high", "Hello wörld", "日本語", "𝄞", "100.00", "100",
		"007", "-1.5", "99.99", "0", "1e3", "5.", "not a time", "2024-05-01", "2024-13-01T00:00:00Z"}
	genNumbers = []string{"0", "-0", "1", "1.0", "1e0", "10E-1", "2", "100", "100.00", "1e2", "-1.5", "0.5",
		"5e-1", "99.99", "12345678901234567890123", "1.0000000000000000000001", "-0.0", "1E+2"}
	genInstants = []string{"2024-05-01T10:00:00Z", "2024-05-01T12:00:00+02:00", "2024-05-01T10:00:00.5Z",
		"2023-12-31T23:59:59-01:00", "2024-02-29T00:00:00Z", "2024-05-01T10:00:00.000000001Z", "1999-12-31T23:59:59.999Z"}
	genPatterns = []string{"^a", "a+", "^[A-Z]", "\\d", "^$", "é", "b$", "^(a|b)c?", "日", "\\s", "^-?[0-9]+(\\.[0-9]+)?$",
		".", "^\\d{4}-", "Z$", "[^a-z]", "^(a+)+$", "\\u00e9", "^.$"}
	genOperators = []string{"eq", "ne", "lt", "lte", "gt", "gte", "in", "not_in", "contains", "matches",
		"before", "after", "within", "outside", "exists"}
)

func genString(t *rapid.T) string {
	switch rapid.IntRange(0, 9).Draw(t, "string kind") {
	case 0:
		return rapid.StringN(0, 6, -1).Draw(t, "unicode")
	case 1:
		return genDecimalText(t, false)
	case 2, 3, 4:
		return genInstant(t)
	}
	return rapid.SampledFrom(genStrings).Draw(t, "string")
}

// genDecimalText draws a decimal in [-10^6, 10^6] with up to 4 places,
// written as a decimal string or, with exp, sometimes in exponent form.
func genDecimalText(t *rapid.T, exp bool) string {
	n := rapid.Int64Range(-1000000, 1000000).Draw(t, "coeff")
	scale := rapid.IntRange(0, 4).Draw(t, "scale")
	if exp && rapid.Bool().Draw(t, "exp form") {
		return fmt.Sprintf("%de-%d", n, scale)
	}
	s := fmt.Sprintf("%0*d", scale+1, abs(n))
	if scale > 0 {
		s = s[:len(s)-scale] + "." + s[len(s)-scale:]
	}
	if n < 0 {
		s = "-" + s
	}
	return s
}

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

func genInstant(t *rapid.T) string {
	if rapid.Bool().Draw(t, "pool instant") {
		return rapid.SampledFrom(genInstants).Draw(t, "instant")
	}
	sec := rapid.Int64Range(1700000000, 1720000000).Draw(t, "unix")
	nsec := rapid.SampledFrom([]int64{0, 500000000, 1, 123456789}).Draw(t, "nsec")
	off := rapid.SampledFrom([]int{0, 3600, -7200, 19800, -34200, 50400}).Draw(t, "offset")
	return time.Unix(sec, nsec).In(time.FixedZone("", off)).Format(time.RFC3339Nano)
}

func genNumber(t *rapid.T) canon.Number {
	if rapid.Bool().Draw(t, "pool number") {
		return canon.Number(rapid.SampledFrom(genNumbers).Draw(t, "number"))
	}
	return canon.Number(genDecimalText(t, true))
}

func genScalar(t *rapid.T) any {
	switch rapid.IntRange(0, 5).Draw(t, "scalar kind") {
	case 0:
		return nil
	case 1:
		return rapid.Bool().Draw(t, "bool")
	case 2, 3:
		return genNumber(t)
	}
	return genString(t)
}

func genValue(t *rapid.T, depth int) any {
	if depth <= 0 {
		return genScalar(t)
	}
	switch rapid.IntRange(0, 4).Draw(t, "value kind") {
	case 0:
		return genArray(t, depth-1)
	case 1:
		return genObject(t, depth-1)
	}
	return genScalar(t)
}

func genArray(t *rapid.T, depth int) []any {
	n := rapid.IntRange(0, 4).Draw(t, "array len")
	a := make([]any, n)
	for i := range a {
		a[i] = genValue(t, depth)
	}
	return a
}

func genObject(t *rapid.T, depth int) map[string]any {
	m := map[string]any{}
	for range rapid.IntRange(0, 4).Draw(t, "object len") {
		m[rapid.SampledFrom(genKeys).Draw(t, "key")] = genValue(t, depth)
	}
	return m
}

// genDocument is an object at the top, 0-4 levels deep.
func genDocument(t *rapid.T) any {
	return genObject(t, rapid.IntRange(1, 4).Draw(t, "depth"))
}

func genPath(t *rapid.T, wild bool) string {
	var b []byte
	for range rapid.IntRange(0, 3).Draw(t, "path len") {
		seg := rapid.SampledFrom(genSegments).Draw(t, "segment")
		if !wild && (seg == "*" || seg == "**") {
			seg = "a"
		}
		b = append(b, '/')
		if seg == "*" || seg == "**" {
			b = append(b, seg...)
		} else {
			b = canon.EscapeSegment(b, seg)
		}
	}
	return string(b)
}

// genOperand draws a value of the shape the operator takes (the intent
// compiler rejects other shapes), with every type that shape allows.
func genOperand(t *rapid.T, op string) any {
	switch op {
	case "lt", "lte", "gt", "gte":
		return rapid.OneOf(rapid.Custom(func(t *rapid.T) any { return genNumber(t) }),
			rapid.Custom(func(t *rapid.T) any { return genString(t) })).Draw(t, "order operand")
	case "in", "not_in":
		return genArray(t, 1)
	case "contains":
		return genValue(t, 1)
	case "matches":
		return rapid.SampledFrom(genPatterns).Draw(t, "pattern")
	case "before", "after":
		return genInstant(t)
	case "within", "outside":
		return genInterval(t)
	case "exists":
		return rapid.Bool().Draw(t, "exists")
	}
	return genValue(t, 2)
}

func genInterval(t *rapid.T) any {
	a, b := genInstant(t), genInstant(t)
	if rapid.Bool().Draw(t, "object interval") {
		return map[string]any{"from": a, "to": b}
	}
	return []any{a, b}
}

func genLeaf(t *rapid.T, wild bool) map[string]any {
	op := rapid.SampledFrom(genOperators).Draw(t, "operator")
	return map[string]any{"path": genPath(t, wild), "operator": op, "value": genOperand(t, op)}
}

// docEntry is one node of a generated document and its pointer segments.
type docEntry struct {
	segs  []string
	value any
}

// docEntries lists every node of doc but the root, in no particular order.
func docEntries(doc any, segs []string, dst []docEntry) []docEntry {
	switch x := doc.(type) {
	case map[string]any:
		for k, v := range x {
			s := append(segs[:len(segs):len(segs)], k)
			dst = docEntries(v, s, append(dst, docEntry{s, v}))
		}
	case []any:
		for i, v := range x {
			s := append(segs[:len(segs):len(segs)], fmt.Sprint(i))
			dst = docEntries(v, s, append(dst, docEntry{s, v}))
		}
	}
	return dst
}

// genTargetedLeaf aims a leaf at a node that exists, with an operand taken
// from or near that node's value, so that leaves pass and fail in earnest
// and equalities across spellings (1 and 1.0, Z and +02:00) are tried.
func genTargetedLeaf(t *rapid.T, entries []docEntry) map[string]any {
	op := rapid.SampledFrom(genOperators).Draw(t, "operator")
	if fit := fitting(op, entries); len(fit) > 0 && rapid.IntRange(0, 3).Draw(t, "fitting") > 0 {
		entries = fit
	}
	slices.SortFunc(entries, func(a, b docEntry) int { return slices.Compare(a.segs, b.segs) })
	ent := rapid.SampledFrom(entries).Draw(t, "target")
	return map[string]any{"path": genTargetPath(t, ent.segs), "operator": op, "value": genNearOperand(t, op, ent.value)}
}

// fitting keeps the entries whose values the operator can compare.
func fitting(op string, entries []docEntry) []docEntry {
	var keep func(v any) bool
	switch op {
	case "lt", "lte", "gt", "gte":
		keep = func(v any) bool { _, isNum := v.(canon.Number); s, _ := v.(string); return isNum || canon.IsDecimal(s) }
	case "before", "after", "within", "outside":
		keep = func(v any) bool { _, ok := instantOf(v); return ok }
	case "matches":
		keep = func(v any) bool { _, ok := v.(string); return ok }
	case "eq", "ne", "in", "not_in", "contains":
		keep = func(v any) bool { return strings.ContainsAny(string(canon.AppendValue(nil, v)), "0123456789") }
	default:
		return nil
	}
	var fit []docEntry
	for _, e := range entries {
		if keep(e.value) {
			fit = append(fit, e)
		}
	}
	return fit
}

// genTargetPath writes segs, sometimes widening a segment to * or a
// prefix to **.
func genTargetPath(t *rapid.T, segs []string) string {
	var b []byte
	start := 0
	if rapid.IntRange(0, 4).Draw(t, "descend") == 0 {
		start = rapid.IntRange(0, len(segs)-1).Draw(t, "descend from")
		b = append(b, "/**"...)
	}
	for _, seg := range segs[start:] {
		b = append(b, '/')
		if rapid.IntRange(0, 4).Draw(t, "widen") == 0 {
			b = append(b, '*')
			continue
		}
		b = canon.EscapeSegment(b, seg)
	}
	return string(b)
}

func genNearOperand(t *rapid.T, op string, v any) any {
	if rapid.IntRange(0, 3).Draw(t, "random operand") == 0 {
		return genOperand(t, op)
	}
	switch op {
	case "eq", "ne":
		return respell(t, v)
	case "in", "not_in":
		return []any{genScalar(t), respell(t, v)}
	case "contains":
		return genNearContains(t, v)
	case "lt", "lte", "gt", "gte", "before", "after":
		return genNearScalar(t, op, v)
	case "within", "outside":
		return genNearInterval(t, v)
	case "matches":
		return genNearPattern(t, v)
	}
	return genOperand(t, op)
}

// respell writes a value another way with the same meaning: numbers and
// decimal strings get other spellings, containers respell their elements.
func respell(t *rapid.T, v any) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = respell(t, e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = respell(t, e)
		}
		return out
	case canon.Number:
		return respellNumber(t, string(x), true)
	case string:
		if canon.IsDecimal(x) {
			return respellNumber(t, x, false)
		}
	}
	return v
}

// respellNumber rewrites a number (or a decimal string, which stays a
// string unless it becomes a number operand of an order operator).
func respellNumber(t *rapid.T, text string, isNum bool) any {
	plain := !strings.ContainsAny(text, "eE")
	switch k := rapid.IntRange(0, 3).Draw(t, "respell"); {
	case k == 0 && isNum && plain && strings.Contains(text, "."):
		return canon.Number(text + "0e0")
	case k == 0 && isNum && plain:
		return canon.Number(text + "0e-1")
	case k == 1 && plain && !strings.Contains(text, "."):
		text += ".000"
	case k == 2 && isNum:
		text = strings.Replace(text, "e", "E", 1)
	}
	if isNum {
		return canon.Number(text)
	}
	return text
}

func genNearContains(t *rapid.T, v any) any {
	switch x := v.(type) {
	case string:
		r := []rune(x)
		i := rapid.IntRange(0, len(r)).Draw(t, "sub start")
		j := rapid.IntRange(i, len(r)).Draw(t, "sub end")
		return string(r[i:j])
	case []any:
		if len(x) == 0 {
			return []any{}
		}
		e := rapid.SampledFrom(x).Draw(t, "element")
		if rapid.Bool().Draw(t, "as array") {
			return []any{respell(t, e)}
		}
		return respell(t, e)
	}
	return v
}

func genNearScalar(t *rapid.T, op string, v any) any {
	if _, ok := instantOf(v); ok {
		return genNearInstant(t, v.(string))
	}
	if op == "before" || op == "after" {
		return genInstant(t)
	}
	if s, ok := v.(string); ok && canon.IsDecimal(s) && rapid.Bool().Draw(t, "as number") {
		return canon.Number(s)
	}
	if _, isNum := v.(canon.Number); isNum || canon.IsDecimal(fmt.Sprint(v)) {
		return respell(t, v)
	}
	return genOperand(t, op)
}

// genNearInstant is s moved by nothing, a nanosecond or an hour, written
// in another zone.
func genNearInstant(t *rapid.T, s string) string {
	at, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return genInstant(t)
	}
	d := rapid.SampledFrom([]time.Duration{0, 0, time.Nanosecond, -time.Nanosecond, time.Hour, -time.Hour}).Draw(t, "shift")
	off := rapid.SampledFrom([]int{0, 3600, -7200, 19800}).Draw(t, "zone")
	return at.Add(d).In(time.FixedZone("", off)).Format(time.RFC3339Nano)
}

func genNearInterval(t *rapid.T, v any) any {
	s, ok := v.(string)
	if _, isTime := instantOf(v); !ok || !isTime {
		return genInterval(t)
	}
	from, to := genNearInstant(t, s), genNearInstant(t, s)
	if rapid.Bool().Draw(t, "interval form") {
		return []any{from, to}
	}
	return map[string]any{"from": from, "to": to}
}

// genNearPattern escapes a piece of a string value, sometimes anchored.
func genNearPattern(t *rapid.T, v any) any {
	sub, ok := genNearContains(t, v).(string)
	if !ok {
		return genOperand(t, "matches")
	}
	p := regexp2.Escape(sub)
	switch rapid.IntRange(0, 2).Draw(t, "anchor") {
	case 0:
		p = "^" + p
	case 1:
		p += "$"
	}
	return p
}

// genCtx draws constraints for one document.
type genCtx struct {
	entries []docEntry
}

func (g *genCtx) leaf(t *rapid.T) map[string]any {
	if len(g.entries) > 0 && rapid.IntRange(0, 3).Draw(t, "targeted") > 0 {
		return genTargetedLeaf(t, g.entries)
	}
	return genLeaf(t, true)
}

func (g *genCtx) constraint(t *rapid.T, depth int) any {
	kind := 0
	if depth > 0 {
		kind = rapid.IntRange(0, 5).Draw(t, "node kind")
	}
	switch kind {
	case 1:
		return map[string]any{"all_of": g.constraints(t, depth-1)}
	case 2:
		return map[string]any{"any_of": g.constraints(t, depth-1)}
	case 3:
		return map[string]any{"not": g.constraint(t, depth-1)}
	case 4:
		return map[string]any{"not": g.constraints(t, depth-1)} // none of
	}
	return g.leaf(t)
}

func (g *genCtx) constraints(t *rapid.T, depth int) []any {
	a := make([]any, rapid.IntRange(1, 3).Draw(t, "children"))
	for i := range a {
		a[i] = g.constraint(t, depth)
	}
	return a
}

// fataler is what mustCompileValue needs of testing.TB and *rapid.T.
type fataler interface {
	Helper()
	Fatalf(format string, args ...any)
}

func mustCompileValue(t fataler, c any) *aql.Node {
	t.Helper()
	n, err := testCompiler{timeout: time.Second}.node(c, "/constraints")
	if err != nil {
		t.Fatalf("compile %s: %v", canon.AppendValue(nil, c), err)
	}
	return n
}

// TestEvaluatorMatchesReference checks Eval and Match against the naive
// reference evaluator on random documents and constraint trees, and every
// record against the reference's view of its leaf.
func TestEvaluatorMatchesReference(t *testing.T) {
	e := New()
	rapid.Check(t, func(t *rapid.T) {
		doc := genDocument(t)
		g := &genCtx{entries: docEntries(doc, nil, nil)}
		for range constraintsPerDocument {
			checkAgainstReference(t, e, doc, g.constraint(t, rapid.IntRange(0, 3).Draw(t, "tree depth")))
		}
	})
}

// constraintsPerDocument multiplies the cases each rapid check tries.
const constraintsPerDocument = 10

func checkAgainstReference(t *rapid.T, e *Evaluator, doc, c any) {
	n := mustCompileValue(t, c)
	var leaves []refLeaf
	want := refEval(c, doc, &leaves)
	got, rec := e.Eval(n, doc, nil)
	if m := e.Match(n, doc); got != want || m != want {
		t.Fatalf("Eval = %v, Match = %v, reference = %v\ndoc %s\nconstraint %s",
			got, m, want, canon.AppendValue(nil, doc), canon.AppendValue(nil, c))
	}
	checkRecords(t, rec, leaves)
	if i := Blame(n, rec); i < 0 || i >= len(rec) {
		t.Fatalf("Blame = %d for %d records", i, len(rec))
	}
}

func checkRecords(t *rapid.T, rec []aql.Evaluation, leaves []refLeaf) {
	if len(rec) != len(leaves) {
		t.Fatalf("%d records for %d leaves", len(rec), len(leaves))
	}
	for i, ev := range rec {
		if msg := checkRecord(ev, leaves[i]); msg != "" {
			t.Fatalf("record %d (%s): %s\nvalues %s", i, formatEvaluation(ev), msg, canon.AppendValue(nil, leaves[i].vals))
		}
	}
}

func checkRecord(ev aql.Evaluation, l refLeaf) string {
	op := l.raw["operator"].(string)
	switch {
	case ev.Path != l.raw["path"] || ev.Operator != op:
		return "path or operator differ from the leaf"
	case ev.Passed != l.passed:
		return fmt.Sprintf("passed = %v, reference %v", ev.Passed, l.passed)
	case ev.HasCandidateValue != (len(l.vals) > 0):
		return "HasCandidateValue disagrees with the resolved set"
	case ev.Passed && l.notFailed != (ev.Reason == ReasonHeldUnderNot):
		return "a passed leaf must say " + ReasonHeldUnderNot + " exactly when the outermost not above it failed"
	case ev.Passed && !l.notFailed && ev.Reason != "":
		return "a passed leaf under no failed not has no reason"
	case !ev.Passed && ev.Reason == "":
		return "a failed leaf must give a reason"
	case len(l.vals) == 0 && !ev.Passed && ev.Reason != ReasonNoValue:
		return "empty resolution must say " + ReasonNoValue
	}
	return checkCandidate(ev, l, op)
}

// checkCandidate: a passing non-exists leaf names a witness, anything else
// names the first resolved value; a record gives either as its RFC 8785
// bytes.
func checkCandidate(ev aql.Evaluation, l refLeaf, op string) string {
	if !ev.HasCandidateValue {
		return ""
	}
	if ev.Passed && op != "exists" {
		for _, v := range l.vals {
			if string(canon.AppendValue(nil, v)) == string(ev.CandidateValue) && refOp(op, v, l.raw["value"]) {
				return ""
			}
		}
		return "the candidate is not a witness"
	}
	if string(canon.AppendValue(nil, l.vals[0])) != string(ev.CandidateValue) {
		return "the candidate is not the first resolved value"
	}
	return ""
}

// TestNotIsComplementOnSingleValuedPaths: without wildcards a path resolves
// to at most one value, where existential pairs are exact complements.
func TestNotIsComplementOnSingleValuedPaths(t *testing.T) {
	pairs := [][2]string{{"eq", "ne"}, {"in", "not_in"}, {"within", "outside"}}
	e := New()
	rapid.Check(t, func(t *rapid.T) {
		doc := genDocument(t)
		pair := rapid.SampledFrom(pairs).Draw(t, "pair")
		leaf := map[string]any{"path": genPath(t, false), "operator": pair[0], "value": genOperand(t, pair[0])}
		if entries := docEntries(doc, nil, nil); len(entries) > 0 && rapid.Bool().Draw(t, "targeted") {
			ent := rapid.SampledFrom(entries).Draw(t, "target")
			leaf["path"] = canon.JoinPointer(ent.segs...)
			leaf["value"] = genNearOperand(t, pair[0], ent.value)
		}
		other := map[string]any{"path": leaf["path"], "operator": pair[1], "value": leaf["value"]}
		pos, neg := mustCompileValue(t, leaf), mustCompileValue(t, other)
		not := mustCompileValue(t, map[string]any{"not": leaf})
		checkComplement(t, e, doc, pos, neg, not, pair[0] == "within")
	})
}

func checkComplement(t *rapid.T, e *Evaluator, doc any, pos, neg, not *aql.Node, temporal bool) {
	p, n, x := e.Match(pos, doc), e.Match(neg, doc), e.Match(not, doc)
	if x != !p {
		t.Fatalf("not = %v, leaf = %v", x, p)
	}
	vals := pos.Leaf.Path.ResolveAll(doc, nil)
	if len(vals) == 0 && (p || n) {
		t.Fatalf("empty resolution passed: %v %v", p, n)
	}
	if len(vals) != 1 {
		return // a key named "*" makes a wildcard
	}
	if _, ok := instantOf(vals[0]); temporal && !ok {
		return // incomparable both ways
	}
	if n != x {
		t.Fatalf("%s = %v but not(%s) = %v on %s", neg.Leaf.Operator, n, pos.Leaf.Operator, x,
			canon.AppendValue(nil, vals[0]))
	}
}

// TestEvalRecordsEveryLeaf: Eval never short-circuits, whatever the tree.
func TestEvalRecordsEveryLeaf(t *testing.T) {
	e := New()
	rapid.Check(t, func(t *rapid.T) {
		doc := genDocument(t)
		g := &genCtx{entries: docEntries(doc, nil, nil)}
		c := g.constraint(t, 3)
		n := mustCompileValue(t, c)
		_, rec := e.Eval(n, doc, nil)
		if got, want := len(rec), strings.Count(string(canon.AppendValue(nil, c)), `"operator"`); got != want {
			t.Fatalf("%d records, %d leaves", got, want)
		}
	})
}
