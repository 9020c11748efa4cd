package analysis

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/results"
)

// noIntervals is the note of a time chart without data.
const noIntervals = "no per-second intervals were stored for this run (it ended before its first second)"

// charts computes, per operation (OVERALL first), throughput and latency
// over time and the percentile distribution, then the errors over time.
func charts(runs []Run, ops []string) []Chart {
	runs = plottedRuns(runs)
	multi := len(runs) > 1
	x := TimeAxis(runs)
	bands, marks := Events(runs)
	xmax := 0.0
	for _, v := range x {
		xmax = max(xmax, float64(v))
	}
	var out []Chart
	for _, op := range ops {
		tp := Chart{ID: ChartID(KindThroughput, op), Kind: KindThroughput, Title: op + " throughput",
			XLabel: "time since start (s)", YLabel: "ops/s", X: x, Bands: bands, Marks: marks, XMax: xmax, SpanGaps: multi}
		lat := Chart{ID: ChartID(KindLatency, op), Kind: KindLatency, Title: op + " latency over time",
			XLabel: "time since start (s)", YLabel: "latency (ms)", X: x, Bands: bands, Marks: marks, XMax: xmax, SpanGaps: multi}
		for i, r := range runs {
			rows := opRows(r.Intervals, op)
			xs := xsOf(r.Intervals)
			name := runLabel(r, multi)
			tp.Lines = append(tp.Lines, Line{Label: name + "ops/s", Color: lineColor(i),
				Y: Align(x, rows, func(iv results.IntervalRow) Num { return perSecond(iv.Count, iv) }, xs)})
			if op == measure.OverallOp && hasTarget(rows) {
				// What the load model asked for, beside what the system did.
				tp.Lines = append(tp.Lines, Line{Label: name + "target", Color: lineColor(i), Dash: true,
					Y: Align(x, rows, func(iv results.IntervalRow) Num { return Num(iv.TargetRate) }, xs)})
			}
			p50 := msOf(func(iv results.IntervalRow) int64 { return iv.P50US })
			p95 := msOf(func(iv results.IntervalRow) int64 { return iv.P95US })
			p99 := msOf(func(iv results.IntervalRow) int64 { return iv.P99US })
			svc := msOf(func(iv results.IntervalRow) int64 { return iv.SvcP99US })
			if multi {
				lat.Lines = append(lat.Lines,
					Line{Label: name + "p50", Color: lineColor(i), Dash: true, Y: Align(x, rows, p50, nil)},
					Line{Label: name + "p99", Color: lineColor(i), Y: Align(x, rows, p99, nil)})
				continue
			}
			lat.Lines = append(lat.Lines,
				Line{Label: "p50", Color: lineColor(2), Y: Align(x, rows, p50, nil)},
				Line{Label: "p95", Color: lineColor(3), Y: Align(x, rows, p95, nil)},
				Line{Label: "p99", Color: lineColor(1), Y: Align(x, rows, p99, nil)},
				Line{Label: "service p99", Color: lineColor(0), Dash: true, Y: Align(x, rows, svc, nil)})
		}
		if len(x) == 0 {
			tp.Note, lat.Note = noIntervals, noIntervals
		}
		lat.YMax = loadlessMax(runs, op)
		out = append(out, tp, lat, distribution(runs, op, multi))
	}
	out = append(out, errorChart(runs, x, bands, marks, xmax, multi))
	return append(out, nodeCharts(runs, bands, marks, xmax)...)
}

// plottedRuns are runs with the intervals their time charts plot
// (plotted).
func plottedRuns(runs []Run) []Run {
	out := make([]Run, len(runs))
	for i, r := range runs {
		out[i] = r
		out[i].Intervals = plotted(r.Intervals)
	}
	return out
}

// plotted leaves out each phase's trailing partial interval (shorter than
// 90 % of the phase's others): its fraction of a second is when the
// clients were stopping, so its rate is not the phase's and would plot as
// a dip at the end of every run.
func plotted(ivs []results.IntervalRow) []results.IntervalRow {
	last := map[string]time.Duration{} // phase: the end of its last interval
	for _, iv := range ivs {
		last[iv.Phase] = max(last[iv.Phase], iv.T)
	}
	full := map[string]time.Duration{} // phase: its longest other interval
	for _, iv := range ivs {
		if iv.T != last[iv.Phase] {
			full[iv.Phase] = max(full[iv.Phase], iv.Length)
		}
	}
	out := make([]results.IntervalRow, 0, len(ivs))
	for _, iv := range ivs {
		if iv.T == last[iv.Phase] && iv.Length*10 < full[iv.Phase]*9 {
			continue
		}
		out = append(out, iv)
	}
	return out
}

// loadlessMax is the largest latency (ms) an op's latency chart shows
// outside the load phase, its y-scale's top when runs have a load phase:
// the load phase's latencies are per batch of inserts, and would flatten
// the per-operation latencies of the measure phase. 0 without a load phase.
func loadlessMax(runs []Run, op string) float64 {
	loaded, top := false, 0.0
	for _, r := range runs {
		for _, iv := range r.Intervals {
			switch {
			case iv.Phase == measure.PhaseLoad:
				loaded = true
			case iv.Op == op && iv.Count > 0:
				top = max(top, float64(max(iv.P50US, iv.P95US, iv.P99US, iv.SvcP99US))/1000)
			}
		}
	}
	if !loaded {
		return 0
	}
	return top
}

// hasTarget tells whether the load model asked for a rate in any interval.
func hasTarget(rows map[float64]results.IntervalRow) bool {
	for _, r := range rows {
		if r.TargetRate > 0 {
			return true
		}
	}
	return false
}

// perSecond is n over the length of the interval; a gap if it has none.
func perSecond(n int64, iv results.IntervalRow) Num {
	if iv.Length <= 0 {
		return Gap()
	}
	return Num(float64(n) / iv.Length.Seconds())
}

// msOf turns a latency of an interval row into milliseconds.
func msOf(us func(results.IntervalRow) int64) func(results.IntervalRow) Num {
	return func(iv results.IntervalRow) Num {
		if iv.Count == 0 {
			return Gap() // nothing completed: no latency, not zero latency
		}
		return Num(float64(us(iv)) / 1000)
	}
}

// runLabel prefixes the lines of each run in an overlay.
func runLabel(r Run, multi bool) string {
	if !multi {
		return ""
	}
	return fmt.Sprintf("#%d ", r.Detail.ID)
}

// second is the x of an interval: its end, in seconds since run start,
// rounded to the millisecond the store keeps.
func second(iv results.IntervalRow) float64 { return float64(iv.T.Milliseconds()) / 1000 }

// TimeAxis is the sorted union of the interval ends of all runs, in seconds
// since each run's start: the shared x of the time charts.
func TimeAxis(runs []Run) []Num {
	set := map[float64]bool{}
	for _, r := range runs {
		for _, iv := range r.Intervals {
			set[second(iv)] = true
		}
	}
	return axisOf(set)
}

// axisOf is a set of x values as a sorted axis.
func axisOf(set map[float64]bool) []Num {
	xs := slices.Sorted(maps.Keys(set))
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

// Align evaluates f at every x of the axis for the rows of one op (by x).
// Where the op has no row: zero when the run had an interval there
// (runXs; nothing of this op completed, which counts as zero), else a gap.
// Pass runXs nil for values that have no zero, such as latencies.
func Align(x []Num, rows map[float64]results.IntervalRow, f func(results.IntervalRow) Num, runXs map[float64]bool) []Num {
	out := make([]Num, len(x))
	for i, xv := range x {
		iv, ok := rows[float64(xv)]
		switch {
		case ok:
			out[i] = f(iv)
		case runXs[float64(xv)]:
			out[i] = 0
		default:
			out[i] = Gap()
		}
	}
	return out
}
