package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Config is what Run measures and how.
type Config struct {
	Docs int    // manifests in the corpus
	Seed uint64 // the corpus seed
	// WorkDir holds every backend's files during the run; Run removes
	// what it created there unless Keep is set.
	WorkDir string
	Keep    bool
	// Engines limits the run to these engine names (nil: every engine).
	// aqlstore always runs: it is what the others are compared with.
	Engines []string
	// Workloads limits the run to these workload names (nil: all).
	Workloads []string
	// InstallPostgres lets Run install Debian's PostgreSQL with apt-get
	// when no server is found; otherwise PostgreSQL is skipped.
	InstallPostgres bool
	// AllowLarge permits corpora above 1M manifests.
	AllowLarge bool
	Settings   Settings
	Command    string // recorded in the result
	Progress   Progress
	Log        io.Writer // messages: skipped engines, phases
}

// Progress shows long work: Begin a step of total units, Advance to the
// number done, End it.
type Progress interface {
	Begin(step string, total int)
	Advance(done int)
	End()
}

// DefaultSettings are the repetition rules of `make bench`.
func DefaultSettings() Settings {
	return Settings{Warmup: 1, MinReps: 3, MaxReps: 200, BudgetSecs: 2, BatchSize: 1000}
}

// bytesPerDoc is a generous estimate of the disk every backend together
// needs per manifest (aqlstore about 1.4 KB, each SQLite copy 3.5 KB,
// PostgreSQL 4 KB), checked against the free space before a load.
const bytesPerDoc = 14 << 10

// ErrMismatch is returned when an engine's answer differs from the
// expected count or from aqlstore's answer.
var ErrMismatch = errors.New("answers differ")

// Run loads the corpus into every backend, checks every engine's answer
// to every workload, and times them.
func Run(ctx context.Context, cfg Config) (res *Result, err error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	started := time.Now()
	res = &Result{Command: cfg.Command, StartedAt: started.UTC(), Docs: cfg.Docs, Seed: cfg.Seed,
		Machine: machineInfo(), Settings: cfg.Settings, Versions: map[string]string{}}
	backends, err := cfg.openBackends(ctx, res)
	defer func() {
		for _, b := range backends {
			if cerr := b.Close(); err == nil && cerr != nil {
				err = fmt.Errorf("close %s: %w", b.Name(), cerr)
			}
		}
		if !cfg.Keep {
			os.RemoveAll(cfg.WorkDir)
		}
	}()
	if err != nil {
		return nil, err
	}
	var engines []Engine
	src := &Source{Seed: cfg.Seed, N: cfg.Docs}
	for _, b := range backends {
		res.Versions[b.Name()] = b.Version()
		if s, ok := b.(schemaer); ok {
			if res.Schemas == nil {
				res.Schemas = map[string]string{}
			}
			res.Schemas[b.Name()] = s.Schema()
		}
		ers, err := cfg.load(ctx, b, src)
		if err != nil {
			return nil, fmt.Errorf("load %s: %w", b.Name(), err)
		}
		res.Engines = append(res.Engines, ers...)
		for _, e := range b.Engines() {
			if cfg.wants(e.Name()) {
				engines = append(engines, e)
			}
		}
	}
	a := backends[0].(*aqlstoreBackend)
	if _, _, err := a.PhysicalScan(ctx); err != nil { // warm the caches as the scans find them
		return nil, err
	}
	scan, n, err := a.PhysicalScan(ctx)
	if err != nil {
		return nil, err
	}
	if n != cfg.Docs {
		return nil, fmt.Errorf("the aqlstore store holds %d manifests, want %d", n, cfg.Docs)
	}
	res.PhysicalScanMS = ms(scan)
	for _, w := range cfg.workloads() {
		wr, err := cfg.measure(ctx, w, engines)
		if err != nil {
			return nil, err
		}
		res.Workloads = append(res.Workloads, *wr)
	}
	res.Seconds = time.Since(started).Seconds()
	return res, nil
}

func (cfg *Config) check() error {
	switch {
	case cfg.Docs <= 0:
		return fmt.Errorf("the corpus needs at least one manifest (docs = %d)", cfg.Docs)
	case cfg.Docs > 1_000_000 && !cfg.AllowLarge:
		return fmt.Errorf("%d manifests is above 1,000,000: pass --large to confirm (about %s of disk)", cfg.Docs, FormatBytes(int64(cfg.Docs)*bytesPerDoc))
	case cfg.WorkDir == "":
		return errors.New("no work directory")
	case cfg.Settings.BatchSize <= 0 || cfg.Settings.MinReps <= 0 || cfg.Settings.MaxReps < cfg.Settings.MinReps:
		return fmt.Errorf("bad settings %+v: batch size and min reps must be positive, max reps at least min reps", cfg.Settings)
	}
	if cfg.Progress == nil {
		cfg.Progress = nopProgress{}
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	if err := os.MkdirAll(cfg.WorkDir, 0o755); err != nil {
		return err
	}
	var fs syscall.Statfs_t
	if err := syscall.Statfs(cfg.WorkDir, &fs); err == nil {
		free, need := int64(fs.Bavail)*int64(fs.Bsize), int64(cfg.Docs)*bytesPerDoc
		if free < need {
			return fmt.Errorf("%s has %s free; %d manifests in every engine need about %s: free some space or pass --work on a larger disk",
				cfg.WorkDir, FormatBytes(free), cfg.Docs, FormatBytes(need))
		}
	}
	all := Workloads(cfg.Seed)
	for _, name := range cfg.Workloads {
		if !slices.ContainsFunc(all, func(w *Workload) bool { return w.Name == name }) {
			return fmt.Errorf("no workload %q (see `aqlbench bench --list`)", name)
		}
	}
	return nil
}

func (cfg *Config) wants(engine string) bool {
	return engine == EngineAqlstore || len(cfg.Engines) == 0 || slices.Contains(cfg.Engines, engine)
}

func (cfg *Config) workloads() []*Workload {
	var out []*Workload
	for _, w := range Workloads(cfg.Seed) {
		if len(cfg.Workloads) == 0 || slices.Contains(cfg.Workloads, w.Name) {
			out = append(out, w)
		}
	}
	return out
}

// openBackends opens the backends the engines need, aqlstore first.
// PostgreSQL missing (and not installable) is a skip, not a failure.
func (cfg *Config) openBackends(ctx context.Context, res *Result) ([]Backend, error) {
	a, err := newAqlstore(cfg.WorkDir + "/aqlstore")
	if err != nil {
		return nil, fmt.Errorf("aqlstore: %w", err)
	}
	backends := []Backend{a}
	for _, indexed := range []bool{false, true} {
		name := map[bool]string{false: EngineSQLite, true: EngineSQLiteIndexed}[indexed]
		if !cfg.wants(name) {
			continue
		}
		b, err := newSQLite(cfg.WorkDir+"/"+name, indexed)
		if err != nil {
			return backends, fmt.Errorf("%s: %w", name, err)
		}
		backends = append(backends, b)
	}
	for _, peer := range []struct {
		name string
		open func(dir string) (Backend, error)
	}{
		{EngineBleve, func(dir string) (Backend, error) { return newBleve(dir) }},
		{EngineDuckDB, func(dir string) (Backend, error) { return newDuckDB(dir) }},
	} {
		if !cfg.wants(peer.name) {
			continue
		}
		b, err := peer.open(cfg.WorkDir + "/" + peer.name)
		if err != nil {
			res.Skipped = append(res.Skipped, Skipped{peer.name, err.Error()})
			fmt.Fprintf(cfg.Log, "bench: skipping %s: it cannot load: %v\n", peer.name, err)
			continue
		}
		backends = append(backends, b)
	}
	if cfg.wants(EnginePostgres) {
		pg, reason := cfg.openPostgres(ctx)
		if pg != nil {
			backends = append(backends, pg)
		} else {
			res.Skipped = append(res.Skipped, Skipped{EnginePostgres, reason})
			fmt.Fprintf(cfg.Log, "bench: skipping %s: %s\n", EnginePostgres, reason)
		}
	}
	return backends, nil
}

func (cfg *Config) openPostgres(ctx context.Context) (*postgresBackend, string) {
	bin, err := FindPostgres()
	if err != nil && cfg.InstallPostgres {
		fmt.Fprintln(cfg.Log, "bench: no PostgreSQL server found; installing Debian's package")
		if ierr := InstallPostgres(ctx, func(s string) { fmt.Fprintln(cfg.Log, "bench:", s) }); ierr != nil {
			return nil, ierr.Error()
		}
		bin, err = FindPostgres()
	}
	if err != nil {
		return nil, err.Error()
	}
	pg, err := newPostgres(ctx, bin)
	if err != nil {
		return nil, err.Error()
	}
	return pg, ""
}

// load fills b and measures the load, the footprint and a reopen; every
// engine of b shares the figures.
func (cfg *Config) load(ctx context.Context, b Backend, src *Source) ([]EngineResult, error) {
	cfg.Progress.Begin("load "+b.Name(), src.N)
	before := resetPeakRSS()
	st, err := b.Load(ctx, src, cfg.Settings.BatchSize, cfg.Progress.Advance)
	cfg.Progress.End()
	if err != nil {
		return nil, err
	}
	peak := max(0, peakRSS()-before) + b.PeakRSS()
	disk, err := b.DiskBytes()
	if err != nil {
		return nil, err
	}
	open, err := b.Reopen(ctx)
	if err != nil {
		return nil, fmt.Errorf("reopen: %w", err)
	}
	openMS := -1.0
	if open >= 0 {
		openMS = ms(open)
	}
	secs := (st.Load + st.Index).Seconds()
	var out []EngineResult
	for _, e := range b.Engines() {
		if cfg.wants(e.Name()) {
			out = append(out, EngineResult{Engine: e.Name(), Indexes: e.Indexes(),
				LoadSeconds: st.Load.Seconds(), IndexSeconds: st.Index.Seconds(),
				IngestPerSec: float64(src.N) / secs, DiskBytes: disk, OpenMS: openMS, PeakRSSBytes: peak})
		}
	}
	fmt.Fprintf(cfg.Log, "bench: %s loaded %d manifests in %.1fs (+%.1fs indexes), %s on disk\n",
		b.Name(), src.N, st.Load.Seconds(), st.Index.Seconds(), FormatBytes(disk))
	return out, nil
}

// measure checks every engine's answer to w, then times it. An engine
// whose answer differs from the expected count or from aqlstore's fails
// the run with the difference.
func (cfg *Config) measure(ctx context.Context, w *Workload, engines []Engine) (*WorkloadResult, error) {
	want := w.Want(cfg.Docs)
	wr := &WorkloadResult{Name: w.Name, Group: w.Group, Description: w.Description,
		Selectivity: float64(w.Total(cfg.Docs)) / float64(cfg.Docs), Want: want, Pages: w.Pages(cfg.Docs),
		Constraints: w.Constraints, PageSize: w.PageSize, SQLite: w.SQLite, Postgres: w.Postgres,
		DuckDB: w.DuckDB, Bleve: bleveJSON(w)}
	var reference []string
	cfg.Progress.Begin(w.Name, len(engines))
	defer cfg.Progress.End()
	for k, e := range engines {
		if e.Name() == EngineAqlstoreScan && wr.Pages > 1 {
			continue // a full scan per page: not a way anyone pages
		}
		if s, ok := e.(skipper); ok {
			if reason := s.Skip(w); reason != "" {
				wr.Skipped = append(wr.Skipped, Skipped{e.Name(), reason})
				continue
			}
		}
		t0 := time.Now()
		ids, err := e.Query(ctx, w)
		first := time.Since(t0)
		if err != nil {
			return nil, fmt.Errorf("%s on %s: %w", w.Name, e.Name(), err)
		}
		if len(ids) != want {
			return nil, fmt.Errorf("%w: %s on %s returned %d results, want %d", ErrMismatch, w.Name, e.Name(), len(ids), want)
		}
		if reference == nil {
			reference = ids
		} else if d := diff(reference, ids); d != "" {
			return nil, fmt.Errorf("%w: %s: %s and %s:\n%s", ErrMismatch, w.Name, EngineAqlstore, e.Name(), d)
		}
		m, err := cfg.time(ctx, w, e, first)
		if err != nil {
			return nil, err
		}
		m.FirstMS = ms(first)
		wr.Runs = append(wr.Runs, *m)
		cfg.Progress.Advance(k + 1)
	}
	return wr, nil
}

// time runs the warm-up, then timed repetitions until MinReps are done
// and the budget is spent, or MaxReps. A first run longer than the budget
// was warm-up enough: a query that slow reads the whole corpus.
func (cfg *Config) time(ctx context.Context, w *Workload, e Engine, first time.Duration) (*Measure, error) {
	s := cfg.Settings
	budget := time.Duration(s.BudgetSecs * float64(time.Second))
	warmup := s.Warmup
	if first > budget {
		warmup = 0
	}
	for range warmup {
		if _, err := e.Query(ctx, w); err != nil {
			return nil, err
		}
	}
	var lat []time.Duration
	start := time.Now()
	for len(lat) < s.MaxReps && (len(lat) < s.MinReps || time.Since(start) < budget) {
		t0 := time.Now()
		if _, err := e.Query(ctx, w); err != nil {
			return nil, fmt.Errorf("%s on %s: %w", w.Name, e.Name(), err)
		}
		lat = append(lat, time.Since(t0))
	}
	total := time.Since(start)
	slices.Sort(lat)
	var sum time.Duration
	for _, l := range lat {
		sum += l
	}
	pct := func(p float64) float64 { return ms(lat[min(int(p*float64(len(lat))), len(lat)-1)]) }
	return &Measure{Engine: e.Name(), Reps: len(lat), P50MS: pct(0.50), P95MS: pct(0.95), P99MS: pct(0.99),
		MeanMS: ms(sum) / float64(len(lat)), QPS: float64(len(lat)) / total.Seconds()}, nil
}

// diff describes how got differs from want: counts, then the first ids
// that differ (at most ten).
func diff(want, got []string) string {
	var b strings.Builder
	shown := 0
	for i := 0; i < max(len(want), len(got)) && shown < 10; i++ {
		var w, g string
		if i < len(want) {
			w = want[i]
		}
		if i < len(got) {
			g = got[i]
		}
		if w != g {
			fmt.Fprintf(&b, "  result %d: want %q, got %q\n", i, w, g)
			shown++
		}
	}
	if shown == 0 {
		return ""
	}
	return fmt.Sprintf("  %d results, want %d\n%s", len(got), len(want), b.String())
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// resetPeakRSS resets the process's peak resident memory (Linux
// clear_refs 5) and returns the current resident memory.
func resetPeakRSS() int64 {
	os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
	return procStatusBytes("VmRSS")
}

func peakRSS() int64 { return procStatusBytes("VmHWM") }

func procStatusBytes(field string) int64 {
	st, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	kb, _ := strconv.ParseInt(strings.TrimSuffix(statusField(st, field), " kB"), 10, 64)
	return kb << 10
}

func machineInfo() Machine {
	m := Machine{OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU(), GoVersion: runtime.Version()}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "model name"); ok {
				m.CPUModel = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v), ":"))
				break
			}
		}
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		kb, _ := strconv.ParseUint(strings.TrimSuffix(statusField(b, "MemTotal"), " kB"), 10, 64)
		m.MemBytes = kb << 10
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
	return m
}

// moduleVersion is aqlstore's version and commit as the build recorded
// them, or, for a build without VCS stamps (-buildvcs=false), as git
// tells them for the working directory.
func moduleVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	v := info.Main.Version
	rev, modified := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev == "" {
		if out, err := exec.Command("git", "rev-parse", "HEAD").Output(); err == nil {
			rev = strings.TrimSpace(string(out))
			out, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output()
			modified = err == nil && len(out) > 0
		}
	}
	if len(rev) >= 12 {
		v += " " + rev[:12]
		if modified {
			v += "+dirty"
		}
	}
	return v
}

type nopProgress struct{}

func (nopProgress) Begin(string, int) {}
func (nopProgress) Advance(int)       {}
func (nopProgress) End()              {}
