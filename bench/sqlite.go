package bench

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/mattn/go-sqlite3"
)

// sqliteDriver is go-sqlite3 with REGEXP defined (SQLite declares the
// operator but leaves its function to the application), backed by Go's
// regexp with a compiled-pattern cache, as a user would add it.
const sqliteDriver = "sqlite3-aqlstore-bench"

var registerSQLite sync.Once

func sqliteRegexp() func(pattern, s string) (bool, error) {
	var mu sync.Mutex
	cache := map[string]*regexp.Regexp{}
	return func(pattern, s string) (bool, error) {
		mu.Lock()
		re, ok := cache[pattern]
		if !ok {
			var err error
			if re, err = regexp.Compile(pattern); err != nil {
				mu.Unlock()
				return false, err
			}
			cache[pattern] = re
		}
		mu.Unlock()
		return re.MatchString(s), nil
	}
}

// sqliteIndexes are the expression indexes a competent user adds for the
// queried scalar paths. SQLite cannot index the elements of a JSON array
// with an expression index, so the array paths have none.
var sqliteIndexes = []string{
	`CREATE INDEX docs_risk_class ON docs (json_extract(body, '$.risk_class'))`,
	`CREATE INDEX docs_last_attested_at ON docs (json_extract(body, '$.conformance.last_attested_at'))`,
	`CREATE INDEX docs_oap_version ON docs (json_extract(body, '$.oap_version'))`,
}

// sqliteBackend keeps the corpus as JSON text in one table, in WAL mode
// with synchronous=FULL (a committed transaction is durable), a 256 MiB
// page cache and memory-mapped reads.
type sqliteBackend struct {
	path    string
	indexed bool
	db      *sql.DB
}

func newSQLite(dir string, indexed bool) (*sqliteBackend, error) {
	registerSQLite.Do(func() {
		sql.Register(sqliteDriver, &sqlite3.SQLiteDriver{ConnectHook: func(c *sqlite3.SQLiteConn) error {
			return c.RegisterFunc("regexp", sqliteRegexp(), true)
		}})
	})
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	b := &sqliteBackend{path: filepath.Join(dir, "docs.db"), indexed: indexed}
	if err := b.open(); err != nil {
		return nil, err
	}
	_, err := b.db.Exec(`CREATE TABLE IF NOT EXISTS docs (id INTEGER PRIMARY KEY, cid TEXT NOT NULL UNIQUE, body TEXT NOT NULL)`)
	if err != nil {
		b.db.Close()
		return nil, fmt.Errorf("sqlite: create table: %w", err)
	}
	return b, nil
}

func (b *sqliteBackend) open() error {
	dsn := "file:" + b.path + "?_journal_mode=WAL&_synchronous=FULL&_cache_size=-262144"
	db, err := sql.Open(sqliteDriver, dsn)
	if err != nil {
		return err
	}
	db.SetMaxOpenConns(1) // one connection: queries run one at a time
	if _, err := db.Exec(`PRAGMA mmap_size = 4294967296`); err != nil {
		db.Close()
		return fmt.Errorf("sqlite: %w", err)
	}
	b.db = db
	return nil
}

func (b *sqliteBackend) Name() string {
	if b.indexed {
		return EngineSQLiteIndexed
	}
	return EngineSQLite
}

func (b *sqliteBackend) Version() string {
	v, _, _ := sqlite3.Version()
	return "SQLite " + v + " (github.com/mattn/go-sqlite3)"
}

func (b *sqliteBackend) Load(ctx context.Context, src *Source, batch int, progress func(int)) (LoadStats, error) {
	start := time.Now()
	err := insertRows(ctx, b.db, "sqlite", src, batch, progress)
	st := LoadStats{Load: time.Since(start)}
	if err != nil {
		return st, err
	}
	start = time.Now()
	if b.indexed {
		for _, ddl := range sqliteIndexes {
			if _, err := b.db.ExecContext(ctx, ddl); err != nil {
				return st, fmt.Errorf("sqlite: %s: %w", ddl, err)
			}
		}
	}
	if _, err := b.db.ExecContext(ctx, `ANALYZE`); err != nil {
		return st, fmt.Errorf("sqlite: analyze: %w", err)
	}
	st.Index = time.Since(start)
	return st, nil
}

func (b *sqliteBackend) Engines() []Engine { return []Engine{b} }

func (b *sqliteBackend) Indexes() string {
	if b.indexed {
		return "the cid key, plus expression indexes on the queried scalar paths (/risk_class, /conformance/last_attested_at, /oap_version); array elements cannot be indexed"
	}
	return "the cid key only"
}

func (b *sqliteBackend) DiskBytes() (int64, error) {
	if _, err := b.db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		return 0, err
	}
	return dirBytes(filepath.Dir(b.path))
}

func (b *sqliteBackend) Reopen(ctx context.Context) (time.Duration, error) {
	return reopenSQL(ctx, b.db, b.open, func() *sql.DB { return b.db })
}

func (b *sqliteBackend) PeakRSS() int64 { return 0 }
func (b *sqliteBackend) Close() error   { return b.db.Close() }

func (b *sqliteBackend) Query(ctx context.Context, w *Workload) ([]string, error) {
	return sqlQuery(ctx, w, w.SQLite, "?", func(ctx context.Context, q string, args ...any) (rowScanner, error) {
		rows, err := b.db.QueryContext(ctx, q, args...)
		if err != nil {
			return nil, err
		}
		return sqlRows{rows}, nil
	})
}

// rowScanner is what sqlQuery reads of database/sql's and pgx's rows.
type rowScanner interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close()
}

// sqlRows adapts *sql.Rows, whose Close returns an error.
type sqlRows struct{ *sql.Rows }

func (r sqlRows) Close() { r.Rows.Close() }

// sqlQuery runs a workload's condition in candidate-id order: every
// result at once, the first page, or every page by keyset pagination
// (cid > the last one seen), which is how a SQL user pages. placeholder
// is the dialect's first parameter ("?" or "$1").
func sqlQuery(ctx context.Context, w *Workload, cond, placeholder string,
	query func(ctx context.Context, q string, args ...any) (rowScanner, error)) ([]string, error) {
	return sqlQueryBody(ctx, w, cond, placeholder, "body", query)
}

// sqlQueryBody is sqlQuery returning the document as the expression body
// for whole-document projections.
func sqlQueryBody(ctx context.Context, w *Workload, cond, placeholder, body string,
	query func(ctx context.Context, q string, args ...any) (rowScanner, error)) ([]string, error) {
	cols := "cid"
	if w.WholeDocument {
		cols = "cid, " + body
	}
	if w.PageSize == 0 {
		return sqlPage(ctx, query, fmt.Sprintf(`SELECT %s FROM docs WHERE %s ORDER BY cid`, cols, cond), w.WholeDocument, nil)
	}
	first := fmt.Sprintf(`SELECT %s FROM docs WHERE %s ORDER BY cid LIMIT %d`, cols, cond, w.PageSize)
	next := fmt.Sprintf(`SELECT %s FROM docs WHERE cid > %s AND (%s) ORDER BY cid LIMIT %d`, cols, placeholder, cond, w.PageSize)
	ids, err := sqlPage(ctx, query, first, w.WholeDocument, nil)
	for err == nil && !w.FirstPage && len(ids) > 0 && len(ids)%w.PageSize == 0 {
		var page []string
		page, err = sqlPage(ctx, query, next, w.WholeDocument, []any{ids[len(ids)-1]})
		if len(page) == 0 {
			break
		}
		ids = append(ids, page...)
	}
	return ids, err
}

func sqlPage(ctx context.Context, query func(ctx context.Context, q string, args ...any) (rowScanner, error),
	q string, whole bool, args []any) ([]string, error) {
	rows, err := query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", strings.Join(strings.Fields(q), " "), err)
	}
	defer rows.Close()
	var ids []string
	var body []byte
	for rows.Next() {
		var id string
		dest := []any{&id}
		if whole {
			dest = append(dest, &body)
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// insertRows loads the corpus into a SQL engine's docs (cid, body) table,
// one INSERT a document, committing every batch documents and calling
// progress after each commit. A failure rolls back the batch it was in;
// earlier batches stay.
func insertRows(ctx context.Context, db *sql.DB, engine string, src *Source, batch int, progress func(int)) error {
	var tx *sql.Tx
	var stmt *sql.Stmt
	commit := func(done int) error {
		if tx == nil {
			return nil
		}
		err := tx.Commit()
		tx, stmt = nil, nil
		progress(done)
		return err
	}
	err := src.Each(ctx, func(i int, cid string, body []byte) error {
		if tx == nil {
			var err error
			if tx, err = db.BeginTx(ctx, nil); err != nil {
				return err
			}
			if stmt, err = tx.Prepare(`INSERT INTO docs (cid, body) VALUES (?, ?)`); err != nil {
				return err
			}
		}
		if _, err := stmt.Exec(cid, string(body)); err != nil {
			return fmt.Errorf("%s: insert manifest %d: %w", engine, i, err)
		}
		if (i+1)%batch == 0 {
			return commit(i + 1)
		}
		return nil
	})
	if err == nil {
		return commit(src.N)
	}
	if tx != nil {
		tx.Rollback()
	}
	return err
}

// reopenSQL closes a SQL engine's database and times open until the
// reopened one (current) reads a first row of docs.
func reopenSQL(ctx context.Context, db *sql.DB, open func() error, current func() *sql.DB) (time.Duration, error) {
	if err := db.Close(); err != nil {
		return 0, err
	}
	start := time.Now()
	if err := open(); err != nil {
		return 0, err
	}
	var one int
	if err := current().QueryRowContext(ctx, `SELECT 1 FROM docs LIMIT 1`).Scan(&one); err != nil {
		return 0, err
	}
	return time.Since(start), nil
}
