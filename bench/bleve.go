package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"
)

// The bleve index's fields: the manifest paths the workloads ask about,
// each with the field type a bleve user gives it. Arrays (and arrays of
// objects) become multi-valued fields; a document matches a term or
// range when any of its values does.
var bleveFields = []struct {
	Name, Path, Type string
}{
	{"oap_version", "/oap_version", "keyword"},
	{"risk_class", "/risk_class", "keyword"},
	{"categories", "/tool/categories/*", "keyword"},
	{"side_effects", "/actions/*/side_effects", "keyword"},
	{"jurisdictions", "/jurisdictions/*", "keyword"},
	{"price_amount", "/pricing/models/*/amount", "numeric (the decimal string as a float64)"},
	{"last_attested_at", "/conformance/last_attested_at", "datetime"},
	{"body", "/", "stored, not indexed (the whole document, for whole-document projections)"},
}

// bleveBackend is a bleve index (scorch) of the corpus under a static
// mapping of the queried paths, documents keyed by candidate id. Every
// batch returns once it is persisted (scorch's default, unsafe_batch
// false).
type bleveBackend struct {
	dir  string
	idx  bleve.Index
	docs int
}

func newBleve(dir string) (*bleveBackend, error) {
	b := &bleveBackend{dir: filepath.Join(dir, "index")}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	idx, err := bleve.New(b.dir, bleveMapping())
	if err != nil {
		return nil, fmt.Errorf("bleve: create index: %w", err)
	}
	b.idx = idx
	return b, nil
}

// bleveMapping is the index mapping: static, every queried path a field of
// its type, nothing indexed dynamically, no _all field.
func bleveMapping() *mapping.IndexMappingImpl {
	dm := bleve.NewDocumentStaticMapping()
	for _, f := range bleveFields {
		var fm *mapping.FieldMapping
		switch {
		case f.Type == "keyword":
			fm = bleve.NewKeywordFieldMapping()
		case strings.HasPrefix(f.Type, "numeric"):
			fm = bleve.NewNumericFieldMapping()
		case f.Type == "datetime":
			fm = bleve.NewDateTimeFieldMapping()
		default: // the stored body
			fm = bleve.NewTextFieldMapping()
			fm.Index, fm.Store = false, true
		}
		if f.Name != "body" {
			fm.Store = false
		}
		fm.IncludeInAll, fm.IncludeTermVectors, fm.DocValues = false, false, false
		dm.AddFieldMappingsAt(f.Name, fm)
	}
	im := bleve.NewIndexMapping()
	im.DefaultMapping = dm
	im.IndexDynamic, im.StoreDynamic, im.DocValuesDynamic = false, false, false
	return im
}

// bleveSchema is the mapping as the report prints it.
func bleveSchema() string {
	var b strings.Builder
	b.WriteString("static document mapping (no dynamic fields, no _all), document id = candidate id\n")
	for _, f := range bleveFields {
		fmt.Fprintf(&b, "%-17s %-30s %s\n", f.Name, f.Path, f.Type)
	}
	return b.String()
}

// bleveManifest is what the mapping reads of a manifest.
type bleveManifest struct {
	OAPVersion any `json:"oap_version"`
	RiskClass  any `json:"risk_class"`
	Tool       struct {
		Categories []any `json:"categories"`
	} `json:"tool"`
	Actions []struct {
		SideEffects any `json:"side_effects"`
	} `json:"actions"`
	Jurisdictions any `json:"jurisdictions"`
	Pricing       struct {
		Models []struct {
			Amount any `json:"amount"`
		} `json:"models"`
	} `json:"pricing"`
	Conformance struct {
		LastAttestedAt any `json:"last_attested_at"`
	} `json:"conformance"`
}

// bleveDocument is the document bleve indexes for one manifest: the
// mapped fields, strings only where the field is a keyword (a value of
// another type cannot equal a string), the decimal strings parsed.
func bleveDocument(i int, body []byte) (map[string]any, error) {
	var m bleveManifest
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, fmt.Errorf("manifest %d: %w", i, err)
	}
	doc := map[string]any{"body": string(body)}
	keyword := func(name string, vs ...any) {
		var out []string
		for _, v := range vs {
			if s, ok := v.(string); ok {
				out = append(out, s)
			}
		}
		if len(out) > 0 {
			doc[name] = out
		}
	}
	keyword("oap_version", m.OAPVersion)
	keyword("risk_class", m.RiskClass)
	keyword("categories", m.Tool.Categories...)
	var effects []any
	for _, a := range m.Actions {
		effects = append(effects, a.SideEffects)
	}
	keyword("side_effects", effects...)
	if js, ok := m.Jurisdictions.([]any); ok {
		keyword("jurisdictions", js...)
	}
	var amounts []float64
	for _, p := range m.Pricing.Models {
		if s, ok := p.Amount.(string); ok {
			f, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return nil, fmt.Errorf("manifest %d: /pricing/models/*/amount %q: %w", i, s, err)
			}
			amounts = append(amounts, f)
		}
	}
	if len(amounts) > 0 {
		doc["price_amount"] = amounts
	}
	if s, ok := m.Conformance.LastAttestedAt.(string); ok {
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			return nil, fmt.Errorf("manifest %d: /conformance/last_attested_at %q: %w", i, s, err)
		}
		doc["last_attested_at"] = t
	}
	return doc, nil
}

func (b *bleveBackend) Name() string { return EngineBleve }

func (b *bleveBackend) Version() string {
	return "bleve " + depVersion("github.com/blevesearch/bleve/v2") + " (scorch, durable batches)"
}

func (b *bleveBackend) Schema() string { return bleveSchema() }

func (b *bleveBackend) Load(ctx context.Context, src *Source, batch int, progress func(int)) (LoadStats, error) {
	start := time.Now()
	bt := b.idx.NewBatch()
	flush := func(done int) error {
		if bt.Size() == 0 {
			return nil
		}
		if err := b.idx.Batch(bt); err != nil {
			return fmt.Errorf("bleve: batch: %w", err)
		}
		bt.Reset()
		progress(done)
		return nil
	}
	err := src.Each(ctx, func(i int, cid string, body []byte) error {
		doc, err := bleveDocument(i, body)
		if err != nil {
			return err
		}
		if err := bt.Index(cid, doc); err != nil {
			return fmt.Errorf("bleve: index manifest %d: %w", i, err)
		}
		if bt.Size() == batch {
			return flush(i + 1)
		}
		return nil
	})
	if err == nil {
		err = flush(src.N)
	}
	b.docs = src.N
	return LoadStats{Load: time.Since(start)}, err
}

func (b *bleveBackend) Engines() []Engine { return []Engine{b} }

func (b *bleveBackend) Indexes() string {
	return "term postings of the keyword fields, numeric and datetime range postings (scorch segments), every array a multi-valued field"
}

func (b *bleveBackend) DiskBytes() (int64, error) { return dirBytes(b.dir) }

func (b *bleveBackend) Reopen(ctx context.Context) (time.Duration, error) {
	if err := b.idx.Close(); err != nil {
		return 0, err
	}
	start := time.Now()
	idx, err := bleve.Open(b.dir)
	if err != nil {
		return 0, err
	}
	b.idx = idx
	if _, err := idx.DocCount(); err != nil {
		return 0, err
	}
	return time.Since(start), nil
}

func (b *bleveBackend) PeakRSS() int64 { return 0 }
func (b *bleveBackend) Close() error   { return b.idx.Close() }

// Skip says why bleve cannot answer w exactly, or "".
func (b *bleveBackend) Skip(w *Workload) string {
	if w.Bleve == nil {
		return w.BleveSkip
	}
	return ""
}

// Query runs w's bleve query sorted by document id (the candidate id),
// without scoring; pages are read with SearchAfter the last id.
func (b *bleveBackend) Query(ctx context.Context, w *Workload) ([]string, error) {
	if w.Bleve == nil {
		return nil, fmt.Errorf("bleve cannot answer %s: %s", w.Name, w.BleveSkip)
	}
	size := max(b.docs, 1)
	if w.PageSize > 0 {
		size = w.PageSize
	}
	var ids []string
	var after []string
	for {
		req := bleve.NewSearchRequestOptions(w.Bleve(), size, 0, false)
		req.SortBy([]string{"_id"})
		req.Score = bleve.ScoreNone
		if w.WholeDocument {
			req.Fields = []string{"body"}
		}
		if after != nil {
			req.SearchAfter = after
		}
		res, err := b.idx.SearchInContext(ctx, req)
		if err != nil {
			return nil, err
		}
		for _, h := range res.Hits {
			if w.WholeDocument {
				if _, ok := h.Fields["body"].(string); !ok {
					return nil, fmt.Errorf("bleve: %s: no stored body", h.ID)
				}
			}
			ids = append(ids, h.ID)
		}
		if w.PageSize == 0 || w.FirstPage || len(res.Hits) < size {
			return ids, nil
		}
		after = []string{ids[len(ids)-1]}
	}
}

// bleveTerm is an exact match of a keyword field.
func bleveTerm(field, value string) func() query.Query {
	return func() query.Query {
		q := bleve.NewTermQuery(value)
		q.SetField(field)
		return q
	}
}

// bleveDates is a datetime range; a zero time leaves that end open.
func bleveDates(field string, start, end string, startIncl, endIncl bool) func() query.Query {
	s, e := parseInstant(start), parseInstant(end)
	return func() query.Query {
		q := bleve.NewDateRangeInclusiveQuery(s, e, &startIncl, &endIncl)
		q.SetField(field)
		return q
	}
}

func parseInstant(s string) time.Time {
	if s == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic("bench: bad instant " + s)
	}
	return t
}

// bleveJSON renders a workload's bleve query as bleve's JSON query
// language, for the report.
func bleveJSON(w *Workload) string {
	if w.Bleve == nil {
		return ""
	}
	b, err := json.Marshal(w.Bleve())
	if err != nil {
		return err.Error()
	}
	return string(b)
}
