package analysis

import (
	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/results"
)

// A bench's comparison sets its runs side by side: one row per matrix
// combination (a system of a matrix over systems, a client count, …), each
// figure the median and range of the combination's repeats. It takes the
// figures the runs stored and computes nothing a run's own summary does not
// show: report renders it as it is.

// BenchRunFigures is one run of a bench as the comparison takes it.
type BenchRunFigures struct {
	Group  string // its matrix values without the repetition, e.g. "system=redis"; "" without a matrix
	RunID  int64  // 0: the run was not stored
	Status string // the stored status (done, failed, interrupted)
	// Measured is the run's measure phase (nil: it has none). Only a
	// finished (done) run with one counts.
	Measured *measure.Summary
	// Headline are the workload's headline metrics the run stored (tpmC,
	// points/s, bytes per point), compared beside the operations.
	Headline []results.RunMetric
}

// BenchComparison is a bench's runs side by side.
type BenchComparison struct {
	Ops []string // OVERALL first, then every operation in the order first seen
	// Headline are the headline metrics' names, in the order first seen.
	Headline []string
	Rows     []BenchRow // one per group, in the order first run
}

// BenchRow is one matrix combination over its repeats.
type BenchRow struct {
	Group string
	Runs  []int64 // the runs counted: done, with a measure phase
	// Left are the runs not counted and why (their status, or "no measure phase").
	Left []BenchLeft
	// Ops are the figures per operation, in BenchComparison.Ops's order; an
	// operation this combination never ran has N = 0 in every Stat.
	Ops []BenchOp
	// ThroughputRatio is the median OVERALL throughput over the first
	// row's (1 for the first row; 0 when either has none).
	ThroughputRatio float64
	// Headline are the headline metrics over the counted runs, in
	// BenchComparison.Headline's order (N = 0: this combination has none).
	Headline []BenchHeadline
}

// BenchHeadline is one headline metric over a combination's repeats.
type BenchHeadline struct {
	Name, Unit string
	Value      Stat
}

// BenchLeft is a run a comparison row could not count.
type BenchLeft struct {
	RunID int64
	Why   string
}

// BenchOp is one operation's stored figures over a combination's
// repeats: throughput (ops/s), response time p50 and p99 (µs), errors.
type BenchOp struct {
	Op                       string
	Throughput, P50US, P99US Stat
	Errors                   Stat
	ErrorRatePct             Stat // errors per 100 operations
}

// CompareBench sets runs side by side, grouped by Group in order of first
// appearance.
func CompareBench(runs []BenchRunFigures) BenchComparison {
	var c BenchComparison
	index := map[string]int{}
	var counted [][]measure.Summary
	var heads []map[string][]float64 // per row: metric name → the counted runs' values
	units := map[string]string{}
	seenOp := map[string]bool{measure.OverallOp: true}
	c.Ops = []string{measure.OverallOp}
	for _, r := range runs {
		i, ok := index[r.Group]
		if !ok {
			i = len(c.Rows)
			index[r.Group] = i
			c.Rows = append(c.Rows, BenchRow{Group: r.Group})
			counted = append(counted, nil)
			heads = append(heads, map[string][]float64{})
		}
		row := &c.Rows[i]
		switch {
		case r.Status != results.StatusDone:
			row.Left = append(row.Left, BenchLeft{RunID: r.RunID, Why: r.Status})
			continue
		case r.Measured == nil:
			row.Left = append(row.Left, BenchLeft{RunID: r.RunID, Why: "no measure phase"})
			continue
		}
		row.Runs = append(row.Runs, r.RunID)
		counted[i] = append(counted[i], *r.Measured)
		for _, m := range r.Headline {
			if _, ok := units[m.Name]; !ok {
				units[m.Name] = m.Unit
				c.Headline = append(c.Headline, m.Name)
			}
			heads[i][m.Name] = append(heads[i][m.Name], m.Value)
		}
		for _, o := range r.Measured.Ops {
			if !seenOp[o.Op] {
				seenOp[o.Op] = true
				c.Ops = append(c.Ops, o.Op)
			}
		}
	}
	for i := range c.Rows {
		for _, op := range c.Ops {
			c.Rows[i].Ops = append(c.Rows[i].Ops, compareOp(op, counted[i]))
		}
		for _, name := range c.Headline {
			c.Rows[i].Headline = append(c.Rows[i].Headline, BenchHeadline{Name: name, Unit: units[name], Value: statOf(heads[i][name])})
		}
	}
	if len(c.Rows) > 0 {
		base := c.Rows[0].Ops[0].Throughput
		for i := range c.Rows {
			if tp := c.Rows[i].Ops[0].Throughput; tp.N > 0 && base.N > 0 && base.Median > 0 {
				c.Rows[i].ThroughputRatio = tp.Median / base.Median
			}
		}
	}
	return c
}

// compareOp gathers op's figures over the phases that ran it.
func compareOp(op string, phases []measure.Summary) BenchOp {
	var tp, p50, p99, errs, rate []float64
	for _, s := range phases {
		o, ok := OpOf(s, op)
		if !ok {
			continue
		}
		tp = append(tp, o.Throughput)
		p50 = append(p50, float64(o.Response.P50))
		p99 = append(p99, float64(o.Response.P99))
		errs = append(errs, float64(o.Errors))
		if o.Count > 0 {
			rate = append(rate, 100*float64(o.Errors)/float64(o.Count))
		}
	}
	return BenchOp{Op: op, Throughput: statOf(tp), P50US: statOf(p50), P99US: statOf(p99), Errors: statOf(errs), ErrorRatePct: statOf(rate)}
}
