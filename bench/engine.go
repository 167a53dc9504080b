package bench

import (
	"context"
	"time"
)

// The engine names, as reports show them.
const (
	EngineAqlstore      = "aqlstore"       // the planner over the path indexes
	EngineAqlstoreScan  = "aqlstore-scan"  // the same store, every document evaluated
	EngineSQLite        = "sqlite"         // JSON text, no index on the queried paths
	EngineSQLiteIndexed = "sqlite-indexed" // plus expression indexes
	EnginePostgres      = "postgres-gin"   // jsonb, GIN jsonb_path_ops plus btree expression indexes
	EngineBleve         = "bleve"          // an inverted index over a static mapping of the queried paths
	EngineDuckDB        = "duckdb"         // columnar: a JSON column plus extracted scalar columns
)

// Backend is a database the corpus is loaded into once. It offers one or
// more engines: ways of asking it questions.
type Backend interface {
	Name() string
	// Version is the database's own version string.
	Version() string
	// Load stores every document of src durably, in transactions of
	// batch documents, calling progress with the number stored so far.
	Load(ctx context.Context, src *Source, batch int, progress func(done int)) (LoadStats, error)
	// Engines are the ways of querying it, in report order.
	Engines() []Engine
	// DiskBytes is what the backend's files take on disk now.
	DiskBytes() (int64, error)
	// Reopen closes and opens the database again and says how long
	// opening took; a negative duration means reopening is not meaningful
	// (a server keeps running).
	Reopen(ctx context.Context) (time.Duration, error)
	// PeakRSS is the peak resident memory of processes other than this
	// one that the backend runs (a server), 0 when it runs in-process.
	PeakRSS() int64
	Close() error
}

// LoadStats is how long a load took.
type LoadStats struct {
	Load  time.Duration // storing the documents, durably
	Index time.Duration // building indexes after the documents were stored
}

// Engine answers workloads.
type Engine interface {
	Name() string
	// Indexes says in words what the engine indexes.
	Indexes() string
	// Query answers w: the candidate ids in candidate-id order (every page
	// of a paged workload, concatenated).
	Query(ctx context.Context, w *Workload) ([]string, error)
}

// skipper is an engine that cannot express some workloads exactly: Skip
// says why it cannot answer w ("" when it can). Such a workload is
// reported as skipped for the engine, never answered approximately.
type skipper interface {
	Skip(w *Workload) string
}

// schemaer is a backend whose mapping or DDL the report prints.
type schemaer interface {
	Schema() string
}
