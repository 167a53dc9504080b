package bench

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestRunSmall is the suite's short version: every workload on every
// engine over a small corpus, each answer checked against the expected
// count and aqlstore's. PostgreSQL is skipped with a message when no
// server is installed.
func TestRunSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a corpus into every engine")
	}
	cfg := Config{Docs: 10000, Seed: 1, WorkDir: t.TempDir(),
		Settings: Settings{Warmup: 0, MinReps: 1, MaxReps: 1, BatchSize: 500}}
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range res.Skipped {
		t.Logf("skipped %s: %s", s.Engine, s.Reason)
	}
	engines := map[string]bool{}
	for _, e := range res.Engines {
		engines[e.Engine] = true
		if e.IngestPerSec <= 0 || e.DiskBytes <= 0 {
			t.Errorf("%s: ingest %v docs/s, %d bytes on disk", e.Engine, e.IngestPerSec, e.DiskBytes)
		}
	}
	for _, want := range []string{EngineAqlstore, EngineAqlstoreScan, EngineSQLite, EngineSQLiteIndexed, EngineBleve, EngineDuckDB} {
		if !engines[want] {
			t.Errorf("engine %s did not run", want)
		}
	}
	if len(res.Workloads) != len(Workloads(1)) {
		t.Fatalf("%d workloads measured, want %d", len(res.Workloads), len(Workloads(1)))
	}
	for _, w := range res.Workloads {
		if w.Want == 0 {
			t.Errorf("%s: no results at 10,000 documents: the workload checks nothing", w.Name)
		}
		if len(w.Runs) < 3 {
			t.Errorf("%s: %d engines ran", w.Name, len(w.Runs))
		}
		// bleve answers every workload but the descendant one, and says why
		// it skips that; DuckDB answers all.
		for _, e := range []string{EngineBleve, EngineDuckDB} {
			skipped := slices.IndexFunc(w.Skipped, func(s Skipped) bool { return s.Engine == e }) >= 0
			if want := e == EngineBleve && w.Group == "descendant"; skipped != want || (!skipped && w.Run(e) == nil) {
				t.Errorf("%s on %s: skipped %v, want %v (%+v)", w.Name, e, skipped, want, w.Skipped)
			}
		}
	}
	if res.PhysicalScanMS <= 0 {
		t.Errorf("physical scan %v ms", res.PhysicalScanMS)
	}
}

// TestMismatchFailsTheRun gives SQLite a condition that answers another
// question: the run must fail naming the workload and show the ids.
func TestMismatchFailsTheRun(t *testing.T) {
	ctx := context.Background()
	a, err := newAqlstore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	sq, err := newSQLite(t.TempDir(), false)
	if err != nil {
		t.Fatal(err)
	}
	defer sq.Close()
	src := &Source{Seed: 1, N: 2000}
	for _, b := range []Backend{a, sq} {
		if _, err := b.Load(ctx, src, 1000, func(int) {}); err != nil {
			t.Fatal(err)
		}
	}
	w := Workloads(1)[1] // eq_0.1pct
	wrong := *w
	wrong.SQLite = sqliteCategory("sel_1pct")
	cfg := Config{Docs: src.N, Settings: Settings{MinReps: 1, MaxReps: 1}, Progress: nopProgress{}}
	_, err = cfg.measure(ctx, &wrong, []Engine{a.Engines()[0], sq})
	if !errors.Is(err, ErrMismatch) || !strings.Contains(err.Error(), w.Name) || !strings.Contains(err.Error(), "sqlite") {
		t.Fatalf("err = %v, want a mismatch naming %s and sqlite", err, w.Name)
	}
	// Same count, other ids: the diff lists them.
	got := diff([]string{"a", "b", "c"}, []string{"a", "x", "c"})
	if !strings.Contains(got, `result 1: want "b", got "x"`) {
		t.Errorf("diff = %q", got)
	}
	if diff([]string{"a"}, []string{"a"}) != "" {
		t.Error("equal answers reported as different")
	}
}

// TestLargeCorpusNeedsFlag: above 1M manifests the run refuses unless
// told, and says how much disk it would take.
func TestLargeCorpusNeedsFlag(t *testing.T) {
	cfg := Config{Docs: 10_000_000, WorkDir: t.TempDir(), Settings: DefaultSettings()}
	if err := cfg.check(); err == nil || !strings.Contains(err.Error(), "--large") {
		t.Fatalf("check = %v, want a refusal naming --large", err)
	}
	cfg.AllowLarge = true
	if err := cfg.check(); err != nil && !strings.Contains(err.Error(), "free") {
		t.Fatalf("check = %v", err)
	}
}

// TestPostgresMissingIsSkipped: with no server to be found and installing
// not allowed, the run goes on without PostgreSQL and says why.
func TestPostgresMissingIsSkipped(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // no pg_config, no initdb
	saved := postgresBinGlob
	postgresBinGlob = filepath.Join(t.TempDir(), "*", "bin")
	defer func() { postgresBinGlob = saved }()
	var log strings.Builder
	cfg := Config{Docs: 1000, Seed: 1, WorkDir: t.TempDir(), Engines: []string{EnginePostgres},
		Workloads: []string{"eq_10pct"}, Log: &log, Settings: Settings{MinReps: 1, MaxReps: 1, BatchSize: 1000}}
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Skipped) != 1 || res.Skipped[0].Engine != EnginePostgres ||
		!strings.Contains(res.Skipped[0].Reason, "no PostgreSQL server found") {
		t.Fatalf("skipped = %+v, want postgres-gin with the reason", res.Skipped)
	}
	if !strings.Contains(log.String(), "skipping postgres-gin: no PostgreSQL server found") {
		t.Errorf("log = %q, want the skip said", log.String())
	}
	for _, w := range res.Workloads {
		if w.Run(EnginePostgres) != nil {
			t.Errorf("%s: postgres-gin measured though skipped", w.Name)
		}
	}
}

// TestPeerMismatchFailsTheRun: a bleve query or a DuckDB condition that
// answers another question fails the run as a SQL one does.
func TestPeerMismatchFailsTheRun(t *testing.T) {
	ctx := context.Background()
	a, err := newAqlstore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	bl, err := newBleve(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer bl.Close()
	dk, err := newDuckDB(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer dk.Close()
	src := &Source{Seed: 1, N: 2000}
	for _, b := range []Backend{a, bl, dk} {
		if _, err := b.Load(ctx, src, 1000, func(int) {}); err != nil {
			t.Fatalf("%s: %v", b.Name(), err)
		}
	}
	w := Workloads(1)[2] // eq_1pct
	cfg := Config{Docs: src.N, Settings: Settings{MinReps: 1, MaxReps: 1}, Progress: nopProgress{}}
	if _, err := cfg.measure(ctx, w, []Engine{a.Engines()[0], bl, dk}); err != nil {
		t.Fatalf("the right questions: %v", err)
	}
	wrongBleve, wrongDuck := *w, *w
	wrongBleve.Bleve = bleveTerm("categories", "sel_10pct")
	wrongDuck.DuckDB = duckCategory("sel_10pct")
	for _, c := range []struct {
		w *Workload
		e Engine
	}{{&wrongBleve, bl}, {&wrongDuck, dk}} {
		_, err := cfg.measure(ctx, c.w, []Engine{a.Engines()[0], c.e})
		if !errors.Is(err, ErrMismatch) || !strings.Contains(err.Error(), c.e.Name()) {
			t.Errorf("err = %v, want a mismatch naming %s", err, c.e.Name())
		}
	}
}

// TestPeerThatCannotOpenIsSkipped: bleve or DuckDB failing to open its
// files is a skip with the reason, not a failed run.
func TestPeerThatCannotOpenIsSkipped(t *testing.T) {
	work := t.TempDir()
	for _, name := range []string{EngineBleve, EngineDuckDB} {
		if err := os.WriteFile(filepath.Join(work, name), nil, 0o644); err != nil { // not a directory
			t.Fatal(err)
		}
	}
	var log strings.Builder
	cfg := Config{Docs: 500, Seed: 1, WorkDir: work, Engines: []string{EngineBleve, EngineDuckDB},
		Workloads: []string{"eq_10pct"}, Log: &log, Settings: Settings{MinReps: 1, MaxReps: 1, BatchSize: 500}, Keep: true}
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Skipped) != 2 || res.Skipped[0].Engine != EngineBleve || res.Skipped[1].Engine != EngineDuckDB {
		t.Fatalf("skipped = %+v, want bleve and duckdb", res.Skipped)
	}
	if !strings.Contains(log.String(), "skipping bleve") || !strings.Contains(log.String(), "skipping duckdb") {
		t.Errorf("log = %q", log.String())
	}
}
