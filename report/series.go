package report

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/results"
)

// The series of a report are built once, from the store alone, into Charts;
// html*.go renders them with uPlot in the browser and png*.go with gonum/plot.
// Both renderers only draw what a Chart says, so the two outputs agree.

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

var gap = Num(math.NaN())

// Chart kinds; they decide axes and formatting in both renderers.
const (
	KindThroughput   = "throughput"   // x: seconds since run start, y: ops/s
	KindLatency      = "latency"      // x: seconds, y: ms
	KindDistribution = "distribution" // x: 1/(1−p) on a log scale, y: ms
	KindErrors       = "errors"       // x: seconds, y: errors/s
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

// RunData is everything a report shows of one run.
type RunData struct {
	Detail    *results.RunDetail
	Intervals []results.IntervalRow
	// Summary is the phase the tables show: the last measure phase, else the
	// last phase of any name (SummaryNote says so); nil without phases.
	Summary     *measure.Summary
	SummaryNote string
}

// Report is the content of one report: one or more runs and their charts.
type Report struct {
	Runs   []RunData
	Ops    []string // OVERALL first, then the operations in the order first seen
	Charts []Chart
}

// LoadRuns reads the runs from the store, in the given order. An unknown id is
// an error that wraps results.ErrNoRun and names the id.
func LoadRuns(ctx context.Context, store *results.Store, ids []int64) ([]RunData, error) {
	if len(ids) == 0 {
		return nil, errors.New("report: no run ids given (expected at least one)")
	}
	seen := map[int64]bool{}
	var runs []RunData
	for _, id := range ids {
		if seen[id] {
			return nil, fmt.Errorf("report: run %d is given twice", id)
		}
		seen[id] = true
		d, err := store.Run(ctx, id)
		if err != nil {
			return nil, fmt.Errorf("report: %w", err)
		}
		ivs, err := store.Intervals(ctx, id)
		if err != nil {
			return nil, fmt.Errorf("report: %w", err)
		}
		rd := RunData{Detail: d, Intervals: ivs}
		if s, ok := d.Phase(measure.PhaseMeasure); ok {
			rd.Summary = &s
		} else if n := len(d.Phases); n > 0 {
			s := d.Phases[n-1]
			rd.Summary = &s
			rd.SummaryNote = fmt.Sprintf("no measure phase was stored; showing the %s phase", s.Phase)
		}
		runs = append(runs, rd)
	}
	return runs, nil
}

// Build reads the runs and builds their charts.
func Build(ctx context.Context, store *results.Store, ids []int64) (*Report, error) {
	runs, err := LoadRuns(ctx, store, ids)
	if err != nil {
		return nil, err
	}
	return BuildCharts(runs), nil
}

// Palette is used in order for lines; runs of a comparison keep one colour each.
var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"}

func lineColor(i int) string { return palette[i%len(palette)] }

// BuildCharts turns loaded runs into charts: per operation (OVERALL first)
// throughput, latency over time and the percentile distribution, then the
// errors over time. With several runs every chart overlays them.
func BuildCharts(runs []RunData) *Report {
	r := &Report{Runs: runs, Ops: opsOf(runs)}
	multi := len(runs) > 1
	x := timeAxis(runs)
	bands, marks := eventsOf(runs)
	xmax := 0.0
	for _, v := range x {
		xmax = max(xmax, float64(v))
	}
	for _, op := range r.Ops {
		tp := Chart{ID: "throughput-" + fileSafe(op), Kind: KindThroughput, Title: op + " throughput",
			XLabel: "time since start (s)", YLabel: "ops/s", X: x, Bands: bands, Marks: marks, XMax: xmax, SpanGaps: multi}
		lat := Chart{ID: "latency-" + fileSafe(op), Kind: KindLatency, Title: op + " latency over time",
			XLabel: "time since start (s)", YLabel: "latency (ms)", X: x, Bands: bands, Marks: marks, XMax: xmax, SpanGaps: multi}
		for i, rd := range runs {
			rows := opRows(rd.Intervals, op)
			xs := xsOf(rd.Intervals)
			name := runLabel(rd, multi)
			tp.Lines = append(tp.Lines, Line{Label: name + "ops/s", Color: lineColor(i),
				Y: align(x, rows, func(iv results.IntervalRow) Num {
					if iv.Length <= 0 {
						return gap
					}
					return Num(float64(iv.Count) / iv.Length.Seconds())
				}, xs)})
			ms := func(f func(results.IntervalRow) int64) func(results.IntervalRow) Num {
				return func(iv results.IntervalRow) Num {
					if iv.Count == 0 {
						return gap // nothing completed: no latency, not zero latency
					}
					return Num(float64(f(iv)) / 1000)
				}
			}
			p50 := func(iv results.IntervalRow) int64 { return iv.P50US }
			p95 := func(iv results.IntervalRow) int64 { return iv.P95US }
			p99 := func(iv results.IntervalRow) int64 { return iv.P99US }
			svc := func(iv results.IntervalRow) int64 { return iv.SvcP99US }
			if multi {
				lat.Lines = append(lat.Lines,
					Line{Label: name + "p50", Color: lineColor(i), Dash: true, Y: align(x, rows, ms(p50), nil)},
					Line{Label: name + "p99", Color: lineColor(i), Y: align(x, rows, ms(p99), nil)})
				continue
			}
			lat.Lines = append(lat.Lines,
				Line{Label: "p50", Color: lineColor(2), Y: align(x, rows, ms(p50), nil)},
				Line{Label: "p95", Color: lineColor(3), Y: align(x, rows, ms(p95), nil)},
				Line{Label: "p99", Color: lineColor(1), Y: align(x, rows, ms(p99), nil)},
				Line{Label: "service p99", Color: lineColor(0), Dash: true, Y: align(x, rows, ms(svc), nil)})
		}
		if len(x) == 0 {
			tp.Note, lat.Note = noIntervals, noIntervals
		}
		r.Charts = append(r.Charts, tp, lat, distribution(runs, op, multi))
	}
	r.Charts = append(r.Charts, errorChart(runs, x, bands, marks, xmax, multi))
	return r
}

const noIntervals = "no per-second intervals were stored for this run (it ended before its first second)"

func runLabel(rd RunData, multi bool) string {
	if !multi {
		return ""
	}
	return fmt.Sprintf("#%d ", rd.Detail.ID)
}

// opsOf returns OVERALL then every operation in the order first seen in the
// summaries, then in the intervals.
func opsOf(runs []RunData) []string {
	ops := []string{measure.OverallOp}
	seen := map[string]bool{measure.OverallOp: true}
	add := func(op string) {
		if !seen[op] {
			seen[op] = true
			ops = append(ops, op)
		}
	}
	for _, rd := range runs {
		if rd.Summary != nil {
			for _, o := range rd.Summary.Ops {
				add(o.Op)
			}
		}
	}
	for _, rd := range runs {
		for _, iv := range rd.Intervals {
			add(iv.Op)
		}
	}
	return ops
}

// second is the x of an interval: its end, in seconds since run start,
// rounded to the millisecond the store keeps.
func second(iv results.IntervalRow) float64 { return float64(iv.T.Milliseconds()) / 1000 }

// timeAxis is the sorted union of the interval ends of all runs.
func timeAxis(runs []RunData) []Num {
	set := map[float64]bool{}
	for _, rd := range runs {
		for _, iv := range rd.Intervals {
			set[second(iv)] = true
		}
	}
	xs := make([]float64, 0, len(set))
	for v := range set {
		xs = append(xs, v)
	}
	sort.Float64s(xs)
	out := make([]Num, len(xs))
	for i, v := range xs {
		out[i] = Num(v)
	}
	return out
}

// xsOf is the set of x at which a run has an interval.
func xsOf(ivs []results.IntervalRow) map[float64]bool {
	m := make(map[float64]bool, len(ivs))
	for _, iv := range ivs {
		m[second(iv)] = true
	}
	return m
}

// opRows returns the interval rows of one op, by x.
func opRows(ivs []results.IntervalRow, op string) map[float64]results.IntervalRow {
	m := map[float64]results.IntervalRow{}
	for _, iv := range ivs {
		if iv.Op == op {
			m[second(iv)] = iv
		}
	}
	return m
}

// align evaluates f at every x. Where the op has no row: zero for counts when
// the run had an interval there (nothing of this op completed), else a gap.
func align(x []Num, rows map[float64]results.IntervalRow, f func(results.IntervalRow) Num, runXs map[float64]bool) []Num {
	out := make([]Num, len(x))
	for i, xv := range x {
		iv, ok := rows[float64(xv)]
		switch {
		case ok:
			out[i] = f(iv)
		case runXs[float64(xv)]:
			out[i] = 0
		default:
			out[i] = gap
		}
	}
	return out
}

// distGrid is the x of percentile plots, 1/(1−p): 40 points per decade from
// p=0 up to the highest percentile the sample supports (p = 1 − 1/count).
func distGrid(maxCount int64) []Num {
	limit := math.Min(float64(max(maxCount, 2)), 1e7)
	const perDecade = 40
	var out []Num
	for i := 0; ; i++ {
		v := math.Pow(10, float64(i)/perDecade)
		if v > limit {
			break
		}
		out = append(out, Num(v))
	}
	return out
}

// distribution plots response and service time against percentile from the
// summary histograms, HdrHistogram style, so that the gap between them —
// coordinated omission avoided — is visible at the tail.
func distribution(runs []RunData, op string, multi bool) Chart {
	c := Chart{ID: "distribution-" + fileSafe(op), Kind: KindDistribution, Title: op + " latency by percentile",
		XLabel: "percentile", YLabel: "latency (ms)"}
	var maxCount int64
	type pair struct{ resp, svc *hdr.Histogram }
	hists := make([]pair, len(runs))
	for i, rd := range runs {
		if rd.Summary == nil {
			continue
		}
		o, ok := summaryOp(rd.Summary, op)
		if !ok {
			continue
		}
		hists[i] = pair{o.ResponseHist, o.ServiceHist}
		if o.ResponseHist != nil {
			maxCount = max(maxCount, o.ResponseHist.TotalCount())
		}
	}
	if maxCount == 0 {
		c.Note = "no latency histogram was stored for " + op
		return c
	}
	c.X = distGrid(maxCount)
	curve := func(h *hdr.Histogram) []Num {
		y := make([]Num, len(c.X))
		for i, x := range c.X {
			if h == nil || h.TotalCount() == 0 || float64(x) > float64(max(h.TotalCount(), 2)) {
				y[i] = gap
				continue
			}
			y[i] = Num(float64(h.ValueAtQuantile(100*(1-1/float64(x)))) / 1000)
		}
		return y
	}
	for i, rd := range runs {
		name := runLabel(rd, multi)
		respColor, svcColor := lineColor(1), lineColor(0)
		if multi {
			respColor, svcColor = lineColor(i), lineColor(i)
		}
		c.Lines = append(c.Lines,
			Line{Label: name + "response time", Color: respColor, Y: curve(hists[i].resp)},
			Line{Label: name + "service time", Color: svcColor, Dash: true, Y: curve(hists[i].svc)})
	}
	return c
}

// summaryOp finds op (or OVERALL) in a phase summary.
func summaryOp(s *measure.Summary, op string) (measure.OpSummary, bool) {
	if op == measure.OverallOp {
		return s.Overall, s.Overall.Count > 0 || s.Overall.ResponseHist != nil
	}
	for _, o := range s.Ops {
		if o.Op == op {
			return o, true
		}
	}
	return measure.OpSummary{}, false
}

// errorChart shows errors per second by class (one run) or in total per run
// (several), from the OVERALL rows, and dropped operations when there were any.
func errorChart(runs []RunData, x []Num, bands []Band, marks []Mark, xmax float64, multi bool) Chart {
	c := Chart{ID: "errors", Kind: KindErrors, Title: "errors over time", XLabel: "time since start (s)",
		YLabel: "per second", X: x, Bands: bands, Marks: marks, XMax: xmax, SpanGaps: multi}
	if len(x) == 0 {
		c.Note = noIntervals
		return c
	}
	perSec := func(n int64, iv results.IntervalRow) Num {
		if iv.Length <= 0 {
			return gap
		}
		return Num(float64(n) / iv.Length.Seconds())
	}
	for i, rd := range runs {
		rows := opRows(rd.Intervals, measure.OverallOp)
		xs := xsOf(rd.Intervals)
		name := runLabel(rd, multi)
		if multi {
			c.Lines = append(c.Lines, Line{Label: name + "errors/s", Color: lineColor(i),
				Y: align(x, rows, func(iv results.IntervalRow) Num { return perSec(iv.Errors, iv) }, xs)})
		} else {
			classes := map[string]bool{}
			for _, iv := range rows {
				for k, v := range iv.Classes {
					if v > 0 {
						classes[k] = true
					}
				}
			}
			names := make([]string, 0, len(classes))
			for k := range classes {
				names = append(names, k)
			}
			sort.Strings(names)
			for j, k := range names {
				c.Lines = append(c.Lines, Line{Label: k, Color: lineColor(j + 1),
					Y: align(x, rows, func(iv results.IntervalRow) Num { return perSec(iv.Classes[k], iv) }, xs)})
			}
			if len(names) == 0 {
				c.Lines = append(c.Lines, Line{Label: "errors", Color: lineColor(1),
					Y: align(x, rows, func(iv results.IntervalRow) Num { return perSec(iv.Errors, iv) }, xs)})
			}
		}
		var dropped int64
		for _, iv := range rows {
			dropped += iv.Dropped
		}
		if dropped > 0 {
			c.Lines = append(c.Lines, Line{Label: name + "dropped/s", Color: lineColor(i + 4), Dash: true,
				Y: align(x, rows, func(iv results.IntervalRow) Num { return perSec(iv.Dropped, iv) }, xs)})
		}
	}
	return c
}

// eventsOf turns the events of the runs into bands and marks, in seconds
// since each run's start. Conventions (documented for scenario writers):
//   - kind "X_start" and a later "X_end" with the same name are one window,
//     shaded as a band (an unmatched start lasts to the end of the run);
//     phase_start/phase_end are phase boundaries, drawn as marks;
//   - any other event is a one-off mark.
//
// Phase starts also come from the stored phases, so runs without phase
// events are still marked.
func eventsOf(runs []RunData) ([]Band, []Mark) {
	var bands []Band
	var marks []Mark
	multi := len(runs) > 1
	for _, rd := range runs {
		d := rd.Detail
		prefix := runLabel(rd, multi)
		rel := func(t time.Time) float64 { return math.Round(t.Sub(d.Start).Seconds()*1000) / 1000 }
		end := rd.runEnd()
		phaseAt := map[string]bool{}
		for _, p := range d.Phases {
			marks = append(marks, Mark{At: rel(p.Start), Label: prefix + p.Phase, Phase: true})
			phaseAt[p.Phase+"@"+strconv.FormatFloat(rel(p.Start), 'f', 0, 64)] = true
		}
		open := map[string]int{} // kind base + name → index into evs of its start
		type window struct {
			from, to float64
			label    string
		}
		var wins []window
		for _, e := range d.Events {
			at := rel(e.Time)
			label := prefix + strings.TrimSpace(e.Name)
			if e.Outcome != "" && e.Outcome != "ok" {
				label += " (" + e.Outcome + ")"
			}
			switch {
			case e.Kind == "phase_start" || e.Kind == "phase":
				if !phaseAt[e.Name+"@"+strconv.FormatFloat(at, 'f', 0, 64)] {
					marks = append(marks, Mark{At: at, Label: prefix + e.Name, Phase: true})
				}
			case e.Kind == "phase_end":
				// the next phase's start marks it; the last one ends the run
			case strings.HasSuffix(e.Kind, "_start"):
				key := strings.TrimSuffix(e.Kind, "_start") + "\x00" + e.Name
				open[key] = len(wins)
				wins = append(wins, window{from: at, to: math.NaN(), label: label})
			case strings.HasSuffix(e.Kind, "_end"):
				key := strings.TrimSuffix(e.Kind, "_end") + "\x00" + e.Name
				if i, ok := open[key]; ok {
					wins[i].to = at
					delete(open, key)
				} else {
					marks = append(marks, Mark{At: at, Label: label})
				}
			default:
				marks = append(marks, Mark{At: at, Label: label})
			}
		}
		for _, w := range wins {
			if math.IsNaN(w.to) {
				w.to = max(end, w.from)
			}
			bands = append(bands, Band{From: w.from, To: w.to, Label: w.label})
		}
	}
	return bands, marks
}

// runEnd is the last second of a run that has data, for open fault windows.
func (rd RunData) runEnd() float64 {
	end := 0.0
	for _, iv := range rd.Intervals {
		end = max(end, second(iv))
	}
	if !rd.Detail.End.IsZero() {
		end = max(end, rd.Detail.End.Sub(rd.Detail.Start).Seconds())
	}
	return end
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
