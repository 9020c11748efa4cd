package analysis

import (
	"fmt"
	"math"

	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/results"
)

// Noise is the relative change below which a difference between two runs is
// neither better nor worse, however significant: run-to-run noise of a
// benchmark is rarely below a few percent. A change beyond it is a verdict
// only when the per-second samples say it is larger than their noise
// (significance.go). `dbrig runs compare` and the HTML comparison share
// both, so the two never disagree about the same pair of runs.
const Noise = 0.05

// Metric is one figure of an operation that runs are compared on.
type Metric int

// The metrics of a comparison. Latencies are response times in µs.
const (
	Throughput Metric = iota // ops/s
	Errors
	Mean
	P50
	P95
	P99
	P999
	Max
)

// String is the metric's name in tables: ops/s, errors, mean, p50 …
func (m Metric) String() string {
	switch m {
	case Throughput:
		return "ops/s"
	case Errors:
		return "errors"
	case Mean:
		return "mean"
	case P50:
		return "p50"
	case P95:
		return "p95"
	case P99:
		return "p99"
	case P999:
		return "p99.9"
	case Max:
		return "max"
	}
	return fmt.Sprintf("Metric(%d)", int(m))
}

// HigherIsBetter is true for throughput; fewer errors and lower latency
// are better.
func (m Metric) HigherIsBetter() bool { return m == Throughput }

// Latency is true for the metrics in microseconds.
func (m Metric) Latency() bool { return m != Throughput && m != Errors }

// Of is the value of the metric for an operation.
func (m Metric) Of(o measure.OpSummary) float64 {
	switch m {
	case Throughput:
		return o.Throughput
	case Errors:
		return float64(o.Errors)
	case Mean:
		return o.Response.Mean
	case P50:
		return float64(o.Response.P50)
	case P95:
		return float64(o.Response.P95)
	case P99:
		return float64(o.Response.P99)
	case P999:
		return float64(o.Response.P999)
	case Max:
		return float64(o.Response.Max)
	}
	return math.NaN()
}

// Verdict says whether a change is for the better.
type Verdict int

const (
	Same   Verdict = iota // within Noise, or no base to compare with
	Better                // beyond Noise, in the good direction
	Worse                 // beyond Noise, in the bad direction
)

func (v Verdict) String() string {
	switch v {
	case Better:
		return "better"
	case Worse:
		return "worse"
	}
	return "same"
}

// Change is the change of one figure from A (the base) to B.
type Change struct {
	A, B    float64
	Rel     float64 // (B−A)/A; NaN when A is 0 (no relative change exists)
	Verdict Verdict
	// Stat compares the figure's per-second samples when the runs' intervals
	// are known (OpDelta.Change); its zero value (no samples) otherwise.
	Stat Significance
}

// Compare returns the change from a to b of a figure for which higher is
// better or worse; a change of at least Noise either way is a verdict.
func Compare(a, b float64, higherIsBetter bool) Change {
	c := Change{A: a, B: b, Rel: math.NaN()}
	if a == 0 {
		return c
	}
	c.Rel = (b - a) / a
	if math.Abs(c.Rel) >= Noise {
		if (c.Rel > 0) == higherIsBetter {
			c.Verdict = Better
		} else {
			c.Verdict = Worse
		}
	}
	return c
}

// OpDelta is one operation of two runs: its summary in each, if it has one,
// and the runs' intervals (nil when the delta was made from summaries only).
type OpDelta struct {
	Op       string
	A, B     measure.OpSummary
	InA, InB bool

	ivA, ivB []results.IntervalRow
}

// Change is the change of a metric of the operation from A to B; only
// meaningful when the operation is in both. Its verdict comes from the
// statistics of the per-second samples (Significance.Verdict): without enough of
// them (no intervals, a run of a few seconds) there is none, however large
// the change of the summaries.
func (d OpDelta) Change(m Metric) Change {
	c := Compare(m.Of(d.A), m.Of(d.B), m.HigherIsBetter())
	c.Stat = CompareSamples(Samples(d.ivA, d.Op, m), Samples(d.ivB, d.Op, m), Confidence)
	c.Verdict = c.Stat.Verdict(m.HigherIsBetter())
	return c
}

// Delta compares the phase summaries of two runs, operation by operation.
type Delta struct {
	// Ops are A's operations then OVERALL, then those only B has.
	Ops []OpDelta
}

// Op finds an operation of the delta.
func (d Delta) Op(op string) (OpDelta, bool) {
	for _, o := range d.Ops {
		if o.Op == op {
			return o, true
		}
	}
	return OpDelta{}, false
}

// Diff compares two phase summaries; nil is a run without one, whose
// operations are then all missing.
func Diff(a, b *measure.Summary) Delta {
	var d Delta
	index := map[string]int{}
	if a != nil {
		for _, o := range WithOverall(*a) {
			index[o.Op] = len(d.Ops)
			d.Ops = append(d.Ops, OpDelta{Op: o.Op, A: o, InA: true})
		}
	}
	if b != nil {
		for _, o := range WithOverall(*b) {
			if i, ok := index[o.Op]; ok {
				d.Ops[i].B, d.Ops[i].InB = o, true
				continue
			}
			d.Ops = append(d.Ops, OpDelta{Op: o.Op, B: o, InB: true})
		}
	}
	return d
}

// NoMeasureError is why two runs cannot be compared: one has no measure phase.
type NoMeasureError struct{ RunID int64 }

func (e *NoMeasureError) Error() string {
	return fmt.Sprintf("run %d has no measure phase", e.RunID)
}

// DiffRuns is Diff of the runs' shown phases with the runs' intervals, so
// that its changes carry statistics.
func DiffRuns(a, b Run) Delta {
	d := Diff(a.Summary, b.Summary)
	d.withIntervals(a.Intervals, b.Intervals)
	return d
}

func (d Delta) withIntervals(a, b []results.IntervalRow) {
	for i := range d.Ops {
		d.Ops[i].ivA, d.Ops[i].ivB = a, b
	}
}

// CompareRuns compares the last measure phases of two runs, with their
// intervals' statistics. A run without one is a *NoMeasureError (A's first).
func CompareRuns(a, b Run) (Delta, error) {
	sa, okA := measure.Measured(a.Detail.Phases)
	if !okA {
		return Delta{}, &NoMeasureError{a.Detail.ID}
	}
	sb, okB := measure.Measured(b.Detail.Phases)
	if !okB {
		return Delta{}, &NoMeasureError{b.Detail.ID}
	}
	d := Diff(&sa, &sb)
	d.withIntervals(a.Intervals, b.Intervals)
	return d, nil
}
