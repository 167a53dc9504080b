package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// postgresIndexes are what a competent PostgreSQL user adds for these
// queries: a GIN index over the whole document for containment (@>) and
// jsonpath (@?), and btree expression indexes on the scalar paths that
// are compared by order or equality.
var postgresIndexes = []string{
	`CREATE INDEX docs_body_gin ON docs USING gin (body jsonb_path_ops)`,
	`CREATE INDEX docs_risk_class ON docs ((body->>'risk_class'))`,
	`CREATE INDEX docs_last_attested_at ON docs (((body->'conformance'->>'last_attested_at')))`,
}

// postgresBackend is a PostgreSQL cluster of its own, created in a
// temporary directory and listening on a free loopback port, stopped and
// removed by Close. The documents are jsonb in one table.
type postgresBackend struct {
	bin     string // the directory holding initdb, pg_ctl, postgres
	dir     string // the cluster's directory: data/, the socket, the log
	port    int
	asUser  string // run the server as this user (root may not run it)
	conn    *pgx.Conn
	version string
}

// postgresBinGlob is where Debian installs each major version's server
// programs.
var postgresBinGlob = "/usr/lib/postgresql/*/bin"

// FindPostgres returns the directory of PostgreSQL's server programs, or
// an error saying what was looked for.
func FindPostgres() (string, error) {
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		if dir := strings.TrimSpace(string(out)); hasInitdb(dir) {
			return dir, nil
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Dir(real), nil
		}
	}
	dirs, _ := filepath.Glob(postgresBinGlob)
	sort.Sort(sort.Reverse(sort.StringSlice(dirs))) // the newest major version first
	for _, d := range dirs {
		if hasInitdb(d) {
			return d, nil
		}
	}
	return "", errors.New("no PostgreSQL server found (looked for pg_config, initdb on PATH and /usr/lib/postgresql/*/bin)")
}

func hasInitdb(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "initdb"))
	return err == nil
}

// InstallPostgres installs Debian's PostgreSQL with apt-get, which needs
// root. It reports what it runs on log.
func InstallPostgres(ctx context.Context, log func(string)) error {
	if os.Geteuid() != 0 {
		return errors.New("installing PostgreSQL needs root (run: sudo apt-get install postgresql)")
	}
	if _, err := exec.LookPath("apt-get"); err != nil {
		return errors.New("no apt-get on this machine; install PostgreSQL with the system's package manager")
	}
	for _, args := range [][]string{{"update"}, {"install", "-y", "--no-install-recommends", "postgresql"}} {
		log("apt-get " + strings.Join(args, " "))
		cmd := exec.CommandContext(ctx, "apt-get", args...)
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("apt-get %s: %w\n%s", args[0], err, tail(out, 2000))
		}
	}
	return nil
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// newPostgres creates and starts a cluster with the programs in bin.
// PostgreSQL refuses to run as root, so under root the cluster belongs to
// the postgres user the Debian package creates.
func newPostgres(ctx context.Context, bin string) (*postgresBackend, error) {
	dir, err := os.MkdirTemp("", "aqlstore-bench-pg-*")
	if err != nil {
		return nil, err
	}
	b := &postgresBackend{bin: bin, dir: dir}
	if err := b.start(ctx); err != nil {
		b.stop()
		return nil, err
	}
	return b, nil
}

func (b *postgresBackend) start(ctx context.Context) error {
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return errors.New("running as root and there is no postgres user to run the server as")
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chmod(b.dir, 0o755); err != nil {
			return err
		}
		if err := os.Chown(b.dir, uid, gid); err != nil {
			return err
		}
		b.asUser = "postgres"
	}
	data := filepath.Join(b.dir, "data")
	if err := b.run(ctx, "initdb", "-D", data, "-U", "bench", "--auth=trust", "--locale=C", "--encoding=UTF8"); err != nil {
		return err
	}
	port, err := freePort()
	if err != nil {
		return err
	}
	b.port = port
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c shared_buffers=256MB -c max_wal_size=4GB -c work_mem=64MB", port, b.dir)
	if err := b.run(ctx, "pg_ctl", "-D", data, "-l", filepath.Join(b.dir, "server.log"), "-w", "-t", "60", "-o", opts, "start"); err != nil {
		return err
	}
	b.conn, err = pgx.Connect(ctx, fmt.Sprintf("postgres://bench@127.0.0.1:%d/postgres?sslmode=disable", port))
	if err != nil {
		return fmt.Errorf("postgres: connect: %w", err)
	}
	if err := b.conn.QueryRow(ctx, `SHOW server_version`).Scan(&b.version); err != nil {
		return err
	}
	_, err = b.conn.Exec(ctx, `CREATE TABLE docs (cid text COLLATE "C" PRIMARY KEY, body jsonb NOT NULL)`)
	return err
}

// run runs one of the server's programs, as b.asUser when set.
func (b *postgresBackend) run(ctx context.Context, prog string, args ...string) error {
	path := filepath.Join(b.bin, prog)
	var cmd *exec.Cmd
	if b.asUser != "" {
		cmd = exec.CommandContext(ctx, "runuser", append([]string{"-u", b.asUser, "--", path}, args...)...)
	} else {
		cmd = exec.CommandContext(ctx, path, args...)
	}
	cmd.Dir = b.dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("postgres: %s: %w\n%s", prog, err, tail(out, 2000))
	}
	return nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func (b *postgresBackend) Name() string    { return EnginePostgres }
func (b *postgresBackend) Version() string { return "PostgreSQL " + b.version }

func (b *postgresBackend) Load(ctx context.Context, src *Source, batch int, progress func(int)) (LoadStats, error) {
	start := time.Now()
	rows := make([][]any, 0, batch)
	flush := func(done int) error {
		if len(rows) == 0 {
			return nil
		}
		// One COPY is one transaction, committed durably.
		if _, err := b.conn.CopyFrom(ctx, pgx.Identifier{"docs"}, []string{"cid", "body"}, pgx.CopyFromRows(rows)); err != nil {
			return fmt.Errorf("postgres: copy: %w", err)
		}
		rows = rows[:0]
		progress(done)
		return nil
	}
	err := src.Each(ctx, func(i int, cid string, body []byte) error {
		rows = append(rows, []any{cid, json.RawMessage(bytes.Clone(body))})
		if len(rows) == batch {
			return flush(i + 1)
		}
		return nil
	})
	if err == nil {
		err = flush(src.N)
	}
	st := LoadStats{Load: time.Since(start)}
	if err != nil {
		return st, err
	}
	start = time.Now()
	for _, ddl := range append(postgresIndexes, `VACUUM ANALYZE docs`) {
		if _, err := b.conn.Exec(ctx, ddl); err != nil {
			return st, fmt.Errorf("postgres: %s: %w", ddl, err)
		}
	}
	st.Index = time.Since(start)
	return st, nil
}

func (b *postgresBackend) Engines() []Engine { return []Engine{b} }

func (b *postgresBackend) Indexes() string {
	return "the cid key, GIN (jsonb_path_ops) over the whole document, btree expression indexes on /risk_class and /conformance/last_attested_at"
}

func (b *postgresBackend) DiskBytes() (int64, error) {
	var n int64
	err := b.conn.QueryRow(context.Background(), `SELECT pg_total_relation_size('docs')`).Scan(&n)
	return n, err
}

func (b *postgresBackend) Reopen(context.Context) (time.Duration, error) { return -1, nil }

// PeakRSS sums the peak resident memory of the server's processes.
func (b *postgresBackend) PeakRSS() int64 {
	pidFile, err := os.ReadFile(filepath.Join(b.dir, "data", "postmaster.pid"))
	if err != nil {
		return 0
	}
	master := strings.SplitN(string(pidFile), "\n", 2)[0]
	var total int64
	procs, _ := filepath.Glob("/proc/[0-9]*/status")
	for _, p := range procs {
		st, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		pid := filepath.Base(filepath.Dir(p))
		if pid == master || statusField(st, "PPid") == master {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(statusField(st, "VmHWM"), " kB"), 10, 64)
			total += kb << 10
		}
	}
	return total
}

// statusField is the value of a "Name:\tvalue" line of /proc/PID/status.
func statusField(status []byte, name string) string {
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, name+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func (b *postgresBackend) Close() error { return b.stop() }

func (b *postgresBackend) stop() error {
	if b.conn != nil {
		b.conn.Close(context.Background())
	}
	var err error
	if b.port != 0 {
		err = b.run(context.Background(), "pg_ctl", "-D", filepath.Join(b.dir, "data"), "-m", "fast", "-w", "stop")
	}
	if rmErr := os.RemoveAll(b.dir); err == nil {
		err = rmErr
	}
	return err
}

func (b *postgresBackend) Query(ctx context.Context, w *Workload) ([]string, error) {
	return sqlQuery(ctx, w, w.Postgres, "$1", func(ctx context.Context, q string, args ...any) (rowScanner, error) {
		rows, err := b.conn.Query(ctx, q, args...)
		if err != nil {
			return nil, err
		}
		return rows, nil
	})
}
