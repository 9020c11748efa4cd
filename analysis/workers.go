package analysis

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"time"

	"github.com/dbrig/dbrig/format"
	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/results"
)

// Which worker of a distributed run fell behind. A worker falls behind when
// it completes less than BehindShare of what its share asked for (the
// target rate of an open model, or, without a target, what its clients
// would do at the pace of the other workers' clients), or when its
// dispatch lag p99 is above LagFactor times the other workers' median and
// above LagFloorUS: its generator started operations late.
const (
	BehindShare = 0.9
	LagFactor   = 3.0
	LagFloorUS  = 1000
)

// WorkerFigures are one worker's figures over the diagnosed phase.
type WorkerFigures struct {
	Index  int    `json:"index"`
	Host   string `json:"host"`
	PID    int    `json:"pid"`
	Status string `json:"status"`
	// LostAfter is when the coordinator noticed the loss, since the run's
	// start (nil unless lost or failed at a known time).
	LostAfter *time.Duration `json:"-"`
	LostAtS   *float64       `json:"lost_at_s,omitempty"`
	Detail    string         `json:"detail,omitempty"`
	Clients   int            `json:"clients"`
	Ops       int64          `json:"ops"`
	Errors    int64          `json:"errors"`
	Dropped   int64          `json:"dropped"`
	OpsPerSec float64        `json:"throughput"`
	// Target is the share's target rate (ops/s), the mean of its seconds'
	// in the phase; 0 without one.
	Target float64 `json:"target_rate"`
	// Expected is what the worker should have done (ops/s): Target, or
	// without one its clients at the other workers' pace; 0 if unknown.
	Expected    float64       `json:"expected_throughput"`
	RespP50US   int64         `json:"p50_us"`
	RespP99US   int64         `json:"p99_us"`
	LagP99US    int64         `json:"dispatch_lag_p99_us"`
	ClockOffset time.Duration `json:"-"`
	ClockUS     int64         `json:"clock_offset_us"`
	RTTUS       int64         `json:"clock_rtt_us"`
	Behind      bool          `json:"behind"`
	// Reasons say, one sentence each, why the worker is flagged (behind,
	// lost or failed); none for a worker that kept up.
	Reasons []string `json:"reasons,omitempty"`
}

// Workers is the diagnosis of a distributed run's workers.
type Workers struct {
	RunID   int64           `json:"run_id"`
	Phase   string          `json:"phase"` // the phase the figures are of
	Workers []WorkerFigures `json:"workers"`
	// Flags are every worker's reasons, in worker order: the sentences a
	// report shows first.
	Flags []string `json:"flags"`
	// Charts: throughput and response-time p99 per second, one line per
	// worker beside the merged one.
	Charts []Chart `json:"-"`
}

// WorkersChartIDs are the ids of a run's worker charts (throughput, p99).
func WorkersChartIDs(runID int64) (throughput, p99 string) {
	id := strconv.FormatInt(runID, 10)
	return "workers-throughput-" + id, "workers-p99-" + id
}

// WorkersOf diagnoses the workers of a distributed run: nil for a run of
// one process.
func WorkersOf(r Run) *Workers {
	d := r.Detail
	if d == nil || len(d.Workers) == 0 {
		return nil
	}
	// The phase: measure if any worker measured, else the last one seen.
	phase := ""
	for _, wi := range r.WorkerIntervals {
		if phase == "" || measure.PhaseRank(wi.Phase) > measure.PhaseRank(phase) {
			phase = wi.Phase
		}
	}
	if phase == "" {
		phase = measure.PhaseMeasure
	}
	// The phase's wall time, first start to last end, as the merged
	// summary has it (merged seconds overlap when a worker's seconds
	// stretch, so their lengths do not add up to it).
	secs := 0.0
	if s, ok := d.Phase(phase); ok {
		secs = s.End.Sub(s.Start).Seconds()
	}
	if secs <= 0 {
		for _, iv := range phaseRows(r.Intervals)[phase] {
			secs += iv.Length.Seconds()
		}
	}
	out := &Workers{RunID: d.ID, Phase: phase}
	byIdx := map[int]int{}
	for _, w := range d.Workers {
		f := WorkerFigures{Index: w.Index, Host: w.Host, PID: w.PID, Status: w.Status, Detail: w.Detail, Clients: w.Clients,
			ClockOffset: w.ClockOffset, ClockUS: w.ClockOffset.Microseconds(), RTTUS: w.RTT.Microseconds()}
		if !w.LostAt.IsZero() {
			at := w.LostAt.Sub(d.Start)
			s := math.Round(at.Seconds()*1000) / 1000
			f.LostAfter, f.LostAtS = &at, &s
		}
		if phase == measure.PhaseMeasure {
			f.RespP50US, f.RespP99US, f.LagP99US = w.RespP50, w.RespP99, w.LagP99
		}
		byIdx[w.Index] = len(out.Workers)
		out.Workers = append(out.Workers, f)
	}
	targetSum, seconds := make([]float64, len(out.Workers)), make([]int, len(out.Workers))
	for _, wi := range r.WorkerIntervals {
		i, ok := byIdx[wi.Index]
		if !ok || wi.Phase != phase {
			continue
		}
		f := &out.Workers[i]
		f.Ops += wi.Ops
		f.Errors += wi.Errors
		f.Dropped += wi.Dropped
		targetSum[i] += wi.TargetRate
		seconds[i]++
	}
	for i := range out.Workers {
		if secs > 0 {
			out.Workers[i].OpsPerSec = float64(out.Workers[i].Ops) / secs
		}
		if seconds[i] > 0 {
			out.Workers[i].Target = targetSum[i] / float64(seconds[i])
		}
	}
	diagnose(out.Workers)
	for _, f := range out.Workers {
		out.Flags = append(out.Flags, f.Reasons...)
	}
	out.Charts = workerCharts(r)
	return out
}

// diagnose sets Expected, Behind and Reasons of every worker.
func diagnose(ws []WorkerFigures) {
	kept := func(f WorkerFigures) bool {
		return f.Status == results.WorkerDone || f.Status == results.WorkerInterrupted
	}
	for i := range ws {
		f := &ws[i]
		switch f.Status {
		case results.WorkerLost, results.WorkerFailed:
			at := ""
			if f.LostAfter != nil {
				at = " at +" + format.Elapsed(*f.LostAfter)
			}
			detail := ""
			if f.Detail != "" {
				detail = " (" + f.Detail + ")"
			}
			f.Behind = true
			f.Reasons = append(f.Reasons, fmt.Sprintf("worker %d %s%s%s: its share is missing from the merged figures after that.",
				f.Index, map[string]string{results.WorkerLost: "was lost", results.WorkerFailed: "failed"}[f.Status], at, detail))
			continue
		}
		// What it should have done: its target, else its clients at the
		// others' pace.
		var othersRate float64
		var othersClients int
		var othersLag []float64
		for j, o := range ws {
			if j == i || !kept(o) {
				continue
			}
			othersRate += o.OpsPerSec
			othersClients += o.Clients
			othersLag = append(othersLag, float64(o.LagP99US))
		}
		why := ""
		switch {
		case f.Target > 0:
			f.Expected, why = f.Target, fmt.Sprintf("its share's target of %s ops/s", format.Rate(f.Target))
		case othersClients > 0 && f.Clients > 0:
			f.Expected = othersRate / float64(othersClients) * float64(f.Clients)
			why = fmt.Sprintf("the %s ops/s its %d clients would do at the other workers' pace", format.Rate(f.Expected), f.Clients)
		}
		if f.Expected > 0 && f.OpsPerSec < BehindShare*f.Expected {
			f.Behind = true
			f.Reasons = append(f.Reasons, fmt.Sprintf("worker %d fell behind: it completed %s ops/s, %.0f %% of %s.",
				f.Index, format.Rate(f.OpsPerSec), 100*f.OpsPerSec/f.Expected, why))
		}
		if len(othersLag) > 0 && f.LagP99US > LagFloorUS {
			med := Median(othersLag)
			if float64(f.LagP99US) > LagFactor*med {
				f.Behind = true
				than := "the other workers' median of " + format.Micros(med)
				if med > 0 {
					than = fmt.Sprintf("%.0f× %s", float64(f.LagP99US)/med, than)
				}
				f.Reasons = append(f.Reasons, fmt.Sprintf("worker %d's dispatch lag p99 is %s, %s: its load generator started operations late (a busy or slower host), which its response times include.",
					f.Index, format.MicrosInt(f.LagP99US), than))
			}
		}
	}
}

// phaseRows are the merged OVERALL rows of each phase, by start.
func phaseRows(ivs []results.IntervalRow) map[string][]results.IntervalRow {
	rows := map[string][]results.IntervalRow{}
	for _, iv := range ivs {
		if iv.Op == measure.OverallOp {
			rows[iv.Phase] = append(rows[iv.Phase], iv)
		}
	}
	for _, rs := range rows {
		sort.SliceStable(rs, func(i, j int) bool { return rs[i].Start.Before(rs[j].Start) })
	}
	return rows
}

// workerCharts draws each worker's seconds beside the merged ones.
func workerCharts(r Run) []Chart {
	tpID, p99ID := WorkersChartIDs(r.Detail.ID)
	r.Intervals = plotted(r.Intervals) // as the other time charts (series.go)
	runs := []Run{r}
	x := TimeAxis(runs)
	bands, marks := Events(runs)
	xmax := 0.0
	for _, v := range x {
		xmax = max(xmax, float64(v))
	}
	tp := Chart{ID: tpID, Kind: KindThroughput, Title: "throughput by worker", XLabel: "time since start (s)", YLabel: "ops/s",
		X: x, Bands: bands, Marks: marks, XMax: xmax}
	lat := Chart{ID: p99ID, Kind: KindLatency, Title: "response time p99 by worker", XLabel: "time since start (s)", YLabel: "latency (ms)",
		X: x, Bands: bands, Marks: marks, XMax: xmax}
	merged := opRows(r.Intervals, measure.OverallOp)
	xs := xsOf(r.Intervals)
	tp.Lines = append(tp.Lines, Line{Label: "all workers", Color: "#333333", Dash: true,
		Y: Align(x, merged, func(iv results.IntervalRow) Num { return perSecond(iv.Count, iv) }, xs)})
	lat.Lines = append(lat.Lines, Line{Label: "all workers", Color: "#333333", Dash: true,
		Y: Align(x, merged, msOf(func(iv results.IntervalRow) int64 { return iv.P99US }), nil)})
	rows := phaseRows(r.Intervals)
	for n, w := range r.Detail.Workers {
		tpY, latY := make([]Num, len(x)), make([]Num, len(x))
		for i := range x {
			tpY[i], latY[i] = Gap(), Gap()
		}
		at := map[float64]int{}
		for i, v := range x {
			at[float64(v)] = i
		}
		for _, wi := range r.WorkerIntervals {
			if wi.Index != w.Index || wi.Seq < 0 || wi.Seq >= len(rows[wi.Phase]) {
				continue
			}
			iv := rows[wi.Phase][wi.Seq]
			i, ok := at[second(iv)]
			if !ok {
				continue
			}
			tpY[i] = perSecond(wi.Ops, iv)
			if wi.Ops > 0 {
				latY[i] = Num(float64(wi.RespP99) / 1000)
			}
		}
		label := "worker " + strconv.Itoa(w.Index)
		tp.Lines = append(tp.Lines, Line{Label: label, Color: lineColor(n), Y: tpY})
		lat.Lines = append(lat.Lines, Line{Label: label + " p99", Color: lineColor(n), Y: latY})
	}
	if len(x) == 0 {
		tp.Note, lat.Note = noIntervals, noIntervals
	}
	return []Chart{tp, lat}
}
