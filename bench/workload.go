package bench

import (
	"fmt"
	"strconv"

	"github.com/aqlstore/aqlstore/internal/corpus"
	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"
)

// Workload is one question asked of every engine: an AQL constraint tree
// and, for the SQL engines, the condition each dialect's user would write
// for it. Every engine's answer must equal the expected count and
// aqlstore's answer before any timing counts.
//
// The SQL conditions are over a table docs(cid, body): cid is the
// candidate id aqlstore gives the manifest (tool.did "@" tool.version),
// body the document (TEXT holding JSON in SQLite, jsonb in PostgreSQL).
type Workload struct {
	Name        string
	Group       string // eq, all_of, any_of, not, decimal, instant, wildcard, descendant, contains, matches, projection, pagination
	Description string
	Constraints string   // the AQL constraint tree, as JSON
	Include     []string // projection include pointers; nil means ["/tool/id"]
	// PageSize > 0 pages the full_set in pages of that size; FirstPage
	// then asks for the first page only, else every page is walked
	// through its cursor. PageSize 0 returns every result on one page.
	PageSize  int
	FirstPage bool
	// WholeDocument: the SQL engines return the body with the id, as the
	// projection of "/" returns it from aqlstore.
	WholeDocument bool
	SQLite        string // WHERE condition, SQLite JSON1
	Postgres      string // WHERE condition, PostgreSQL jsonb
	DuckDB        string // WHERE condition, DuckDB JSON functions and extracted columns
	DuckDBSkip    string // why DuckDB cannot answer it, when DuckDB is ""
	// Bleve builds the bleve query that answers the workload exactly
	// (sorted by id, not scored), nil when bleve cannot: BleveSkip says
	// why, and bleve skips the workload rather than answer another question.
	Bleve     func() query.Query
	BleveSkip string
	total     func(n int) int // results on the first n documents, all pages
}

// Total is the number of documents of the first n of the corpus that
// satisfy the constraints.
func (w *Workload) Total(n int) int { return w.total(n) }

// Want is the number of results the workload returns on the first n
// documents: Total, or the first page of it for FirstPage.
func (w *Workload) Want(n int) int {
	if w.FirstPage {
		return min(w.PageSize, w.total(n))
	}
	return w.total(n)
}

// Pages is how many pages the workload reads on n documents.
func (w *Workload) Pages(n int) int {
	if w.PageSize == 0 || w.FirstPage {
		return 1
	}
	return max(1, (w.total(n)+w.PageSize-1)/w.PageSize)
}

// Fixed values of the corpus the workloads use (see internal/corpus).
const (
	afterThreshold = "2026-01-01T00:00:00Z" // every controlled instant is after it
	withinFrom     = "2026-01-01T00:00:01Z"
	withinTo       = "2026-04-01T00:00:00Z" // 90 days after the threshold
)

// Workloads is the suite for a corpus of manifests generated with seed.
func Workloads(seed uint64) []*Workload {
	count := func(name string) func(n int) int {
		p := predicate(name)
		return func(n int) int { return corpus.ExpectedCount(corpus.KindManifest, p, seed, n) }
	}
	bucket := func(pct string) string { return "sel_" + pct + "pct" }
	eq := func(pct string) *Workload {
		return &Workload{
			Name: "eq_" + pct + "pct", Group: "eq",
			Description: "a category array holds a value (`/tool/categories/*` eq)",
			Constraints: leaf("/tool/categories/*", "eq", strconv.Quote(bucket(pct))),
			SQLite:      sqliteCategory(bucket(pct)),
			Postgres:    pgContains(`{"tool":{"categories":[%q]}}`, bucket(pct)),
			DuckDB:      duckCategory(bucket(pct)),
			Bleve:       bleveTerm("categories", bucket(pct)),
			total:       count("eq_" + pct + "pct"),
		}
	}
	after, sideEffects, contains := count("after_0.1pct"), count("side_effects_irreversible_1pct"), count("jurisdiction_contains_1pct")
	ws := []*Workload{eq("0.01"), eq("0.1"), eq("1"), eq("10"),
		{
			Name: "all_of_0.01pct", Group: "all_of",
			Description: "two eq constraints, one selective",
			Constraints: fmt.Sprintf(`{"all_of":[%s,%s]}`, leaf("/tool/categories/*", "eq", `"sel_0.01pct"`), leaf("/oap_version", "eq", `"1.0"`)),
			SQLite:      sqliteCategory("sel_0.01pct") + ` AND json_extract(body, '$.oap_version') = '1.0'`,
			Postgres:    `body @> '{"oap_version":"1.0","tool":{"categories":["sel_0.01pct"]}}'`,
			DuckDB:      duckCategory("sel_0.01pct") + ` AND oap_version = '1.0'`,
			Bleve: func() query.Query {
				return bleve.NewConjunctionQuery(bleveTerm("categories", "sel_0.01pct")(), bleveTerm("oap_version", "1.0")())
			},
			total: count("eq_0.01pct"),
		},
		{
			Name: "any_of_0.11pct", Group: "any_of",
			Description: "either of two category values",
			Constraints: fmt.Sprintf(`{"any_of":[%s,%s]}`, leaf("/tool/categories/*", "eq", `"sel_0.01pct"`), leaf("/tool/categories/*", "eq", `"sel_0.1pct"`)),
			SQLite:      `EXISTS (SELECT 1 FROM json_each(body, '$.tool.categories') WHERE value IN ('sel_0.01pct', 'sel_0.1pct'))`,
			Postgres:    `(body @> '{"tool":{"categories":["sel_0.01pct"]}}' OR body @> '{"tool":{"categories":["sel_0.1pct"]}}')`,
			DuckDB:      `list_has_any(json_extract_string(body, '$.tool.categories[*]'), ['sel_0.01pct', 'sel_0.1pct'])`,
			Bleve: func() query.Query {
				return bleve.NewDisjunctionQuery(bleveTerm("categories", "sel_0.01pct")(), bleveTerm("categories", "sel_0.1pct")())
			},
			total: func(n int) int { return count("eq_0.01pct")(n) + count("eq_0.1pct")(n) },
		},
		{
			Name: "not_0.1pct", Group: "not",
			Description: "a selective category and not another",
			Constraints: fmt.Sprintf(`{"all_of":[%s,{"not":%s}]}`, leaf("/tool/categories/*", "eq", `"sel_0.1pct"`), leaf("/tool/categories/*", "eq", `"sel_10pct"`)),
			SQLite:      sqliteCategory("sel_0.1pct") + ` AND NOT ` + sqliteCategory("sel_10pct"),
			Postgres:    `body @> '{"tool":{"categories":["sel_0.1pct"]}}' AND NOT body @> '{"tool":{"categories":["sel_10pct"]}}'`,
			DuckDB:      duckCategory("sel_0.1pct") + ` AND NOT ` + duckCategory("sel_10pct"),
			Bleve: func() query.Query {
				q := bleve.NewBooleanQuery()
				q.AddMust(bleveTerm("categories", "sel_0.1pct")())
				q.AddMustNot(bleveTerm("categories", "sel_10pct")())
				return q
			},
			total: count("eq_0.1pct"), // the buckets are disjoint
		},
		{
			Name: "risk_eq_10pct_page1", Group: "eq",
			Description: "a scalar member equals a common value; the first page of 100",
			Constraints: leaf("/risk_class", "eq", `"high"`),
			PageSize:    100, FirstPage: true,
			SQLite:   `json_extract(body, '$.risk_class') = 'high'`,
			Postgres: `body->>'risk_class' = 'high'`,
			DuckDB:   `risk_class = 'high'`,
			Bleve:    bleveTerm("risk_class", "high"),
			total:    count("risk_high_10pct"),
		},
		{
			Name: "price_lte_0.1pct", Group: "decimal",
			Description: "a decimal-string price in an array of pricing models is at most 100.00",
			Constraints: leaf("/pricing/models/*/amount", "lte", `"100.00"`),
			SQLite:      `EXISTS (SELECT 1 FROM json_each(body, '$.pricing.models') m WHERE CAST(json_extract(m.value, '$.amount') AS REAL) <= 100.00)`,
			Postgres:    `EXISTS (SELECT 1 FROM jsonb_array_elements(body->'pricing'->'models') m WHERE (m->>'amount')::numeric <= 100.00)`,
			DuckDB:      `EXISTS (SELECT 1 FROM unnest(json_extract_string(body, '$.pricing.models[*].amount')) m(amount) WHERE CAST(m.amount AS DECIMAL(18, 2)) <= 100.00)`,
			Bleve: func() query.Query {
				hi, incl := 100.0, true
				q := bleve.NewNumericRangeInclusiveQuery(nil, &hi, nil, &incl)
				q.SetField("price_amount")
				return q
			},
			total: count("price_lte_0.1pct"),
		},
		{
			Name: "after_0.1pct", Group: "instant",
			Description: "an RFC 3339 instant is after a threshold",
			Constraints: leaf("/conformance/last_attested_at", "after", strconv.Quote(afterThreshold)),
			SQLite:      fmt.Sprintf(`%s > '%s'`, sqliteAttested, afterThreshold),
			Postgres:    fmt.Sprintf(`%s > '%s'`, pgAttested, afterThreshold),
			DuckDB:      fmt.Sprintf(`last_attested_at > TIMESTAMPTZ '%s'`, afterThreshold),
			Bleve:       bleveDates("last_attested_at", afterThreshold, "", false, false),
			total:       after,
		},
		{
			Name: "within_0.1pct", Group: "instant",
			Description: "an instant lies within a 90-day window",
			Constraints: leaf("/conformance/last_attested_at", "within", fmt.Sprintf(`[%q,%q]`, withinFrom, withinTo)),
			SQLite:      fmt.Sprintf(`%s BETWEEN '%s' AND '%s'`, sqliteAttested, withinFrom, withinTo),
			Postgres:    fmt.Sprintf(`%s BETWEEN '%s' AND '%s'`, pgAttested, withinFrom, withinTo),
			DuckDB:      fmt.Sprintf(`last_attested_at BETWEEN TIMESTAMPTZ '%s' AND TIMESTAMPTZ '%s'`, withinFrom, withinTo),
			Bleve:       bleveDates("last_attested_at", withinFrom, withinTo, true, true),
			total:       after, // every controlled instant is within 90 days after the threshold
		},
		{
			Name: "before_99.9pct_page1", Group: "instant",
			Description: "an instant is before a threshold (nearly every document); the first page of 100",
			Constraints: leaf("/conformance/last_attested_at", "before", strconv.Quote(withinFrom)),
			PageSize:    100, FirstPage: true,
			SQLite:   fmt.Sprintf(`%s < '%s'`, sqliteAttested, withinFrom),
			Postgres: fmt.Sprintf(`%s < '%s'`, pgAttested, withinFrom),
			DuckDB:   fmt.Sprintf(`last_attested_at < TIMESTAMPTZ '%s'`, withinFrom),
			Bleve:    bleveDates("last_attested_at", "", withinFrom, false, false),
			total:    func(n int) int { return n - after(n) },
		},
		{
			Name: "side_effects_1pct", Group: "wildcard",
			Description: "some action of the array is irreversible (`/actions/*/side_effects`)",
			Constraints: leaf("/actions/*/side_effects", "eq", `"irreversible"`),
			SQLite:      `EXISTS (SELECT 1 FROM json_each(body, '$.actions') a WHERE json_extract(a.value, '$.side_effects') = 'irreversible')`,
			Postgres:    `body @> '{"actions":[{"side_effects":"irreversible"}]}'`,
			DuckDB:      `list_contains(json_extract_string(body, '$.actions[*].side_effects'), 'irreversible')`,
			Bleve:       bleveTerm("side_effects", "irreversible"),
			total:       sideEffects,
		},
		{
			Name: "descendant_1pct", Group: "descendant",
			Description: "a side_effects member at any depth is irreversible (`/**/side_effects`)",
			Constraints: leaf("/**/side_effects", "eq", `"irreversible"`),
			SQLite:      `EXISTS (SELECT 1 FROM json_tree(body) t WHERE t.key = 'side_effects' AND t.atom = 'irreversible')`,
			Postgres:    `body @? '$.**.side_effects ? (@ == "irreversible")'`,
			DuckDB:      `EXISTS (SELECT 1 FROM json_tree(body) t WHERE t.key = 'side_effects' AND t.atom = '"irreversible"')`,
			BleveSkip: "a bleve field is a path its mapping names; a member at any depth (`/**/side_effects`) has none " +
				"unless every path it may occur at is mapped in advance, which answers another question",
			total: sideEffects, // side_effects occurs only in actions
		},
		{
			Name: "contains_1pct", Group: "contains",
			Description: "an array contains an element (`/jurisdictions` contains)",
			Constraints: leaf("/jurisdictions", "contains", `"LI"`),
			SQLite:      `EXISTS (SELECT 1 FROM json_each(body, '$.jurisdictions') WHERE value = 'LI')`,
			Postgres:    `body @> '{"jurisdictions":["LI"]}'`,
			DuckDB:      `list_contains(json_extract_string(body, '$.jurisdictions[*]'), 'LI')`,
			Bleve:       bleveTerm("jurisdictions", "LI"),
			total:       contains,
		},
		{
			Name: "matches_1pct", Group: "matches",
			Description: "some jurisdiction code matches a regular expression",
			Constraints: leaf("/jurisdictions/*", "matches", `"^L[A-Z]$"`),
			SQLite:      `EXISTS (SELECT 1 FROM json_each(body, '$.jurisdictions') WHERE value REGEXP '^L[A-Z]$')`,
			Postgres:    `body @? '$.jurisdictions[*] ? (@ like_regex "^L[A-Z]$")'`,
			DuckDB:      `EXISTS (SELECT 1 FROM unnest(json_extract_string(body, '$.jurisdictions[*]')) j(code) WHERE regexp_matches(j.code, '^L[A-Z]$'))`,
			Bleve: func() query.Query { // bleve's regexps match whole terms: no anchors
				q := bleve.NewRegexpQuery("L[A-Z]")
				q.SetField("jurisdictions")
				return q
			},
			total: contains, // LI is the only code starting with L
		},
		{
			Name: "projection_0.1pct", Group: "projection",
			Description: "eq 0.1%, returning whole documents",
			Constraints: leaf("/tool/categories/*", "eq", `"sel_0.1pct"`),
			Include:     []string{"/"}, WholeDocument: true,
			SQLite:   sqliteCategory("sel_0.1pct"),
			Postgres: `body @> '{"tool":{"categories":["sel_0.1pct"]}}'`,
			DuckDB:   duckCategory("sel_0.1pct"),
			Bleve:    bleveTerm("categories", "sel_0.1pct"),
			total:    count("eq_0.1pct"),
		},
		{
			Name: "page_walk_1pct", Group: "pagination",
			Description: "eq 1% read as full_set pages of 100, every page through its cursor",
			Constraints: leaf("/tool/categories/*", "eq", `"sel_1pct"`),
			PageSize:    100,
			SQLite:      sqliteCategory("sel_1pct"),
			Postgres:    `body @> '{"tool":{"categories":["sel_1pct"]}}'`,
			DuckDB:      duckCategory("sel_1pct"),
			Bleve:       bleveTerm("categories", "sel_1pct"),
			total:       count("eq_1pct"),
		},
	}
	return ws
}

// The expression the instant workloads compare. Every generated instant
// has the form YYYY-MM-DDTHH:MM:SSZ, so text order is instant order and
// the SQL engines may compare text; aqlstore compares instants.
const (
	sqliteAttested = `json_extract(body, '$.conformance.last_attested_at')`
	pgAttested     = `(body->'conformance'->>'last_attested_at')`
)

func sqliteCategory(v string) string {
	return fmt.Sprintf(`EXISTS (SELECT 1 FROM json_each(body, '$.tool.categories') WHERE value = '%s')`, v)
}

func duckCategory(v string) string {
	return fmt.Sprintf(`list_contains(json_extract_string(body, '$.tool.categories[*]'), '%s')`, v)
}

func pgContains(format string, args ...any) string {
	return "body @> '" + fmt.Sprintf(format, args...) + "'"
}

func leaf(path, op, value string) string {
	return fmt.Sprintf(`{"path":%q,"operator":%q,"value":%s}`, path, op, value)
}

// predicate is the corpus's controlled manifest predicate of that name.
func predicate(name string) corpus.Predicate {
	for _, p := range corpus.Predicates(corpus.KindManifest) {
		if p.Name == name {
			return p
		}
	}
	panic("bench: the corpus has no manifest predicate " + name)
}
