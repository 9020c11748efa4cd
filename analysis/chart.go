package analysis

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// The series of a report are computed once, from the store alone, into
// Charts; report draws them with uPlot in the browser and with gonum/plot as
// PNG, and the dashboard draws its history the same way. Renderers only draw
// what a Chart says, so all outputs agree.

// Num is a plot value; NaN means "no value" (a gap) and encodes as JSON null.
type Num float64

// MarshalJSON writes NaN and ±Inf as null, which uPlot draws as a gap.
func (n Num) MarshalJSON() ([]byte, error) {
	f := float64(n)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, f, 'g', -1, 64), nil
}

// UnmarshalJSON reads null as NaN, so tests can decode what a report holds.
func (n *Num) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*n = Num(math.NaN())
		return nil
	}
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	*n = Num(f)
	return nil
}

// Gap is the value of a line where it has none.
func Gap() Num { return Num(math.NaN()) }

// Chart kinds; they decide axes and formatting in the renderers.
const (
	KindThroughput   = "throughput"   // x: seconds since run start, y: ops/s
	KindLatency      = "latency"      // x: seconds, y: ms
	KindDistribution = "distribution" // x: 1/(1−p) on a log scale, y: ms
	KindErrors       = "errors"       // x: seconds, y: errors/s
	KindHistory      = "history"      // x: run start (Unix seconds), y: ops/s or ms
)

// Chart is one plot: lines over a shared x, plus event bands and marks.
type Chart struct {
	ID     string `json:"id"` // unique within a report, safe as a file name
	Kind   string `json:"kind"`
	Title  string `json:"title"`
	XLabel string `json:"xLabel"`
	YLabel string `json:"yLabel"`
	X      []Num  `json:"x"`
	Lines  []Line `json:"lines"`
	Bands  []Band `json:"bands,omitempty"`
	Marks  []Mark `json:"marks,omitempty"`
	Note   string `json:"note,omitempty"` // why a chart is empty
	// SpanGaps joins a line across missing values: overlaid runs have their
	// intervals at different x, while within one run a gap is a real hole.
	SpanGaps bool    `json:"spanGaps,omitempty"`
	XMax     float64 `json:"xMax,omitempty"`
	// YMax, when set, is the top of the y-scale (before the renderers'
	// headroom): what lies above it, such as the load phase's per-batch
	// latencies, is clipped so it does not flatten what matters.
	YMax float64 `json:"yMax,omitempty"`
}

// Line is one series of a chart; Y has len(Chart.X) values.
type Line struct {
	Label string `json:"label"`
	Y     []Num  `json:"y"`
	Color string `json:"color"`
	Dash  bool   `json:"dash,omitempty"`
}

// Band is a shaded time window (a fault that lasted), in seconds since run start.
type Band struct {
	From  float64 `json:"from"`
	To    float64 `json:"to"`
	Label string  `json:"label"`
}

// Mark is a one-off event or a phase boundary, at seconds since run start.
type Mark struct {
	At    float64 `json:"at"`
	Label string  `json:"label"`
	Phase bool    `json:"phase,omitempty"`
}

// ChartID is the id of the chart of one kind for one operation, e.g.
// "latency-READ": ChartID(KindLatency, "READ").
func ChartID(kind, op string) string { return kind + "-" + fileSafe(op) }

// ErrorsChartID is the id of the errors chart, of which a set has one.
const ErrorsChartID = "errors"

// lineColor picks colours in order; runs of a comparison keep one each.
func lineColor(i int) string {
	palette := [...]string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"}
	return palette[i%len(palette)]
}

// fileSafe keeps letters, digits, '-' and '_' of an op name for ids and files.
func fileSafe(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}
