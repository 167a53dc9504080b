package bench

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"
)

// smallResult is a run of three engines on three workloads, in which
// postgres-gin did not time price_lte_0.1pct and sqlite-indexed was
// skipped.
func smallResult() *Result {
	const gib = 1 << 30
	return &Result{
		Command:   "aqlbench -docs 100000 -seed 7 -out results/",
		StartedAt: time.Date(2026, 3, 1, 12, 30, 0, 0, time.FixedZone("CET", 3600)),
		Seconds:   754.2,
		Docs:      100000,
		Seed:      7,
		Machine: Machine{
			OS: "linux", Arch: "amd64", CPUs: 8, CPUModel: "Test CPU @ 3.0GHz",
			MemBytes: 32 * gib, GoVersion: "go1.26.8", Kernel: "6.8.0-test",
		},
		Settings:       Settings{Warmup: 3, MinReps: 5, MaxReps: 200, BudgetSecs: 10, BatchSize: 1000},
		PhysicalScanMS: 500,
		Engines: []EngineResult{
			{Engine: EngineAqlstore, Indexes: "every path", LoadSeconds: 1.5, IndexSeconds: 0.5,
				IngestPerSec: 50000, DiskBytes: gib, OpenMS: 12.5, PeakRSSBytes: 300 << 20},
			{Engine: EngineSQLite, Indexes: "nothing", LoadSeconds: 5,
				IngestPerSec: 20000, DiskBytes: 5 * gib / 2, OpenMS: 0.8, PeakRSSBytes: 80 << 20},
			{Engine: EnginePostgres, Indexes: "GIN jsonb_path_ops | btree", LoadSeconds: 8, IndexSeconds: 2,
				IngestPerSec: 10000, DiskBytes: 3 * gib, OpenMS: -1, PeakRSSBytes: gib},
		},
		Workloads: []WorkloadResult{
			{Name: "eq_0.01pct", Selectivity: 0.0001, Want: 10, Pages: 1, Runs: []Measure{
				{Engine: EngineAqlstore, Reps: 200, FirstMS: 5, P50MS: 2, P95MS: 2.5, P99MS: 3, QPS: 480},
				{Engine: EngineSQLite, Reps: 25, FirstMS: 450, P50MS: 412, P95MS: 430, P99MS: 440, QPS: 2.4},
				{Engine: EnginePostgres, Reps: 200, FirstMS: 9, P50MS: 3.2, P95MS: 4, P99MS: 5, QPS: 300},
			}},
			{Name: "price_lte_0.1pct", Selectivity: 0.001, Want: 100, Pages: 1, Runs: []Measure{
				{Engine: EngineAqlstore, Reps: 200, FirstMS: 6, P50MS: 4, P95MS: 5, P99MS: 6, QPS: 240},
				{Engine: EngineSQLite, Reps: 25, FirstMS: 420, P50MS: 400, P95MS: 410, P99MS: 415, QPS: 2.5},
			}},
			{Name: "page_walk_1pct", Selectivity: 0.01, Want: 1000, Pages: 10, Runs: []Measure{
				{Engine: EngineAqlstore, Reps: 100, FirstMS: 30, P50MS: 20, P95MS: 22, P99MS: 25, QPS: 50},
				{Engine: EngineSQLite, Reps: 10, FirstMS: 4100, P50MS: 4000, P95MS: 4050, P99MS: 4080, QPS: 0.25},
				{Engine: EnginePostgres, Reps: 100, FirstMS: 80, P50MS: 60, P95MS: 70, P99MS: 75, QPS: 16},
			}},
		},
		Skipped:  []Skipped{{Engine: EngineSQLiteIndexed, Reason: "expression indexes disabled by -no-sqlite-indexes"}},
		Versions: map[string]string{EngineSQLite: "3.45.1", EngineAqlstore: "v0.3.0", EnginePostgres: "16.2"},
	}
}

func TestReport(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteReport(&buf, smallResult(), []string{"latency.png", "speedup.png"}); err != nil {
		t.Fatal(err)
	}
	report := buf.String()

	wants := []string{
		"# aqlstore benchmark: 100,000 manifests\n",
		"```\naqlbench -docs 100000 -seed 7 -out results/\n```",
		"2026-03-01T11:30:00Z", // in UTC
		"12m34s",
		"seed 7",
		"Test CPU @ 3.0GHz, 8 CPUs, 32.0 GiB memory, linux/amd64, kernel 6.8.0-test, go1.26.8",
		"aqlstore v0.3.0, postgres-gin 16.2, sqlite 3.45.1", // sorted
		"3 warm-up runs, then 5 to 200 timed runs per engine and workload, stopping once 10 s",
		"transactions of 1,000 documents",
		"## How to read this",
		// The skipped engine and why.
		"**sqlite-indexed**: expression indexes disabled by -no-sqlite-indexes",
		// Ingest rows: aqlstore ingests 2.5 times as fast as sqlite, which
		// takes 2.5 times the disk.
		"| aqlstore | every path | 50,000 (×1.0) | 1.50 | 0.500 | 1.0 GiB (×1.0) | 12.5 | 300 MiB |",
		"| sqlite | nothing | 20,000 (×2.5) | 5.00 | 0 | 2.5 GiB (×2.5) | 0.800 | 80.0 MiB |",
		`| postgres-gin | GIN jsonb_path_ops \| btree | 10,000 (×5.0) | 8.00 | 2.00 | 3.0 GiB (×3.0) | – | 1.0 GiB |`,
		// Latency: 412 / 2 = 206 and 3.2 / 2 = 1.6; postgres-gin did not
		// time price_lte_0.1pct.
		"| workload | selectivity | results | aqlstore | sqlite | postgres-gin |",
		"| eq_0.01pct | 0.01% | 10 | 2.00 (×1.0) | 412 (×206) | 3.20 (×1.6) |",
		"| price_lte_0.1pct | 0.1% | 100 | 4.00 (×1.0) | 400 (×100) | – |",
		"| page_walk_1pct | 1%, 10 pages | 1,000 | 20.0 (×1.0) | 4000 (×200) | 60.0 (×3.0) |",
		// Tails.
		"| eq_0.01pct | sqlite | 430 | 440 | 450 | 2.40 | 25 |",
		"![Query latency (p50) per workload](latency.png)",
		"![How many times faster aqlstore is (p50)](speedup.png)",
	}
	for _, want := range wants {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Contains(report, "| price_lte_0.1pct | postgres-gin |") {
		t.Error("tail table has a row for a workload the engine did not time")
	}
	// No aqlstore-scan ran: the full scans section has only the physical scan.
	if !strings.Contains(report, "took 500 ms") || strings.Contains(report, "× the physical scan") {
		t.Error("full scans section wrong")
	}
	if t.Failed() {
		t.Logf("report:\n%s", report)
	}
}

func TestReportSectionOrder(t *testing.T) {
	r := smallResult()
	r.Workloads[0].Runs = append(r.Workloads[0].Runs, Measure{Engine: EngineAqlstoreScan, Reps: 5, P50MS: 1500})
	var buf bytes.Buffer
	if err := WriteReport(&buf, r, nil); err != nil {
		t.Fatal(err)
	}
	report := buf.String()
	last := -1
	for _, h := range []string{"# aqlstore", "## How to read this", "## Skipped engines", "## Ingest and footprint",
		"## Full scans", "## Latency per workload", "## Tail latency and throughput"} {
		i := strings.Index(report, h)
		if i <= last {
			t.Fatalf("%q missing or out of order in:\n%s", h, report)
		}
		last = i
	}
	if strings.Contains(report, "## Charts") {
		t.Error("charts section without charts")
	}
	// aqlstore-scan, timed only, comes after the engines that loaded.
	if !strings.Contains(report, "| aqlstore | sqlite | postgres-gin | aqlstore-scan |") {
		t.Error("engine columns not in order of first appearance")
	}
	if !strings.Contains(report, "| eq_0.01pct | 1500 | ×3.0 |") {
		t.Error("aqlstore-scan not compared with the physical scan")
	}
}

func TestReportFormatters(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{FormatBytes(0), "0 B"},
		{FormatBytes(1023), "1023 B"},
		{FormatBytes(1536), "1.5 KiB"},
		{FormatBytes(1288490189), "1.2 GiB"},
		{FormatBytes(900 << 20), "900 MiB"},
		{FormatBytes(-2048), "-2.0 KiB"},
		{formatInt(0), "0"},
		{formatInt(999), "999"},
		{formatInt(1234567), "1,234,567"},
		{formatInt(-1234), "-1,234"},
		{formatMS(0.04234), "0.0423"},
		{formatMS(1.234), "1.23"},
		{formatMS(12.34), "12.3"},
		{formatMS(99.96), "100"},
		{formatMS(1234.4), "1234"},
		{formatRatio(1), "1.0"},
		{formatRatio(0.456), "0.46"},
		{formatRatio(9.96), "10"},
		{formatRatio(34.2), "34"},
		{formatRatio(342.4), "342"},
		{formatPercent(0.0001), "0.01%"},
		{formatPercent(0.001), "0.1%"},
		{formatPercent(0.25), "25%"},
		{formatRunTime(3723.4), "1h2m3s"},
		{formatRunTime(4.56), "4.6s"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

// TestReportPeers: the workloads section prints each engine's schema, the
// DuckDB condition and the bleve query of every workload, and says why an
// engine skipped one.
func TestReportPeers(t *testing.T) {
	r := smallResult()
	r.Schemas = map[string]string{EngineDuckDB: "CREATE TABLE docs (cid VARCHAR PRIMARY KEY, body JSON NOT NULL);\n"}
	w := &r.Workloads[0]
	w.Constraints = `{"path":"/tool/categories/*","operator":"eq","value":"sel_0.01pct"}`
	w.DuckDB = "list_contains(x, 'sel_0.01pct')"
	w.Bleve = `{"term":"sel_0.01pct","field":"categories"}`
	r.Workloads[1].Skipped = []Skipped{{Engine: EngineBleve, Reason: "no field for a member at any depth"}}
	var buf bytes.Buffer
	if err := WriteReport(&buf, r, nil); err != nil {
		t.Fatal(err)
	}
	report := buf.String()
	for _, want := range []string{
		"duckdb's schema:\n\n```\nCREATE TABLE docs (cid VARCHAR PRIMARY KEY, body JSON NOT NULL);\n```",
		"  - DuckDB: `list_contains(x, 'sel_0.01pct')`\n",
		"  - bleve: `{\"term\":\"sel_0.01pct\",\"field\":\"categories\"}`\n",
		"- **price_lte_0.1pct** (",
		"  - bleve: skipped: no field for a member at any depth\n",
	} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if t.Failed() {
		t.Logf("report:\n%s", report)
	}
}

// TestBleveDocument: the bleve document of a manifest holds the mapped
// fields with their types, keyword fields only strings, and a bad
// decimal string is an error naming the manifest and the path.
func TestBleveDocument(t *testing.T) {
	doc, err := bleveDocument(3, []byte(`{"oap_version":"1.0","risk_class":7,"tool":{"categories":["a",1,"b"]},
		"actions":[{"side_effects":"write"},{"id":"x"}],"jurisdictions":["LI"],
		"pricing":{"models":[{"amount":"99.50"},{"type":"subscription"}]},
		"conformance":{"last_attested_at":"2026-01-02T03:04:05Z"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := doc["risk_class"]; ok {
		t.Error("a number indexed as a keyword")
	}
	if got := doc["categories"].([]string); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("categories %v", got)
	}
	if got := doc["side_effects"].([]string); !slices.Equal(got, []string{"write"}) {
		t.Errorf("side_effects %v", got)
	}
	if got := doc["price_amount"].([]float64); !slices.Equal(got, []float64{99.5}) {
		t.Errorf("price_amount %v", got)
	}
	if got := doc["last_attested_at"].(time.Time); !got.Equal(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)) {
		t.Errorf("last_attested_at %v", got)
	}
	_, err = bleveDocument(3, []byte(`{"pricing":{"models":[{"amount":"9,50"}]}}`))
	if err == nil || !strings.Contains(err.Error(), "manifest 3: /pricing/models/*/amount") {
		t.Errorf("bad amount: %v", err)
	}
}
