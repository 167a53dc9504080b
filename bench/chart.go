package bench

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The charts WriteCharts draws, by file name without extension.
const (
	chartLatency = "latency"
	chartSpeedup = "speedup"
	chartIngest  = "ingest"
)

// WriteCharts draws r's charts into dir, each as a PNG and an SVG file,
// and returns the PNG files' names in order. A chart with nothing to show
// (no workload timed, no ingest measured) is left out.
func WriteCharts(dir string, r *Result) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	colors := engineColors(engineOrder(r))
	charts := []struct {
		name  string
		build func(*Result, map[string]color.Color) *chart
	}{
		{chartLatency, latencyChart},
		{chartSpeedup, speedupChart},
		{chartIngest, ingestChart},
	}
	var pngs []string
	for _, c := range charts {
		ch := c.build(r, colors)
		if ch == nil {
			continue
		}
		for _, format := range []string{"png", "svg"} {
			if err := ch.save(filepath.Join(dir, c.name+"."+format), format); err != nil {
				return pngs, fmt.Errorf("chart %s: %w", c.name, err)
			}
		}
		pngs = append(pngs, c.name+".png")
	}
	return pngs, nil
}

// Chart sizes: the per-workload charts are wide enough for about twenty
// workloads.
const (
	wideWidth    = 12 * vg.Inch
	wideHeight   = 6 * vg.Inch
	narrowWidth  = 6 * vg.Inch
	narrowHeight = 4 * vg.Inch
)

// logFloor is the smallest latency a log axis shows: a measured 0 ms
// (below the clock's resolution) is drawn as this. ratioFloor is the same
// for ratios, far below any measured one, so that no bar is cut short.
const (
	logFloor   = 0.001
	ratioFloor = 1e-9
)

func latencyChart(r *Result, colors map[string]color.Color) *chart {
	title := fmt.Sprintf("Query latency (p50) per workload, %s manifests", formatInt(int64(r.Docs)))
	p50 := func(w *WorkloadResult, engine string) (float64, bool) {
		if run := w.Run(engine); run != nil {
			return run.P50MS, true
		}
		return 0, false
	}
	return workloadChart(r, colors, timedEngines(r), p50, 0, logFloor, title, "p50 latency (ms, log scale)")
}

func speedupChart(r *Result, colors map[string]color.Color) *chart {
	title := fmt.Sprintf("How many times faster aqlstore is (p50), %s manifests", formatInt(int64(r.Docs)))
	var engines []string
	for _, e := range timedEngines(r) {
		if e != EngineAqlstore {
			engines = append(engines, e)
		}
	}
	ch := workloadChart(r, colors, engines, (*WorkloadResult).Ratio, 1, ratioFloor, title, "engine p50 ÷ aqlstore p50 (log scale)")
	if ch == nil {
		return nil
	}
	equal := referenceLine(float64(len(r.Workloads)), 1)
	ch.plot.Add(equal)
	ch.addLegend("equal", equal)
	return ch
}

// workloadChart draws a bar per workload and engine of value (at least
// floor), on a log scale, the bars rising from base (from the bottom when
// base is 0). It returns nil when there are no values.
func workloadChart(r *Result, colors map[string]color.Color, engines []string,
	value func(*WorkloadResult, string) (float64, bool), base, floor float64, title, yLabel string) *chart {
	all := []float64{}
	if base > 0 {
		all = append(all, base)
	}
	series := make([][]float64, len(engines))
	for i, e := range engines {
		series[i] = make([]float64, len(r.Workloads))
		for j := range r.Workloads {
			series[i][j] = math.NaN()
			if v, ok := value(&r.Workloads[j], e); ok && !math.IsInf(v, 0) && !math.IsNaN(v) {
				series[i][j] = max(v, floor)
				all = append(all, series[i][j])
			}
		}
	}
	if len(all) == 0 || base > 0 && len(all) == 1 {
		return nil
	}
	ch := newChart(title, "workload", yLabel, wideWidth, wideHeight)
	p := ch.plot
	workloadAxis(p, r)
	logAxis(&p.Y, base > 0, all...)
	p.Add(horizontalGrid())
	for i, e := range engines {
		b := &bars{values: series[i], color: colors[e], slot: i, slots: len(engines), base: base}
		p.Add(b)
		ch.addLegend(e, b)
	}
	return ch
}

func ingestChart(r *Result, colors map[string]color.Color) *chart {
	var loads []EngineResult
	for _, e := range r.Engines {
		if e.Engine != EngineAqlstoreScan && e.IngestPerSec > 0 && !math.IsInf(e.IngestPerSec, 0) {
			loads = append(loads, e)
		}
	}
	if len(loads) == 0 {
		return nil
	}
	ch := newChart(fmt.Sprintf("Ingest throughput, %s manifests", formatInt(int64(r.Docs))),
		"engine", "documents per second", narrowWidth, narrowHeight)
	p := ch.plot
	p.Add(horizontalGrid())
	names := make([]string, len(loads))
	xys := make(plotter.XYs, len(loads))
	labels := make([]string, len(loads))
	top := 0.0
	for i, e := range loads {
		names[i] = e.Engine
		values := make([]float64, len(loads))
		for j := range values {
			values[j] = math.NaN()
		}
		values[i] = e.IngestPerSec
		p.Add(&bars{values: values, color: colors[e.Engine], slots: 1})
		xys[i] = plotter.XY{X: float64(i), Y: e.IngestPerSec}
		labels[i] = formatRate(e.IngestPerSec)
		top = max(top, e.IngestPerSec)
	}
	categoryAxis(p, names)
	p.Y.Min, p.Y.Max = 0, top*1.1
	p.Y.Tick.Marker = linearTicks{}
	p.Add(valueLabels(xys, labels))
	return ch
}

// timedEngines is the engines, in report order, that timed at least one
// workload.
func timedEngines(r *Result) []string {
	var engines []string
	for _, e := range engineOrder(r) {
		for i := range r.Workloads {
			if r.Workloads[i].Run(e) != nil {
				engines = append(engines, e)
				break
			}
		}
	}
	return engines
}

// chart is a plot, its Y label and its legend, which it draws itself to
// the left and right of the plot, and its size.
//
// It draws the Y label because plot centres the label's glyph box on the
// arithmetic middle of the axis, near the top of a log axis, and so
// leaves a wide empty band above the data.
type chart struct {
	plot          *plot.Plot
	yLabel        string
	legend        *plot.Legend // nil for none
	entries       []string     // the legend's, which plot.Legend does not export
	width, height vg.Length
}

func newChart(title, xLabel, yLabel string, width, height vg.Length) *chart {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = sans(15)
	p.Title.Padding = vg.Points(12)
	p.X.Label.Text = xLabel
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = sans(12)
		a.Tick.Label.Font = sans(10)
		a.Padding = 0
	}
	return &chart{plot: p, yLabel: yLabel, width: width, height: height}
}

func sans(points float64) font.Font {
	return font.Font{Typeface: "Liberation", Variant: "Sans", Size: vg.Points(points)}
}

func (ch *chart) addLegend(name string, thumb plot.Thumbnailer) {
	if ch.legend == nil {
		l := plot.NewLegend()
		l.Top, l.Left = true, true
		l.TextStyle.Font = sans(11)
		l.ThumbnailWidth = vg.Points(14)
		l.Padding = vg.Points(4)
		ch.legend = &l
	}
	ch.legend.Add(name, thumb)
	ch.entries = append(ch.entries, name)
}

// margin is the space left of the Y label and around the legend.
const margin = 4 * vg.Millimeter

func (ch *chart) save(file, format string) error {
	c, err := draw.NewFormattedCanvas(ch.width, ch.height, format)
	if err != nil {
		return err
	}
	ch.draw(draw.New(c))
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return err
	}
	data := buf.Bytes()
	if format == "svg" {
		// The SVG names only the font the text was measured with; offer
		// the one Liberation Sans is metric-compatible with, and any.
		data = bytes.ReplaceAll(data, []byte("font-family:Liberation Sans;"),
			[]byte("font-family:'Liberation Sans',Arial,Helvetica,sans-serif;"))
	}
	return os.WriteFile(file, data, 0o644)
}

func (ch *chart) draw(c draw.Canvas) {
	c.SetColor(color.White) // under the legend and the Y label too
	c.Fill(c.Rectangle.Path())
	area := c
	if ch.legend != nil {
		area = draw.Crop(c, 0, -(ch.legendWidth() + 2*margin), 0, 0)
	}
	area = ch.drawYLabel(area)
	ch.plot.Draw(area)
	if ch.legend != nil {
		data := ch.plot.DataCanvas(area)
		ch.legend.Draw(draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: area.Max.X + margin, Y: c.Min.Y},
			Max: vg.Point{X: c.Max.X - margin, Y: data.Max.Y},
		}})
	}
}

// drawYLabel draws the Y label along the left edge of c, centred on the
// data, and returns the rest of c.
func (ch *chart) drawYLabel(c draw.Canvas) draw.Canvas {
	if ch.yLabel == "" {
		return c
	}
	sty := ch.plot.Y.Label.TextStyle
	sty.Rotation = math.Pi / 2
	sty.XAlign, sty.YAlign = text.XCenter, text.YTop
	rest := draw.Crop(c, margin+sty.Height(ch.yLabel)+ch.plot.Y.Label.Padding+vg.Points(4), 0, 0, 0)
	data := ch.plot.DataCanvas(rest)
	y := data.Center().Y
	c.FillText(sty, vg.Point{X: c.Min.X + margin, Y: y}, ch.yLabel)
	return rest
}

func (ch *chart) legendWidth() vg.Length {
	var widest vg.Length
	for _, e := range ch.entries {
		widest = max(widest, ch.legend.TextStyle.Width(e))
	}
	return ch.legend.ThumbnailWidth + ch.legend.TextStyle.Width(" ") + widest
}

// workloadAxis makes X name r's workloads, slanted so long names do not
// overlap.
func workloadAxis(p *plot.Plot, r *Result) {
	names := make([]string, len(r.Workloads))
	for i, w := range r.Workloads {
		names[i] = w.Name
	}
	categoryAxis(p, names)
	p.X.Tick.Label.Rotation = math.Pi / 4
	p.X.Tick.Label.XAlign = text.XRight
	p.X.Tick.Label.YAlign = text.YTop
}

// categoryAxis makes X name a category at each of 0, 1, ..., with a tick
// mark between the axis and the name.
func categoryAxis(p *plot.Plot, names []string) {
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.5, float64(len(names))-0.5
	p.X.Width = vg.Points(0.5)
	p.X.Tick.Width = vg.Points(0.5)
	p.X.Tick.Length = vg.Points(4)
}

// logAxis makes a log axis around values, all positive: from a whole
// decade below the smallest, with room for the smallest bar to show unless
// bars rise from a base value, to a little above the largest.
func logAxis(a *plot.Axis, fromBase bool, values ...float64) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range values {
		lo, hi = min(lo, v), max(hi, v)
	}
	a.Scale = plot.LogScale{}
	a.Tick.Marker = logTicks{}
	if fromBase {
		a.Min = math.Pow10(int(math.Floor(math.Log10(lo))))
		if a.Min >= lo {
			a.Min = lo / 2
		}
	} else {
		a.Min = math.Pow10(int(math.Floor(math.Log10(lo) - 0.3)))
	}
	a.Max = hi * 2
}

func horizontalGrid() *plotter.Grid {
	g := plotter.NewGrid()
	g.Vertical.Color = nil
	g.Horizontal.Color = color.Gray{Y: 200}
	return g
}

// referenceLine is a dashed line at y across n categories.
func referenceLine(n, y float64) *plotter.Line {
	l, err := plotter.NewLine(plotter.XYs{{X: -0.5, Y: y}, {X: n - 0.5, Y: y}})
	if err != nil {
		panic(err) // only NaN or infinite points fail
	}
	l.LineStyle.Width = vg.Points(1.5)
	l.LineStyle.Color = color.Black
	l.LineStyle.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
	return l
}

// valueLabels writes labels above the points xys, all finite.
func valueLabels(xys plotter.XYs, labels []string) *plotter.Labels {
	l, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: labels})
	if err != nil {
		panic(err) // only NaN or infinite points fail
	}
	for i := range l.TextStyle {
		l.TextStyle[i].Font = sans(10)
		l.TextStyle[i].XAlign = text.XCenter
		l.TextStyle[i].YAlign = text.YBottom
	}
	l.Offset = vg.Point{Y: vg.Points(3)}
	return l
}

// bars is one series of a grouped bar chart: a bar per category at
// position slot of slots within the category, spanning base to the value,
// or the bottom of the axis to the value when base is 0. A NaN value has
// no bar. Widths are in data units, so bars fit however many categories
// there are.
type bars struct {
	values      []float64
	color       color.Color
	slot, slots int
	base        float64
}

// groupWidth is the share of a category's width its bars take.
const groupWidth = 0.8

var barOutline = draw.LineStyle{Color: color.Gray{Y: 90}, Width: vg.Points(0.5)}

func (b *bars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	w := groupWidth / float64(b.slots)
	bottom := c.Min.Y
	if b.base > 0 {
		bottom = trY(b.base)
	}
	for i, v := range b.values {
		if math.IsNaN(v) {
			continue
		}
		x0 := float64(i) - groupWidth/2 + float64(b.slot)*w
		left, right, top := trX(x0), trX(x0+w), trY(v)
		rect := []vg.Point{{X: left, Y: bottom}, {X: left, Y: top}, {X: right, Y: top}, {X: right, Y: bottom}}
		c.FillPolygon(b.color, c.ClipPolygonY(rect))
		c.StrokeLines(barOutline, c.ClipLinesY(append(rect, rect[0]))...)
	}
}

// Thumbnail draws b's legend entry.
func (b *bars) Thumbnail(c *draw.Canvas) {
	rect := c.Rectangle.Path()
	c.SetColor(b.color)
	c.Fill(rect)
	c.SetLineStyle(barOutline)
	c.Stroke(rect)
}

// logTicks marks every decade of a log axis, labelled, and the steps
// between; it labels 2 and 5 too when the axis spans few decades.
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	first, last := int(math.Floor(math.Log10(lo))), int(math.Ceil(math.Log10(hi)))
	few := last-first <= 2
	var ticks []plot.Tick
	for e := first; e <= last; e++ {
		decade := math.Pow10(e)
		for i := 1; i < 10; i++ {
			v := float64(i) * decade
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			t := plot.Tick{Value: v}
			if i == 1 || few && (i == 2 || i == 5) {
				t.Label = tickLabel(v)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}

// linearTicks label about six round values of a linear axis, with
// thousands separators.
type linearTicks struct{}

func (linearTicks) Ticks(lo, hi float64) []plot.Tick {
	raw := (hi - lo) / 6
	if raw <= 0 {
		return []plot.Tick{{Value: lo, Label: tickLabel(lo)}}
	}
	mag := math.Pow10(int(math.Floor(math.Log10(raw))))
	step := 10 * mag
	for _, m := range []float64{1, 2, 2.5, 5} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	var ticks []plot.Tick
	for i := math.Ceil(lo / step); i*step <= hi; i++ {
		ticks = append(ticks, plot.Tick{Value: i * step, Label: tickLabel(i * step)})
	}
	return ticks
}

// tickLabel formats an axis value as briefly as it can: 0.1, 2.5, 10,000.
func tickLabel(v float64) string {
	if math.Abs(v) >= 1000 && v == math.Round(v) {
		return formatInt(int64(v))
	}
	return strconv.FormatFloat(roundSig(v, 6), 'f', -1, 64)
}

// engineColors gives every engine a color: fixed ones for the known
// engines (aqlstore blues, SQLite oranges, PostgreSQL green), then a
// palette in order.
func engineColors(engines []string) map[string]color.Color {
	colors := map[string]color.Color{
		EngineAqlstore:      color.RGBA{R: 31, G: 119, B: 180, A: 255},
		EngineAqlstoreScan:  color.RGBA{R: 158, G: 202, B: 225, A: 255},
		EngineSQLite:        color.RGBA{R: 253, G: 174, B: 107, A: 255},
		EngineSQLiteIndexed: color.RGBA{R: 230, G: 85, B: 13, A: 255},
		EnginePostgres:      color.RGBA{R: 49, G: 163, B: 84, A: 255},
	}
	others := []color.Color{
		color.RGBA{R: 117, G: 107, B: 177, A: 255},
		color.RGBA{R: 140, G: 86, B: 75, A: 255},
		color.RGBA{R: 227, G: 119, B: 194, A: 255},
		color.RGBA{R: 127, G: 127, B: 127, A: 255},
		color.RGBA{R: 188, G: 189, B: 34, A: 255},
		color.RGBA{R: 23, G: 190, B: 207, A: 255},
	}
	n := 0
	for _, e := range engines {
		if _, ok := colors[e]; !ok {
			colors[e] = others[n%len(others)]
			n++
		}
	}
	return colors
}
