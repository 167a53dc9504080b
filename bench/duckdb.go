package bench

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	_ "github.com/duckdb/duckdb-go/v2" // the "duckdb" database/sql driver, with its bundled library
)

// duckdbTable is the table the corpus is loaded into: the document as
// JSON, keyed by candidate id.
const duckdbTable = `CREATE TABLE docs (cid VARCHAR PRIMARY KEY, body JSON NOT NULL)`

// duckdbColumns are the columns a DuckDB user extracts from the JSON for
// the queried scalar paths, filled after the load. The array paths stay
// in the JSON and are read with json_extract_string and unnest.
var duckdbColumns = []string{
	`ALTER TABLE docs ADD COLUMN oap_version VARCHAR`,
	`ALTER TABLE docs ADD COLUMN risk_class VARCHAR`,
	`ALTER TABLE docs ADD COLUMN last_attested_at TIMESTAMPTZ`,
	`UPDATE docs SET oap_version = body->>'$.oap_version', risk_class = body->>'$.risk_class', ` +
		`last_attested_at = TRY_CAST(body->>'$.conformance.last_attested_at' AS TIMESTAMPTZ)`,
	`CHECKPOINT`,
}

// duckdbBackend keeps the corpus in a DuckDB database file, in
// transactions of the batch size (a commit is durable: DuckDB syncs its
// write-ahead log), with DuckDB's default settings otherwise.
type duckdbBackend struct {
	path     string
	db       *sql.DB
	settings string
}

func newDuckDB(dir string) (*duckdbBackend, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	b := &duckdbBackend{path: filepath.Join(dir, "docs.duckdb")}
	if err := b.open(); err != nil {
		return nil, err
	}
	if _, err := b.db.Exec(duckdbTable); err != nil {
		b.db.Close()
		return nil, fmt.Errorf("duckdb: create table: %w", err)
	}
	var threads, memory string
	if err := b.db.QueryRow(`SELECT current_setting('threads')::VARCHAR, current_setting('memory_limit')`).Scan(&threads, &memory); err != nil {
		b.db.Close()
		return nil, fmt.Errorf("duckdb: settings: %w", err)
	}
	b.settings = "threads " + threads + ", memory_limit " + memory
	return b, nil
}

func (b *duckdbBackend) open() error {
	db, err := sql.Open("duckdb", b.path)
	if err != nil {
		return fmt.Errorf("duckdb: open %s: %w", b.path, err)
	}
	db.SetMaxOpenConns(1) // one connection: queries run one at a time
	if err := db.Ping(); err != nil {
		db.Close()
		return fmt.Errorf("duckdb: open %s: %w", b.path, err)
	}
	b.db = db
	return nil
}

func (b *duckdbBackend) Name() string { return EngineDuckDB }

func (b *duckdbBackend) Version() string {
	var v string
	if err := b.db.QueryRow(`SELECT version()`).Scan(&v); err != nil {
		v = "unknown"
	}
	return "DuckDB " + v + " (github.com/duckdb/duckdb-go/v2 " + depVersion("github.com/duckdb/duckdb-go/v2") + ", " + b.settings + ")"
}

func (b *duckdbBackend) Schema() string {
	return duckdbTable + ";\n" + strings.Join(duckdbColumns, ";\n") + ";\n"
}

func (b *duckdbBackend) Load(ctx context.Context, src *Source, batch int, progress func(int)) (LoadStats, error) {
	start := time.Now()
	err := insertRows(ctx, b.db, "duckdb", src, batch, progress)
	st := LoadStats{Load: time.Since(start)}
	if err != nil {
		return st, err
	}
	start = time.Now()
	for _, ddl := range duckdbColumns {
		if _, err := b.db.ExecContext(ctx, ddl); err != nil {
			return st, fmt.Errorf("duckdb: %s: %w", ddl, err)
		}
	}
	st.Index = time.Since(start)
	return st, nil
}

func (b *duckdbBackend) Engines() []Engine { return []Engine{b} }

func (b *duckdbBackend) Indexes() string {
	return "the cid primary key (ART); extracted columns for /oap_version, /risk_class, /conformance/last_attested_at with their zone maps; arrays read from the JSON"
}

func (b *duckdbBackend) DiskBytes() (int64, error) {
	if _, err := b.db.Exec(`CHECKPOINT`); err != nil {
		return 0, err
	}
	return dirBytes(filepath.Dir(b.path))
}

func (b *duckdbBackend) Reopen(ctx context.Context) (time.Duration, error) {
	return reopenSQL(ctx, b.db, b.open, func() *sql.DB { return b.db })
}

func (b *duckdbBackend) PeakRSS() int64 { return 0 }
func (b *duckdbBackend) Close() error   { return b.db.Close() }

func (b *duckdbBackend) Skip(w *Workload) string {
	if w.DuckDB == "" {
		return w.DuckDBSkip
	}
	return ""
}

func (b *duckdbBackend) Query(ctx context.Context, w *Workload) ([]string, error) {
	if w.DuckDB == "" {
		return nil, fmt.Errorf("duckdb cannot answer %s: %s", w.Name, w.DuckDBSkip)
	}
	// The driver decodes a JSON value into Go maps; the document's text
	// is what the other engines return.
	return sqlQueryBody(ctx, w, w.DuckDB, "?", "CAST(body AS VARCHAR)", func(ctx context.Context, q string, args ...any) (rowScanner, error) {
		rows, err := b.db.QueryContext(ctx, q, args...)
		if err != nil {
			return nil, err
		}
		return sqlRows{rows}, nil
	})
}

// depVersion is the version of module path this program was built with.
func depVersion(path string) string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, d := range info.Deps {
			if d.Path == path {
				if d.Replace != nil {
					return d.Replace.Version
				}
				return d.Version
			}
		}
	}
	return "(version unknown)"
}
