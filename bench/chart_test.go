package bench

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// realisticResult is a run of every engine on fifteen workloads, with
// latencies of the sizes a million manifests give; postgres-gin did not
// time the page walk.
func realisticResult() *Result {
	r := smallResult()
	r.Docs = 1000000
	r.Skipped = nil
	r.Engines = []EngineResult{
		{Engine: EngineAqlstore, Indexes: "every path", LoadSeconds: 95, IndexSeconds: 0, IngestPerSec: 10526,
			DiskBytes: 3 << 30, OpenMS: 40, PeakRSSBytes: 900 << 20},
		{Engine: EngineAqlstoreScan, Indexes: "none (scan)", LoadSeconds: 95, IngestPerSec: 10526,
			DiskBytes: 3 << 30, OpenMS: 40, PeakRSSBytes: 900 << 20},
		{Engine: EngineSQLite, Indexes: "nothing", LoadSeconds: 40, IngestPerSec: 25000,
			DiskBytes: 5 << 30, OpenMS: 1, PeakRSSBytes: 60 << 20},
		{Engine: EngineSQLiteIndexed, Indexes: "expression indexes", LoadSeconds: 40, IndexSeconds: 35,
			IngestPerSec: 13333, DiskBytes: 6 << 30, OpenMS: 1, PeakRSSBytes: 200 << 20},
		{Engine: EnginePostgres, Indexes: "GIN jsonb_path_ops, btree", LoadSeconds: 120, IndexSeconds: 60,
			IngestPerSec: 5555, DiskBytes: 8 << 30, OpenMS: -1, PeakRSSBytes: 2 << 30},
	}
	type row struct {
		name                             string
		sel                              float64
		aql, scan, sqlite, sqliteIdx, pg float64 // p50 ms; 0: not timed
	}
	rows := []row{
		{"eq_0.01pct", 0.0001, 1.2, 1450, 380, 5.1, 2.3},
		{"eq_0.1pct", 0.001, 2.8, 1480, 395, 14, 6.5},
		{"eq_1pct", 0.01, 11, 1520, 410, 88, 41},
		{"eq_10pct", 0.1, 48, 1610, 430, 395, 290},
		{"in_0.1pct", 0.001, 3.4, 1500, 402, 19, 8.8},
		{"price_lte_0.1pct", 0.001, 2.5, 1530, 420, 12, 9.5},
		{"price_lte_1pct", 0.01, 9.8, 1560, 425, 75, 60},
		{"price_range_0.1pct", 0.001, 3.1, 1540, 415, 16, 12},
		{"after_0.1pct", 0.001, 2.2, 1490, 398, 11, 7.9},
		{"after_1pct", 0.01, 8.7, 1505, 405, 70, 52},
		{"contains_0.1pct", 0.001, 4.5, 1700, 450, 400, 25},
		{"contains_1pct", 0.01, 16, 1750, 470, 410, 120},
		{"exists_1pct", 0.01, 7.5, 1470, 390, 380, 35},
		{"projection_0.1pct", 0.001, 3.9, 1600, 440, 21, 14},
		{"page_walk_1pct", 0.01, 35, 1650, 445, 230, 0},
	}
	r.Workloads = nil
	for _, w := range rows {
		wr := WorkloadResult{Name: w.name, Selectivity: w.sel, Want: int(w.sel * 1000000), Pages: 1}
		if strings.HasPrefix(w.name, "page_walk") {
			wr.Pages = 100
		}
		for _, m := range []struct {
			engine string
			p50    float64
		}{
			{EngineAqlstore, w.aql}, {EngineAqlstoreScan, w.scan}, {EngineSQLite, w.sqlite},
			{EngineSQLiteIndexed, w.sqliteIdx}, {EnginePostgres, w.pg},
		} {
			if m.p50 == 0 {
				continue
			}
			wr.Runs = append(wr.Runs, Measure{Engine: m.engine, Reps: 50, FirstMS: m.p50 * 3,
				P50MS: m.p50, P95MS: m.p50 * 1.2, P99MS: m.p50 * 1.4, MeanMS: m.p50 * 1.05, QPS: 1000 / m.p50})
		}
		r.Workloads = append(r.Workloads, wr)
	}
	return r
}

func TestChartWrite(t *testing.T) {
	for name, r := range map[string]*Result{"small": smallResult(), "realistic": realisticResult()} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			pngs, err := WriteCharts(dir, r)
			if err != nil {
				t.Fatal(err)
			}
			if want := []string{"latency.png", "speedup.png", "ingest.png"}; !slices.Equal(pngs, want) {
				t.Fatalf("charts %q, want %q", pngs, want)
			}
			for _, file := range pngs {
				checkPNG(t, filepath.Join(dir, file))
				checkSVG(t, filepath.Join(dir, strings.TrimSuffix(file, ".png")+".svg"))
			}
		})
	}
}

func checkPNG(t *testing.T, file string) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	if b := img.Bounds(); b.Dx() < 400 || b.Dy() < 300 {
		t.Errorf("%s is %dx%d pixels", file, b.Dx(), b.Dy())
	}
}

func checkSVG(t *testing.T, file string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(data, []byte("<?xml")) && !bytes.HasPrefix(data, []byte("<svg")) {
		t.Errorf("%s does not start as SVG: %.40q", file, data)
	}
	if len(data) < 1000 {
		t.Errorf("%s is only %d bytes", file, len(data))
	}
}

func TestChartNothingToDraw(t *testing.T) {
	r := smallResult()
	r.Engines, r.Workloads = nil, nil
	dir := t.TempDir()
	pngs, err := WriteCharts(dir, r)
	if err != nil || len(pngs) != 0 {
		t.Fatalf("WriteCharts of an empty run = %q, %v", pngs, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("WriteCharts of an empty run wrote %d files", len(entries))
	}
}

func TestChartAqlstoreOnly(t *testing.T) {
	r := smallResult()
	for i := range r.Workloads {
		r.Workloads[i].Runs = r.Workloads[i].Runs[:1]
	}
	pngs, err := WriteCharts(t.TempDir(), r)
	if err != nil {
		t.Fatal(err)
	}
	// Nothing to compare aqlstore with: no speedup chart.
	if want := []string{"latency.png", "ingest.png"}; !slices.Equal(pngs, want) {
		t.Fatalf("charts %q, want %q", pngs, want)
	}
}
