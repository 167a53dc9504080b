package bench

import "time"

// Result is one run of the suite: what ran, where, and every figure.
// Latencies are milliseconds; sizes bytes; rates per second.
type Result struct {
	Command   string    `json:"command"`
	StartedAt time.Time `json:"started_at"`
	Seconds   float64   `json:"seconds"` // the whole run
	Docs      int       `json:"docs"`
	Seed      uint64    `json:"seed"`
	Machine   Machine   `json:"machine"`
	// Settings are the repetition rules the latencies come from.
	Settings Settings `json:"settings"`
	// PhysicalScan is the time to read every stored aqlstore document
	// without evaluating anything: the floor a full scan cannot beat.
	PhysicalScanMS float64           `json:"physical_scan_ms"`
	Engines        []EngineResult    `json:"engines"`
	Workloads      []WorkloadResult  `json:"workloads"`
	Skipped        []Skipped         `json:"skipped,omitempty"`
	Versions       map[string]string `json:"versions"`
	// Schemas are the mapping or DDL of the engines that have one beyond
	// the docs table every SQL engine shares.
	Schemas map[string]string `json:"schemas,omitempty"`
}

// Machine describes the computer the run measured.
type Machine struct {
	OS        string `json:"os"`
	Arch      string `json:"arch"`
	CPUs      int    `json:"cpus"`
	CPUModel  string `json:"cpu_model"`
	MemBytes  uint64 `json:"mem_bytes"`
	GoVersion string `json:"go_version"`
	Kernel    string `json:"kernel"`
}

// Settings are the repetition rules of the timed part.
type Settings struct {
	Warmup     int     `json:"warmup"`      // untimed runs before timing
	MinReps    int     `json:"min_reps"`    // timed runs at least
	MaxReps    int     `json:"max_reps"`    // timed runs at most
	BudgetSecs float64 `json:"budget_secs"` // timed runs stop once they took this long (after MinReps)
	BatchSize  int     `json:"batch_size"`  // documents per ingest transaction
}

// Skipped is an engine the run could not measure, and why.
type Skipped struct {
	Engine string `json:"engine"`
	Reason string `json:"reason"`
}

// EngineResult is an engine's load and footprint.
type EngineResult struct {
	Engine  string `json:"engine"`
	Indexes string `json:"indexes"` // what it indexes, in words
	// LoadSeconds is the time to store every document durably, in
	// transactions of Settings.BatchSize; IndexSeconds the time to build
	// the indexes created after the load (0 when they grow with it).
	LoadSeconds  float64 `json:"load_seconds"`
	IndexSeconds float64 `json:"index_seconds"`
	IngestPerSec float64 `json:"ingest_docs_per_sec"` // Docs / (LoadSeconds + IndexSeconds)
	DiskBytes    int64   `json:"disk_bytes"`
	OpenMS       float64 `json:"open_ms"`        // reopen after the load, -1 when not meaningful
	PeakRSSBytes int64   `json:"peak_rss_bytes"` // growth of resident memory during the load
}

// WorkloadResult is one workload's expected answer and every engine's
// timing of it.
type WorkloadResult struct {
	Name        string  `json:"name"`
	Group       string  `json:"group"`
	Description string  `json:"description"`
	Selectivity float64 `json:"selectivity"` // of the whole result, not of a page
	Want        int     `json:"want"`        // results returned (all pages)
	Pages       int     `json:"pages"`       // 1 unless the workload walks pages
	// The question as each engine was asked it.
	Constraints string    `json:"constraints"` // AQL constraint tree
	PageSize    int       `json:"page_size"`   // 0: every result on one page
	SQLite      string    `json:"sqlite"`      // WHERE condition
	Postgres    string    `json:"postgres"`    // WHERE condition
	DuckDB      string    `json:"duckdb"`      // WHERE condition
	Bleve       string    `json:"bleve"`       // the query, in bleve's JSON query language
	Runs        []Measure `json:"runs"`
	// Skipped are the engines that cannot express the workload exactly.
	Skipped []Skipped `json:"skipped,omitempty"`
}

// Measure is one engine's timing of one workload. Every answer it gave
// equalled the expected one.
type Measure struct {
	Engine  string  `json:"engine"`
	Reps    int     `json:"reps"`
	FirstMS float64 `json:"first_ms"` // the first run: cold caches of the engine's own
	P50MS   float64 `json:"p50_ms"`
	P95MS   float64 `json:"p95_ms"`
	P99MS   float64 `json:"p99_ms"`
	MeanMS  float64 `json:"mean_ms"`
	QPS     float64 `json:"qps"` // sequential: reps / timed seconds
}

// Run returns the measure of engine on w, or nil.
func (w *WorkloadResult) Run(engine string) *Measure {
	for i := range w.Runs {
		if w.Runs[i].Engine == engine {
			return &w.Runs[i]
		}
	}
	return nil
}

// Ratio is engine's p50 over aqlstore's (the planner) on w: above 1,
// aqlstore is faster. ok is false when either did not run.
func (w *WorkloadResult) Ratio(engine string) (ratio float64, ok bool) {
	a, e := w.Run(EngineAqlstore), w.Run(engine)
	if a == nil || e == nil || a.P50MS <= 0 {
		return 0, false
	}
	return e.P50MS / a.P50MS, true
}
