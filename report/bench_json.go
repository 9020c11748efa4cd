package report

import (
	"context"
	"encoding/json"
	"io"
	"math"

	"github.com/dbrig/dbrig/analysis"
	"github.com/dbrig/dbrig/experiment"
	"github.com/dbrig/dbrig/results"
)

// benchJSON is `dbrig bench --json`: the experiment, each run with its
// matrix values and the same ops/service blocks as `dbrig run --json`.
type benchJSON struct {
	Experiment string         `json:"experiment"`
	File       string         `json:"file"`
	Runs       []benchRunJSON `json:"runs"`
	Nodes      []nodeJSON     `json:"nodes"`
	Events     []eventJSON    `json:"events"`
	Impacts    []impactJSON   `json:"impacts"`
	// Comparison sets the runs side by side, one entry per matrix
	// combination (BenchComparison; the table bench ends with).
	Comparison []comparisonJSON `json:"comparison"`
}

// comparisonJSON is one matrix combination over its repeats.
type comparisonJSON struct {
	Group           string             `json:"group"` // e.g. "system=redis"; "" without a matrix
	Runs            []int64            `json:"runs"`  // the runs counted (done, with a measure phase)
	NotCounted      []notCountedJSON   `json:"not_counted"`
	ThroughputRatio *float64           `json:"throughput_ratio"` // median OVERALL ops/s over the first group's; null: none
	Ops             []comparisonOpJSON `json:"ops"`              // OVERALL first; operations the group never ran left out
	// Headline are the workload's headline metrics (tpmC, points/s, …).
	Headline []comparisonHeadlineJSON `json:"headline"`
}

type comparisonHeadlineJSON struct {
	Name  string   `json:"name"`
	Unit  string   `json:"unit"`
	Value statJSON `json:"value"`
}

type notCountedJSON struct {
	RunID int64  `json:"run_id"` // 0: the run never started
	Why   string `json:"why"`
}

type comparisonOpJSON struct {
	Op         string   `json:"op"`
	Throughput statJSON `json:"throughput"` // ops/s
	P50US      statJSON `json:"p50_us"`
	P99US      statJSON `json:"p99_us"`
	Errors     statJSON `json:"errors"`
	ErrorPct   statJSON `json:"error_pct"` // errors per 100 operations
}

// statJSON is a figure over a group's runs: its median and range.
type statJSON struct {
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	N      int     `json:"n"` // runs the figure is of
}

func comparisonOf(c analysis.BenchComparison) []comparisonJSON {
	out := []comparisonJSON{}
	stat := func(s analysis.Stat) statJSON { return statJSON{Median: s.Median, Min: s.Min, Max: s.Max, N: s.N} }
	for _, r := range c.Rows {
		j := comparisonJSON{Group: r.Group, Runs: append([]int64{}, r.Runs...), NotCounted: []notCountedJSON{}, Ops: []comparisonOpJSON{}, Headline: []comparisonHeadlineJSON{}}
		for _, h := range r.Headline {
			if h.Value.N > 0 {
				j.Headline = append(j.Headline, comparisonHeadlineJSON{Name: h.Name, Unit: h.Unit, Value: stat(h.Value)})
			}
		}
		if r.ThroughputRatio > 0 {
			ratio := r.ThroughputRatio
			j.ThroughputRatio = &ratio
		}
		for _, l := range r.Left {
			j.NotCounted = append(j.NotCounted, notCountedJSON{RunID: l.RunID, Why: l.Why})
		}
		for _, op := range r.Ops {
			if op.Throughput.N == 0 {
				continue
			}
			j.Ops = append(j.Ops, comparisonOpJSON{Op: op.Op, Throughput: stat(op.Throughput), P50US: stat(op.P50US),
				P99US: stat(op.P99US), Errors: stat(op.Errors), ErrorPct: stat(op.ErrorRatePct)})
		}
		out = append(out, j)
	}
	return out
}

type nodeJSON struct {
	RunID   int64          `json:"run_id"`
	Name    string         `json:"name"`
	Role    string         `json:"role"`
	PID     int            `json:"pid"`
	Ports   map[string]int `json:"ports"`
	Version string         `json:"version"`
}

// eventJSON is a fault event; times are relative to the measure phase's start.
type eventJSON struct {
	RunID   int64  `json:"run_id"`
	Kind    string `json:"kind"`
	Name    string `json:"name"`
	Target  string `json:"target"`
	StartMS int64  `json:"start_ms"`
	EndMS   int64  `json:"end_ms"`
	Outcome string `json:"outcome"`
	Detail  string `json:"detail"`
}

// impactJSON is one fault's cost; latencies in µs, times in ms since the
// run's start; recovery_ms is null when the system did not recover.
type impactJSON struct {
	RunID               int64   `json:"run_id"`
	Fault               string  `json:"fault"`
	Target              string  `json:"target"`
	StartMS             int64   `json:"start_ms"`
	EndMS               int64   `json:"end_ms"`
	BaselineP50US       int64   `json:"baseline_p50_us"`
	BaselineP95US       int64   `json:"baseline_p95_us"`
	BaselineP99US       int64   `json:"baseline_p99_us"`
	FaultP50US          int64   `json:"fault_p50_us"`
	FaultP95US          int64   `json:"fault_p95_us"`
	FaultP99US          int64   `json:"fault_p99_us"`
	AfterP50US          int64   `json:"after_p50_us"`
	AfterP95US          int64   `json:"after_p95_us"`
	AfterP99US          int64   `json:"after_p99_us"`
	ThroughputChangePct float64 `json:"throughput_change_pct"`
	Errors              int64   `json:"errors"`
	UnavailableMS       int64   `json:"unavailable_ms"`
	RecoveryMS          *int64  `json:"recovery_ms"`
	// RecoveryCut: why recovery_ms is null — "next fault", "end of run" or
	// "never calm" (analysis.Impact.RecoveryCut).
	RecoveryCut string `json:"recovery_cut,omitempty"`
	// NotFired: the fault failed to fire; its figures are all zero and mean
	// nothing, and it fails every verdict.
	NotFired bool `json:"not_fired,omitempty"`
	// NodeShare: each node's % of the client traffic (bytes through
	// dbrig's proxy in front of it) before, during and after; −1: none.
	NodeShare []nodeShareJSON `json:"node_share,omitempty"`
	// ReplicaLag: each PostgreSQL replica's replication lag around it.
	ReplicaLag []replicaLagJSON `json:"replica_lag,omitempty"`
}

type replicaLagJSON struct {
	Node        string `json:"node"`
	NormalBytes int64  `json:"normal_bytes"` // the most it lagged before the first fault
	MaxBytes    int64  `json:"max_bytes"`
	CaughtUpMS  *int64 `json:"caught_up_ms"` // after the fault ended; null: not in the window
}

type nodeShareJSON struct {
	Node     string  `json:"node"`
	Baseline float64 `json:"baseline_pct"`
	During   float64 `json:"fault_pct"`
	After    float64 `json:"after_pct"`
}

type benchRunJSON struct {
	JSONResult
	Name   string            `json:"name"`
	Matrix map[string]string `json:"matrix"`
	Repeat int               `json:"repeat"`
	Error  string            `json:"error,omitempty"`
	// LostWrites is the read-back of a verify: true run (absent otherwise).
	LostWrites *lostWritesJSON `json:"lost_writes,omitempty"`
	// Verdicts are the experiment's verdicts on each fault of the run, on
	// the figures of its impacts (absent without faults or verdicts).
	Verdicts []verdictJSON `json:"verdicts,omitempty"`
}

// verdictJSON is one verdict on one fault (analysis.Judgement).
type verdictJSON struct {
	Fault   string `json:"fault"`
	Verdict string `json:"verdict"` // as written, e.g. "unavailable < 2s"
	Metric  string `json:"metric"`
	// Value is the figure in the verdict metric's unit (seconds, percent
	// or a count; docs/reference/verdicts.md); null when it could not be
	// measured or the fault did not fire. Shown is it as the table prints it.
	Value *float64 `json:"value"`
	Shown string   `json:"shown"`
	// Result: pass, fail or skipped (not measured, "if measured").
	Result     string `json:"result"`
	Unmeasured string `json:"unmeasured,omitempty"` // why there is no figure
}

// verdictsJSON judges the run's impacts by the experiment's verdicts, as
// the terminal does (BenchRun).
func verdictsJSON(o experiment.BenchOutcome, impacts []analysis.Impact) []verdictJSON {
	var out []verdictJSON
	for _, j := range analysis.Judge(impacts, limitsOf(o.Run.Exp.Verdicts)) {
		v := verdictJSON{Fault: j.Fault, Verdict: j.Limit.Text, Metric: j.Limit.Metric, Result: "pass", Unmeasured: j.Unmeasured}
		switch {
		case !j.Pass:
			v.Result = "fail"
		case j.Unmeasured != "":
			v.Result = "skipped"
		}
		switch {
		case math.IsNaN(j.Got):
			v.Unmeasured, v.Shown = "the fault did not fire", "the fault did not fire"
		case j.Over:
			v.Shown = j.Note
		case j.Unmeasured != "":
			v.Shown = "not measured: " + j.Unmeasured
		default:
			got := j.Got
			v.Value, v.Shown = &got, analysis.Quantity(j.Limit.Metric, j.Got)
		}
		out = append(out, v)
	}
	return out
}

type lostWritesJSON struct {
	InsertsAcked       int64 `json:"inserts_acked"`
	DeletesAcked       int64 `json:"deletes_acked"`
	Uncertain          int64 `json:"uncertain"`
	LostInserts        int64 `json:"lost_inserts"`
	ResurrectedDeletes int64 `json:"resurrected_deletes"`
	Unreadable         int64 `json:"unreadable"`
}

// StoredRunJSON prints dbrig runs show --json: the stored run's result
// and, for a distributed run, its workers' figures and flags.
func StoredRunJSON(ctx context.Context, w io.Writer, store *results.Store, id int64) error {
	runs, err := analysis.ReadRuns(ctx, store, []int64{id})
	if err != nil {
		return err
	}
	return RunJSON(w, runs[0])
}

// BenchJSON writes `dbrig bench --json`: the experiment, each run with its
// matrix values and its result, nodes, fault events and impacts.
func BenchJSON(w io.Writer, b *experiment.Bench, outs []experiment.BenchOutcome) error {
	doc := benchJSON{Experiment: b.Name, File: b.File, Runs: []benchRunJSON{}, Nodes: []nodeJSON{}, Events: []eventJSON{}, Impacts: []impactJSON{}}
	for _, o := range outs {
		r := benchRunJSON{JSONResult: ResultJSON(analysis.Result{}), Name: o.Run.Plan.Name, Matrix: map[string]string{}, Repeat: o.Run.Repeat}
		for _, m := range o.Run.Exp.Matrix {
			r.Matrix[m.Key] = m.Value
		}
		if o.Outcome != nil {
			id := o.Outcome.RunID
			r.JSONResult = ResultJSON(analysis.ResultOf(MemoryRun(id, o.Outcome.Status, o.Outcome.Phases, o.Outcome.Metrics)))
			if v := o.Outcome.Verify; v != nil {
				r.LostWrites = &lostWritesJSON{InsertsAcked: v.InsertsAcked, DeletesAcked: v.DeletesAcked, Uncertain: v.Uncertain,
					LostInserts: v.LostInserts, ResurrectedDeletes: v.ResurrectedDeletes, Unreadable: v.Unreadable}
			}
			for _, n := range o.Outcome.Nodes {
				doc.Nodes = append(doc.Nodes, nodeJSON{RunID: id, Name: n.Name, Role: n.Role, PID: n.PID, Ports: n.Ports, Version: n.Version})
			}
			t0 := o.Outcome.PhaseStarts["measure"]
			for i, ev := range o.Outcome.Faults {
				if ev.Kind == experiment.EventFaultEnd {
					continue // joined to its start below
				}
				start := ev.Time.Sub(t0).Milliseconds()
				j := eventJSON{RunID: id, Kind: "fault", Name: ev.Name, Target: ev.Detail, StartMS: start, EndMS: start, Outcome: ev.Outcome, Detail: ev.Detail}
				for _, end := range o.Outcome.Faults[i+1:] {
					if ev.Kind == experiment.EventFaultStart && end.Kind == experiment.EventFaultEnd && end.Name == ev.Name {
						j.EndMS, j.Outcome = end.Time.Sub(t0).Milliseconds(), ev.Outcome+", "+end.Outcome
						break
					}
				}
				doc.Events = append(doc.Events, j)
			}
			var impacts []analysis.Impact
			if len(o.Outcome.Faults) > 0 {
				impacts = o.Outcome.Impacts
			}
			for _, im := range impacts {
				doc.Impacts = append(doc.Impacts, impactJSONOf(id, im))
			}
			r.JSONResult.Impacts = []impactJSON{}
			for _, im := range impacts {
				r.JSONResult.Impacts = append(r.JSONResult.Impacts, impactJSONOf(id, im))
			}
			r.Verdicts = verdictsJSON(o, impacts)
		}
		if o.Err != nil {
			r.Error = o.Err.Error()
		}
		doc.Runs = append(doc.Runs, r)
	}
	doc.Comparison = comparisonOf(BenchComparison(outs))
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}
