package analysis

import (
	"math"
	"slices"
	"strconv"

	"github.com/dbrig/dbrig/results"
)

// A run of a history regressed when, against the median of up to
// HistoryWindow runs before it, its throughput fell below ThroughputDrop or
// its p99 rose above P99Rise.
const (
	HistoryWindow  = 5
	ThroughputDrop = 0.90
	P99Rise        = 1.20
)

// Regression is how a run stands out from the runs before it.
type Regression struct {
	Window int // how many runs before it (with data) the medians are of
	// The run's figures over the medians of the runs before (NaN when a
	// median is 0), and whether each crossed its threshold.
	Throughput, P99         float64
	ThroughputDrop, P99Rise bool
}

// HistoryRun is one run of a history.
type HistoryRun struct {
	results.RunRow
	Regression *Regression // nil when the run did not regress
}

// History is the finished runs of one workload on one system over time.
type History struct {
	Runs        []HistoryRun // in the order given, oldest first
	Regressions int          // runs with a Regression
	Charts      []Chart      // throughput and p99 by run start; nil without runs
}

// HistoryOf analyses runs given oldest first: each is checked against the
// HistoryWindow runs before it, and charted with its regressions marked.
func HistoryOf(rows []results.RunRow) History {
	var h History
	if len(rows) == 0 {
		return h
	}
	x := make([]Num, len(rows))
	tp := make([]Num, len(rows))
	p99 := make([]Num, len(rows))
	var marks []Mark
	for i, row := range rows {
		x[i] = Num(float64(row.Start.Unix()))
		tp[i] = Num(row.Throughput)
		p99[i] = Num(float64(row.P99US) / 1000)
		hr := HistoryRun{RunRow: row, Regression: Regressed(rows[max(0, i-HistoryWindow):i], row)}
		if hr.Regression != nil {
			h.Regressions++
			marks = append(marks, Mark{At: float64(row.Start.Unix()), Label: "#" + strconv.FormatInt(row.ID, 10)})
		}
		h.Runs = append(h.Runs, hr)
	}
	h.Charts = []Chart{
		{ID: "history-throughput", Kind: KindHistory, Title: "throughput by run", XLabel: "run start", YLabel: "ops/s",
			X: x, Marks: marks, Lines: []Line{{Label: "ops/s", Color: lineColor(0), Y: tp}}},
		{ID: "history-p99", Kind: KindHistory, Title: "p99 latency by run", XLabel: "run start", YLabel: "p99 (ms)",
			X: x, Marks: marks, Lines: []Line{{Label: "p99", Color: lineColor(1), Y: p99}}},
	}
	return h
}

// Regressed says how run is worse than the median of the runs before it
// that have data; nil if it is not, or there is nothing to compare with.
func Regressed(before []results.RunRow, run results.RunRow) *Regression {
	if len(before) == 0 || run.Count == 0 {
		return nil
	}
	var tps, p99s []float64
	for _, b := range before {
		if b.Count > 0 {
			tps = append(tps, b.Throughput)
			p99s = append(p99s, float64(b.P99US))
		}
	}
	if len(tps) == 0 {
		return nil
	}
	r := Regression{Window: len(tps), Throughput: ratio(run.Throughput, Median(tps)),
		P99: ratio(float64(run.P99US), Median(p99s))}
	r.ThroughputDrop = r.Throughput < ThroughputDrop
	r.P99Rise = r.P99 > P99Rise
	if !r.ThroughputDrop && !r.P99Rise {
		return nil
	}
	return &r
}

// Median is the middle value of v (the mean of the middle two for an even
// count); v is not changed. It is NaN for no values.
func Median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// ratio is v/m, NaN when m is not positive (NaN compares false both ways,
// so such a figure never regresses).
func ratio(v, m float64) float64 {
	if m <= 0 {
		return math.NaN()
	}
	return v / m
}
