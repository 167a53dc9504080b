package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/aqlstore/aqlstore/bench"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
)

// benchCommand runs the comparison harness: aqlstore against SQLite and
// PostgreSQL on one generated corpus, answers checked before timing.
type benchCommand struct {
	m         *Main
	cfg       bench.Config
	out       string
	engines   string
	workloads string
	noInstall bool
	list      bool
}

func (c *benchCommand) command() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Compare aqlstore with SQLite, PostgreSQL, bleve and DuckDB on a generated corpus: report, charts and raw results",
		Long: `bench loads one generated corpus of OAP manifests into aqlstore and into the
engines a user would pick instead (SQLite without and with expression indexes,
PostgreSQL with GIN and btree expression indexes, installed through apt when
missing and allowed; bleve with a static mapping of the queried paths; DuckDB
with a JSON column and extracted scalar columns), checks that every engine's answer to every workload
equals the expected count and aqlstore's answer, then times them.

It writes REPORT.md, results.json and the charts (PNG and SVG) to --out.
With --json the raw results also go to stdout. A mismatch fails the run and
prints the difference.`,
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return c.run(cmd.Context()) },
	}
	s := bench.DefaultSettings()
	c.cfg.Settings = s
	f := cmd.Flags()
	f.IntVar(&c.cfg.Docs, "docs", 100_000, "manifests in the corpus")
	f.Uint64Var(&c.cfg.Seed, "seed", 1, "corpus seed")
	f.StringVar(&c.out, "out", "bench/results/100k", "directory for REPORT.md, results.json and the charts")
	f.StringVar(&c.cfg.WorkDir, "work", "", "directory for the engines' files during the run (default: a new temporary directory)")
	f.BoolVar(&c.cfg.Keep, "keep", false, "keep the engines' files after the run")
	f.StringVar(&c.engines, "engines", "", "comma-separated engines to compare with aqlstore (default: all): "+strings.Join(benchEngines, ", "))
	f.StringVar(&c.workloads, "workloads", "", "comma-separated workload names (default: all; see --list)")
	f.BoolVar(&c.list, "list", false, "list the workloads and exit")
	f.BoolVar(&c.noInstall, "no-install", false, "do not install PostgreSQL with apt-get when it is missing (skip it)")
	f.BoolVar(&c.cfg.AllowLarge, "large", false, "allow corpora above 1,000,000 manifests (10M needs about 140 GB)")
	f.IntVar(&c.cfg.Settings.Warmup, "warmup", s.Warmup, "untimed runs of each workload per engine")
	f.IntVar(&c.cfg.Settings.MinReps, "min-reps", s.MinReps, "timed runs at least")
	f.IntVar(&c.cfg.Settings.MaxReps, "max-reps", s.MaxReps, "timed runs at most")
	f.Float64Var(&c.cfg.Settings.BudgetSecs, "budget", s.BudgetSecs, "seconds of timed runs per workload and engine, after min-reps")
	f.IntVar(&c.cfg.Settings.BatchSize, "batch", s.BatchSize, "documents per ingest transaction")
	return cmd
}

var benchEngines = []string{bench.EngineAqlstoreScan, bench.EngineSQLite, bench.EngineSQLiteIndexed,
	bench.EngineBleve, bench.EngineDuckDB, bench.EnginePostgres}

func (c *benchCommand) run(ctx context.Context) error {
	if c.list {
		for _, w := range bench.Workloads(c.cfg.Seed) {
			fmt.Fprintf(c.m.Stdout, "%-22s %-11s %s\n", w.Name, w.Group, w.Description)
		}
		return nil
	}
	if err := c.checkSettings(); err != nil {
		return usageError{err}
	}
	for _, e := range splitList(c.engines) {
		if e != bench.EngineAqlstore && !slices.Contains(benchEngines, e) {
			return usageError{fmt.Errorf("--engines: no engine %q (known: %s)", e, strings.Join(benchEngines, ", "))}
		}
		c.cfg.Engines = append(c.cfg.Engines, e)
	}
	c.cfg.Workloads = splitList(c.workloads)
	c.cfg.InstallPostgres = !c.noInstall
	c.cfg.Command = "aqlbench " + strings.Join(os.Args[1:], " ")
	c.cfg.Log = c.m.Stderr
	c.cfg.Progress = newBenchProgress(c.m.Stderr, c.m.StderrIsTerminal)
	if c.cfg.WorkDir == "" {
		dir, err := os.MkdirTemp("", "aqlstore-bench-*")
		if err != nil {
			return err
		}
		c.cfg.WorkDir = dir
	}
	if err := os.MkdirAll(c.out, 0o755); err != nil {
		return err
	}
	res, err := bench.Run(ctx, c.cfg)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	return c.write(res)
}

// checkSettings names the flag of a count or time out of range; the
// harness refuses them too, in its own terms, after the flags are gone.
func (c *benchCommand) checkSettings() error {
	st := c.cfg.Settings
	switch {
	case c.cfg.Docs < 1:
		return fmt.Errorf("--docs %d: the corpus needs at least one manifest", c.cfg.Docs)
	case st.BatchSize < 1:
		return fmt.Errorf("--batch %d: give at least 1 document per transaction", st.BatchSize)
	case st.MinReps < 1:
		return fmt.Errorf("--min-reps %d: give at least 1 timed run", st.MinReps)
	case st.MaxReps < st.MinReps:
		return fmt.Errorf("--max-reps %d: give at least --min-reps (%d)", st.MaxReps, st.MinReps)
	case st.Warmup < 0:
		return fmt.Errorf("--warmup %d: give 0 or more untimed runs", st.Warmup)
	case st.BudgetSecs < 0:
		return fmt.Errorf("--budget %g: give 0 or more seconds", st.BudgetSecs)
	}
	return nil
}

// write saves results.json, the charts and REPORT.md in --out.
func (c *benchCommand) write(res *bench.Result) error {
	raw, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(c.out, "results.json"), append(raw, '\n'), 0o644); err != nil {
		return err
	}
	charts, err := bench.WriteCharts(c.out, res)
	if err != nil {
		return fmt.Errorf("charts: %w", err)
	}
	f, err := os.Create(filepath.Join(c.out, "REPORT.md"))
	if err != nil {
		return err
	}
	if err := bench.WriteReport(f, res, charts); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	fmt.Fprintf(c.m.Stderr, "bench: %d workloads on %d engines in %s; report in %s\n",
		len(res.Workloads), len(res.Engines), time.Duration(res.Seconds*float64(time.Second)).Round(time.Second),
		filepath.Join(c.out, "REPORT.md"))
	if c.m.asJSON {
		_, err = fmt.Fprintf(c.m.Stdout, "%s\n", raw)
	}
	return err
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// benchProgress draws a bar per step on a terminal and otherwise prints
// a line at each tenth of a step.
type benchProgress struct {
	w     io.Writer
	tty   bool
	bar   *progressbar.ProgressBar
	step  string
	total int
	shown int // tenths printed
	start time.Time
}

func newBenchProgress(w io.Writer, tty bool) *benchProgress { return &benchProgress{w: w, tty: tty} }

func (p *benchProgress) Begin(step string, total int) {
	p.step, p.total, p.shown, p.start = step, total, 0, time.Now()
	if p.tty {
		p.bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(p.w), progressbar.OptionSetDescription(step),
			progressbar.OptionShowCount(), progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionClearOnFinish())
	}
}

func (p *benchProgress) Advance(done int) {
	if p.bar != nil {
		_ = p.bar.Set(done)
		return
	}
	if p.total >= 1000 { // a load: a line per tenth
		for tenth := done * 10 / p.total; p.shown < tenth; {
			p.shown++
			fmt.Fprintf(p.w, "bench: %s %d/%d (%s)\n", p.step, done, p.total, time.Since(p.start).Round(time.Second))
		}
	}
}

func (p *benchProgress) End() {
	if p.bar != nil {
		_ = p.bar.Finish()
		p.bar = nil
	} else if p.total < 1000 {
		fmt.Fprintf(p.w, "bench: %s done (%s)\n", p.step, time.Since(p.start).Round(time.Millisecond))
	}
}
