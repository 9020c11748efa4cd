package analysis

import (
	"math"
	"slices"
	"strconv"

	"github.com/dbrig/dbrig/format"
	"github.com/dbrig/dbrig/loadmodel"
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

// A history compares like with like. Runs under different load models
// (closed with 4 or 16 clients, open at 1,000 or 5,000 ops/s) have figures
// that differ by design, so each load model has a history of its own
// (LoadKey). A run with faults is shown but never judged, nor a baseline
// for the others: its p99 measures the fault (how long a leader election
// took), and under a fixed rate (open model) its throughput is the rate
// whatever happened; its fault verdicts judge it.

// HistoryEntry is a finished run as a history takes it.
type HistoryEntry struct {
	results.RunRow
	Faults bool // faults were injected during the run
}

// HistoryRun is one run of a history.
type HistoryRun struct {
	HistoryEntry
	Regression *Regression // nil when the run did not regress (or has faults: not judged)
}

// History is the finished runs of one workload on one system under one
// load model over time.
type History struct {
	Load        string       // the load model (LoadKey) of every run
	Runs        []HistoryRun // in the order given, oldest first
	Regressions int          // runs with a Regression
	Charts      []Chart      // throughput and p99 by run start; nil without runs
}

// LoadKey names the load model of a run, what its figures depend on by
// design: "closed 16", "closed 4 @500/s" (paced), "open 8 @1,000/s".
func LoadKey(r results.RunRow) string {
	return format.LoadBrief(loadmodel.Load{Model: r.Model, Clients: r.Clients, Rate: r.Rate})
}

// Histories splits runs given oldest first by load model and analyses each
// (HistoryOf); the load model of the newest run comes first, then the
// others from the newest run of each.
func Histories(rows []HistoryEntry) []History {
	var order []string
	groups := map[string][]HistoryEntry{}
	for i := len(rows) - 1; i >= 0; i-- {
		k := LoadKey(rows[i].RunRow)
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], rows[i])
	}
	out := make([]History, 0, len(order))
	for _, k := range order {
		g := groups[k]
		slices.Reverse(g) // oldest first again
		out = append(out, HistoryOf(g))
	}
	return out
}

// HistoryOf analyses runs of one load model given oldest first: each run
// without faults is checked against the HistoryWindow runs without faults
// before it, and charted with its regressions marked.
func HistoryOf(rows []HistoryEntry) History {
	var h History
	if len(rows) == 0 {
		return h
	}
	h.Load = LoadKey(rows[0].RunRow)
	x := make([]Num, len(rows))
	tp := make([]Num, len(rows))
	p99 := make([]Num, len(rows))
	var marks []Mark
	var calm []results.RunRow // the runs without faults so far
	for i, row := range rows {
		x[i] = Num(float64(row.Start.Unix()))
		tp[i] = Num(row.Throughput)
		p99[i] = Num(float64(row.P99US) / 1000)
		hr := HistoryRun{HistoryEntry: row}
		if !row.Faults {
			hr.Regression = Regressed(calm[max(0, len(calm)-HistoryWindow):], row.RunRow)
			calm = append(calm, row.RunRow)
		}
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
