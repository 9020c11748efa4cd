// Package analysis computes what reports and the dashboard show of stored
// runs: the phase a summary shows, the changes between runs, the series of
// the charts and the history of a workload with its regressions. It returns
// plain data; packages report and web only format and render it.
//
// Latencies are microseconds, as in package measure; chart values are
// milliseconds and seconds, as the charts show them.
package analysis

import (
	"context"
	"errors"
	"fmt"

	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/results"
)

// Run is everything the analysis of one stored run starts from.
type Run struct {
	Detail    *results.RunDetail
	Intervals []results.IntervalRow
	Nodes     []results.Node      // the local cluster's nodes, if dbrig started one
	Metrics   []results.Metric    // per-second samples of the nodes and dbrig
	Headline  []results.RunMetric // the workload's headline metrics (tpmC), if any
	// Timeline is the per-operation timeline of a run with faults (nil
	// otherwise): RunImpacts computes unavailability and recovery from it.
	Timeline []results.TimedOp
	// Traffic is what each node's client proxy forwarded, per second, in a
	// run with faults (share.go).
	Traffic []results.NodeTraffic
	// Gauges are figures sampled from the system in a run with faults
	// (PostgreSQL replicas' lag; replication.go).
	Gauges []results.Gauge
	// WorkerIntervals are a distributed run's per-worker seconds (nil for
	// one process; workers.go).
	WorkerIntervals []results.WorkerInterval
	// Summary is the phase the tables show (see ShownPhase); nil without
	// phases. SummaryNote says why it is not a measure phase, if it is not.
	Summary     *measure.Summary
	SummaryNote string
}

// NewRun pairs a stored run with its intervals and picks the phase to show.
func NewRun(d *results.RunDetail, intervals []results.IntervalRow) Run {
	r := Run{Detail: d, Intervals: intervals}
	if s, note, ok := ShownPhase(d.Phases); ok {
		r.Summary, r.SummaryNote = &s, note
	}
	return r
}

// ShownPhase is the phase a summary of a run shows: the last measure phase,
// else (a load-only or interrupted run) the last phase of any name, with a
// note that says so. ok is false when there is no phase at all.
func ShownPhase(phases []measure.Summary) (s measure.Summary, note string, ok bool) {
	if s, ok := measure.Measured(phases); ok {
		return s, "", true
	}
	if n := len(phases); n > 0 {
		s := phases[n-1]
		return s, fmt.Sprintf("no measure phase was stored; showing the %s phase", s.Phase), true
	}
	return measure.Summary{}, "", false
}

// MeasurePhases are the phases a run's summary lists: its measure phases,
// or every phase when there is none (e.g. a load-only command).
func MeasurePhases(sums []measure.Summary) []measure.Summary {
	var out []measure.Summary
	for _, s := range sums {
		if s.Phase == measure.PhaseMeasure {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return sums
	}
	return out
}

// ReadRuns reads the runs from the store, in the given order. An unknown id
// is an error that wraps results.ErrNoRun and names the id.
func ReadRuns(ctx context.Context, store *results.Store, ids []int64) ([]Run, error) {
	if len(ids) == 0 {
		return nil, errors.New("no run ids given (expected at least one)")
	}
	seen := map[int64]bool{}
	var runs []Run
	for _, id := range ids {
		if seen[id] {
			return nil, fmt.Errorf("run %d is given twice", id)
		}
		seen[id] = true
		d, err := store.Run(ctx, id)
		if err != nil {
			return nil, err
		}
		ivs, err := store.Intervals(ctx, id)
		if err != nil {
			return nil, err
		}
		r := NewRun(d, ivs)
		if r.Nodes, err = store.Nodes(ctx, id); err != nil {
			return nil, err
		}
		if r.Metrics, err = store.Metrics(ctx, id); err != nil {
			return nil, err
		}
		if r.Headline, err = store.RunMetrics(ctx, id); err != nil {
			return nil, err
		}
		if len(d.Workers) > 0 {
			if r.WorkerIntervals, err = store.WorkerIntervals(ctx, id); err != nil {
				return nil, err
			}
		}
		if hasFaults(d) {
			if r.Timeline, err = store.Timeline(ctx, id); err != nil {
				return nil, err
			}
			if r.Traffic, err = store.NodeTraffic(ctx, id); err != nil {
				return nil, err
			}
			if r.Gauges, err = store.Gauges(ctx, id); err != nil {
				return nil, err
			}
		}
		runs = append(runs, r)
	}
	return runs, nil
}

// Set is one or more runs analysed together: what one report or one
// dashboard page of runs shows.
type Set struct {
	Runs   []Run
	Ops    []string // OVERALL first, then the operations in the order first seen
	Charts []Chart
	// Deltas compares every other run with the first, the base:
	// Deltas[i] is Runs[i+1] against Runs[0]. Nil with one run.
	Deltas []Delta
	// Workers diagnoses each distributed run's workers (workers.go): nil
	// at a run of one process. Their charts are in Charts too.
	Workers []*Workers
}

// Read reads the runs from the store and analyses them.
func Read(ctx context.Context, store *results.Store, ids []int64) (*Set, error) {
	runs, err := ReadRuns(ctx, store, ids)
	if err != nil {
		return nil, err
	}
	return Analyze(runs), nil
}

// Analyze computes the charts and deltas of loaded runs. With several runs
// every chart overlays them.
func Analyze(runs []Run) *Set {
	s := &Set{Runs: runs, Ops: opsOf(runs)}
	s.Charts = charts(runs, s.Ops)
	s.Workers = make([]*Workers, len(runs))
	for i, r := range runs {
		if w := WorkersOf(r); w != nil {
			s.Workers[i] = w
			s.Charts = append(s.Charts, w.Charts...)
		}
	}
	if len(runs) > 1 {
		for _, r := range runs[1:] {
			s.Deltas = append(s.Deltas, DiffRuns(runs[0], r))
		}
	}
	return s
}

// opsOf returns OVERALL then every operation in the order first seen in the
// summaries, then in the intervals.
func opsOf(runs []Run) []string {
	ops := []string{measure.OverallOp}
	seen := map[string]bool{measure.OverallOp: true}
	add := func(op string) {
		if !seen[op] {
			seen[op] = true
			ops = append(ops, op)
		}
	}
	for _, r := range runs {
		if r.Summary != nil {
			for _, o := range r.Summary.Ops {
				add(o.Op)
			}
		}
	}
	for _, r := range runs {
		for _, iv := range r.Intervals {
			add(iv.Op)
		}
	}
	return ops
}

// WithOverall returns the operations of a phase followed by its OVERALL row,
// named so even when the recorder left its Op empty.
func WithOverall(s measure.Summary) []measure.OpSummary {
	return append(append([]measure.OpSummary(nil), s.Ops...), Overall(s))
}

// Overall returns the OVERALL row of a phase, named OVERALL.
func Overall(s measure.Summary) measure.OpSummary {
	o := s.Overall
	o.Op = measure.OverallOp
	return o
}

// OpOf finds op (or OVERALL, which every phase has) in a phase summary.
func OpOf(s measure.Summary, op string) (measure.OpSummary, bool) {
	if op == measure.OverallOp {
		return Overall(s), true
	}
	for _, o := range s.Ops {
		if o.Op == op {
			return o, true
		}
	}
	return measure.OpSummary{}, false
}
