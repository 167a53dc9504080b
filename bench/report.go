package bench

import (
	"fmt"
	"io"
	"math"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"
)

// WriteReport writes r as a Markdown report to w, embedding the PNG
// charts (file names relative to the report) in the order given.
func WriteReport(w io.Writer, r *Result, charts []string) error {
	m := &mdWriter{w: w}
	writeHeader(m, r)
	writeHowToRead(m)
	writeSkipped(m, r.Skipped)
	writeIngest(m, r)
	writeFullScans(m, r)
	writeLatency(m, r)
	writeTails(m, r)
	writeCharts(m, charts)
	writeQuestions(m, r)
	return m.err
}

// writeQuestions lists every workload as each engine was asked it.
func writeQuestions(m *mdWriter, r *Result) {
	if len(r.Workloads) == 0 {
		return
	}
	m.heading("The workloads, as each engine was asked them")
	m.printf("The SQL engines (DuckDB too) run `SELECT cid FROM docs WHERE <condition> ORDER BY cid` " +
		"(`cid, body` for whole-document projections; `LIMIT` and keyset pagination for pages). " +
		"bleve runs the query shown sorted by document id (the candidate id), unscored, " +
		"with the stored body for whole-document projections and `SearchAfter` the last id for pages. " +
		"aqlstore resolves a signed `full_set` discovery intent with these constraints, projecting `/tool/id` (`/` for whole-document projections).\n\n")
	for _, name := range sortedKeys(r.Schemas) {
		m.printf("%s's schema:\n\n```\n%s```\n\n", name, r.Schemas[name])
	}
	for i := range r.Workloads {
		w := &r.Workloads[i]
		m.printf("- **%s** (%s): %s\n", w.Name, w.Group, w.Description)
		if w.PageSize > 0 {
			m.printf("  - pages of %d\n", w.PageSize)
		}
		m.printf("  - AQL: `%s`\n  - SQLite: `%s`\n  - PostgreSQL: `%s`\n", w.Constraints, w.SQLite, w.Postgres)
		if w.DuckDB != "" {
			m.printf("  - DuckDB: `%s`\n", w.DuckDB)
		}
		if w.Bleve != "" {
			m.printf("  - bleve: `%s`\n", w.Bleve)
		}
		for _, s := range w.Skipped {
			m.printf("  - %s: skipped: %s\n", s.Engine, s.Reason)
		}
	}
}

// mdWriter writes Markdown, keeping the first error so the sections need
// not check every write.
type mdWriter struct {
	w   io.Writer
	err error
}

func (m *mdWriter) printf(format string, args ...any) {
	if m.err != nil {
		return
	}
	_, m.err = fmt.Fprintf(m.w, format, args...)
}

func (m *mdWriter) heading(title string) { m.printf("\n## %s\n\n", title) }

// table writes a Markdown table; align has one letter per column, 'l' or
// 'r'.
func (m *mdWriter) table(align string, header []string, rows [][]string) {
	m.row(header)
	sep := make([]string, len(header))
	for i := range sep {
		sep[i] = "---"
		if i < len(align) && align[i] == 'r' {
			sep[i] = "--:"
		}
	}
	m.row(sep)
	for _, r := range rows {
		m.row(r)
	}
}

func (m *mdWriter) row(cells []string) {
	esc := make([]string, len(cells))
	for i, c := range cells {
		esc[i] = mdCell(c)
	}
	m.printf("| %s |\n", strings.Join(esc, " | "))
}

// mdCell makes s safe inside a table cell.
func mdCell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.Join(strings.Fields(s), " ")
}

// mdNone marks a figure that was not measured.
const mdNone = "–"

func writeHeader(m *mdWriter, r *Result) {
	m.printf("# aqlstore benchmark: %s manifests\n\n", formatInt(int64(r.Docs)))
	m.printf("```\n%s\n```\n\n", r.Command)
	m.printf("- Started: %s, took %s\n", r.StartedAt.UTC().Format(time.RFC3339), formatRunTime(r.Seconds))
	m.printf("- Corpus: %s generated manifests, seed %d\n", formatInt(int64(r.Docs)), r.Seed)
	m.printf("- Machine: %s\n", describeMachine(r.Machine))
	if v := describeVersions(r.Versions); v != "" {
		m.printf("- Versions: %s\n", v)
	}
	m.printf("- Repetitions: %s\n", describeSettings(r.Settings))
}

func describeMachine(mc Machine) string {
	parts := []string{
		orUnknown(mc.CPUModel),
		fmt.Sprintf("%d CPUs", mc.CPUs),
		fmt.Sprintf("%.1f GiB memory", float64(mc.MemBytes)/(1<<30)),
		mc.OS + "/" + mc.Arch,
		"kernel " + orUnknown(mc.Kernel),
		orUnknown(mc.GoVersion),
	}
	return strings.Join(parts, ", ")
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

func sortedKeys(m map[string]string) []string {
	names := make([]string, 0, len(m))
	for name := range m {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

func describeVersions(versions map[string]string) string {
	names := sortedKeys(versions)
	parts := make([]string, len(names))
	for i, name := range names {
		parts[i] = name + " " + versions[name]
	}
	return strings.Join(parts, ", ")
}

func describeSettings(s Settings) string {
	return fmt.Sprintf("%d warm-up runs, then %d to %d timed runs per engine and workload, "+
		"stopping once %s s of timed runs passed (after the minimum); ingest in transactions of %s documents",
		s.Warmup, s.MinReps, s.MaxReps, formatPlain(s.BudgetSecs), formatInt(int64(s.BatchSize)))
}

func writeHowToRead(m *mdWriter) {
	m.heading("How to read this")
	m.printf("Every figure is also given as a ratio to aqlstore (the planner over the path indexes) " +
		"measured in the same run, as (×ratio). A ratio above 1 means aqlstore is faster or smaller; " +
		"below 1, the other engine is.\n\n")
	m.printf("Latencies are per query, in milliseconds, run sequentially and warm, after the warm-up runs; " +
		"p50, p95 and p99 are over the timed runs. `first` is the engine's first run of the workload, before " +
		"its warm-up; a workload whose first run took longer than the time budget gets no warm-up " +
		"(it has read the whole corpus already).\n\n")
	m.printf("aqlstore answers as its query server does: a decision record for every candidate, the projection, " +
		"and an Ed25519 signature over the RFC 8785 form of the response. The SQL engines return the ids in the " +
		"same order (and the documents, for whole-document projections). aqlstore-scan does not walk pages: " +
		"each page would be another full scan.\n")
}

func writeSkipped(m *mdWriter, skipped []Skipped) {
	if len(skipped) == 0 {
		return
	}
	m.heading("Skipped engines")
	for _, s := range skipped {
		m.printf("- **%s**: %s\n", s.Engine, mdCell(s.Reason))
	}
}

func writeIngest(m *mdWriter, r *Result) {
	m.heading("Ingest and footprint")
	ref := engineResult(r, EngineAqlstore)
	rows := make([][]string, 0, len(r.Engines))
	for _, e := range r.Engines {
		rows = append(rows, []string{
			e.Engine,
			e.Indexes,
			ingestCell(e, ref),
			formatSig(e.LoadSeconds, 3),
			formatSig(e.IndexSeconds, 3),
			diskCell(e, ref),
			openCell(e.OpenMS),
			FormatBytes(e.PeakRSSBytes),
		})
	}
	m.table("llrrrrrr",
		[]string{"engine", "indexes", "ingest docs/s", "load s", "index build s", "disk", "open ms", "peak RSS growth"},
		rows)
	m.printf("\nIngest ratios are aqlstore's rate over the engine's; disk ratios the engine's size over aqlstore's.\n")
}

// engineResult returns the load figures of name in r, or nil.
func engineResult(r *Result, name string) *EngineResult {
	for i := range r.Engines {
		if r.Engines[i].Engine == name {
			return &r.Engines[i]
		}
	}
	return nil
}

func ingestCell(e EngineResult, ref *EngineResult) string {
	s := formatRate(e.IngestPerSec)
	if ref != nil && ref.IngestPerSec > 0 && e.IngestPerSec > 0 {
		s += " (×" + formatRatio(ref.IngestPerSec/e.IngestPerSec) + ")"
	}
	return s
}

func diskCell(e EngineResult, ref *EngineResult) string {
	s := FormatBytes(e.DiskBytes)
	if ref != nil && ref.DiskBytes > 0 && e.DiskBytes > 0 {
		s += " (×" + formatRatio(float64(e.DiskBytes)/float64(ref.DiskBytes)) + ")"
	}
	return s
}

func openCell(ms float64) string {
	if ms < 0 {
		return mdNone
	}
	return formatMS(ms)
}

func writeFullScans(m *mdWriter, r *Result) {
	if r.PhysicalScanMS <= 0 {
		return
	}
	m.heading("Full scans")
	m.printf("Reading every stored document without evaluating anything (the physical scan) took %s ms: "+
		"no full scan can be faster.\n\n", formatMS(r.PhysicalScanMS))
	var rows [][]string
	for _, w := range r.Workloads {
		run := w.Run(EngineAqlstoreScan)
		if run == nil {
			continue
		}
		rows = append(rows, []string{w.Name, formatMS(run.P50MS), "×" + formatRatio(run.P50MS/r.PhysicalScanMS)})
	}
	if len(rows) == 0 {
		return
	}
	m.printf("%s evaluates every document; its p50 against the physical scan:\n\n", EngineAqlstoreScan)
	m.table("lrr", []string{"workload", EngineAqlstoreScan + " p50 ms", "× the physical scan"}, rows)
}

// engineOrder is the engines of r in report order: as they appear in
// r.Engines, then any other engine that timed a workload.
func engineOrder(r *Result) []string {
	var names []string
	seen := map[string]bool{}
	add := func(name string) {
		if !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	}
	for _, e := range r.Engines {
		add(e.Engine)
	}
	for _, w := range r.Workloads {
		for _, run := range w.Runs {
			add(run.Engine)
		}
	}
	return names
}

func writeLatency(m *mdWriter, r *Result) {
	if len(r.Workloads) == 0 {
		return
	}
	m.heading("Latency per workload")
	m.printf("p50 in milliseconds (×ratio: the engine's p50 over aqlstore's).\n\n")
	engines := engineOrder(r)
	header := append([]string{"workload", "selectivity", "results"}, engines...)
	align := "lrr" + strings.Repeat("r", len(engines))
	rows := make([][]string, 0, len(r.Workloads))
	for i := range r.Workloads {
		w := &r.Workloads[i]
		row := []string{w.Name, selectivityCell(w), formatInt(int64(w.Want))}
		for _, e := range engines {
			row = append(row, latencyCell(w, e))
		}
		rows = append(rows, row)
	}
	m.table(align, header, rows)
}

func selectivityCell(w *WorkloadResult) string {
	s := formatPercent(w.Selectivity)
	if w.Pages > 1 {
		s += fmt.Sprintf(", %d pages", w.Pages)
	}
	return s
}

func latencyCell(w *WorkloadResult, engine string) string {
	run := w.Run(engine)
	if run == nil {
		return mdNone
	}
	s := formatMS(run.P50MS)
	if ratio, ok := w.Ratio(engine); ok {
		s += " (×" + formatRatio(ratio) + ")"
	}
	return s
}

func writeTails(m *mdWriter, r *Result) {
	if len(r.Workloads) == 0 {
		return
	}
	m.heading("Tail latency and throughput")
	m.printf("Milliseconds; QPS is sequential queries per second over the timed runs.\n\n")
	engines := engineOrder(r)
	var rows [][]string
	for i := range r.Workloads {
		w := &r.Workloads[i]
		for _, e := range engines {
			run := w.Run(e)
			if run == nil {
				continue
			}
			rows = append(rows, []string{
				w.Name, e,
				formatMS(run.P95MS), formatMS(run.P99MS), formatMS(run.FirstMS),
				formatSig(run.QPS, 3), strconv.Itoa(run.Reps),
			})
		}
	}
	m.table("llrrrrr", []string{"workload", "engine", "p95", "p99", "first", "QPS", "reps"}, rows)
}

// chartTitles are the alt texts of the charts WriteCharts draws.
var chartTitles = map[string]string{
	chartLatency: "Query latency (p50) per workload",
	chartSpeedup: "How many times faster aqlstore is (p50)",
	chartIngest:  "Ingest throughput",
}

func writeCharts(m *mdWriter, charts []string) {
	if len(charts) == 0 {
		return
	}
	m.heading("Charts")
	for _, file := range charts {
		base := strings.TrimSuffix(path.Base(file), path.Ext(file))
		title, ok := chartTitles[base]
		if !ok {
			title = base
		}
		m.printf("![%s](%s)\n\n", title, file)
	}
}

// FormatBytes formats n bytes with binary units: "512 B", "1.2 GiB",
// "900 MiB".
func FormatBytes(n int64) string {
	if n < 0 {
		return "-" + FormatBytes(-n)
	}
	const units = "KMGTPE"
	if n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	v := float64(n)
	i := -1
	for v >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	if v >= 100 {
		return fmt.Sprintf("%.0f %ciB", v, units[i])
	}
	return fmt.Sprintf("%.1f %ciB", v, units[i])
}

// formatInt formats n with thousands separators: 1,234,567.
func formatInt(n int64) string {
	s := strconv.FormatInt(n, 10)
	sign := ""
	if n < 0 {
		sign, s = "-", s[1:]
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return sign + b.String()
}

// formatMS formats milliseconds with three significant digits, and
// whole from 100 up: 0.0423, 1.23, 12.3, 1234.
func formatMS(ms float64) string { return formatSig(ms, 3) }

// formatRatio formats a ratio with two significant digits, and whole
// from 100 up: 0.45, 1.0, 2.3, 34, 342.
func formatRatio(x float64) string { return formatSig(x, 2) }

// formatRate formats a per-second rate: whole with separators from 100
// up, else three significant digits.
func formatRate(x float64) string {
	if math.Abs(x) >= 100 {
		return formatInt(int64(math.Round(x)))
	}
	return formatSig(x, 3)
}

// formatPercent formats a fraction as a percent: 0.0001 is "0.01%".
func formatPercent(f float64) string { return formatPlain(f*100) + "%" }

// formatPlain formats x with at most three significant digits and no
// trailing zeros: 0.01, 2.5, 10.
func formatPlain(x float64) string {
	return strconv.FormatFloat(roundSig(x, 3), 'f', -1, 64)
}

// formatSig formats x with sig significant digits, but never rounds the
// integer part away: numbers of sig digits or more print whole.
func formatSig(x float64, sig int) string {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	if math.Abs(x) >= math.Pow10(sig-1) {
		return strconv.FormatFloat(math.Round(x), 'f', 0, 64)
	}
	r := roundSig(x, sig)
	decimals := max(sig-1-int(math.Floor(math.Log10(math.Abs(r)))), 0)
	return strconv.FormatFloat(r, 'f', decimals, 64)
}

// roundSig rounds x to sig significant digits.
func roundSig(x float64, sig int) float64 {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	k := sig - 1 - int(math.Floor(math.Log10(math.Abs(x))))
	if k >= 0 {
		p := math.Pow10(k)
		return math.Round(x*p) / p
	}
	p := math.Pow10(-k)
	return math.Round(x/p) * p
}

// formatRunTime formats seconds as a duration: 1h2m3s, 4.5s.
func formatRunTime(secs float64) string {
	d := time.Duration(secs * float64(time.Second))
	switch {
	case d >= time.Minute:
		d = d.Round(time.Second)
	case d >= time.Second:
		d = d.Round(100 * time.Millisecond)
	default:
		d = d.Round(time.Millisecond)
	}
	return d.String()
}
