package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/dbrig/dbrig/analysis"
	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/results"
)

// SchemaVersion is the version of the JSON documents of a run (run --json,
// runs show --json, bench --json's runs, runs export --format json), as
// docs/reference/schema/run.schema.json describes them. Keys are only ever
// added; a version is raised when one is.
const SchemaVersion = 2

// JSONStats are the figures of one operation in JSON output.
type JSONStats struct {
	Count      int64   `json:"count"`
	Errors     int64   `json:"errors"`
	ErrorRate  float64 `json:"error_rate"`
	Throughput float64 `json:"throughput"`
	MeanUS     float64 `json:"mean_us"`
	P50US      int64   `json:"p50_us"`
	P90US      int64   `json:"p90_us"`
	P95US      int64   `json:"p95_us"`
	P99US      int64   `json:"p99_us"`
	P999US     int64   `json:"p999_us"`
	MaxUS      int64   `json:"max_us"`
}

// JSONResult is the machine-readable result of a run: the phase it shows
// ("ops" holds response times — latency from the intended start —,
// "service" service times; both include an "OVERALL" entry), and since
// schema version 2 everything else analysis.Result holds.
type JSONResult struct {
	SchemaVersion int                  `json:"schema_version"`
	RunID         int64                `json:"run_id"`
	Status        string               `json:"status"`
	Phase         string               `json:"phase"`
	DurationS     float64              `json:"duration_s"`
	Dropped       int64                `json:"dropped"`
	Ops           map[string]JSONStats `json:"ops"`
	Service       map[string]JSONStats `json:"service"`
	// DispatchLag is dbrig's own lateness, inside the response times.
	DispatchLag JSONLag `json:"dispatch_lag"`
	// GeneratorLate says the lag is large against the latencies measured:
	// they are then partly the harness's.
	GeneratorLate bool `json:"generator_late"`
	// StartWait is the mean wait before the start, split (measure.StartWait).
	StartWait JSONStartWait `json:"start_wait"`

	// The run's identity and context.
	Message       string            `json:"message,omitempty"`
	Name          string            `json:"name,omitempty"`
	Experiment    string            `json:"experiment,omitempty"`
	Matrix        map[string]string `json:"matrix,omitempty"`
	Tags          []string          `json:"tags,omitempty"`
	System        string            `json:"system,omitempty"`
	ServerVersion string            `json:"server_version,omitempty"`
	Driver        string            `json:"driver,omitempty"`
	Target        string            `json:"target,omitempty"`
	Workload      string            `json:"workload,omitempty"`
	Load          *JSONLoadModel    `json:"load,omitempty"`
	StartedAt     *time.Time        `json:"started_at,omitempty"`
	EndedAt       *time.Time        `json:"ended_at,omitempty"`
	// ShownNote says why the phase shown is not a measure phase.
	ShownNote string `json:"phase_note,omitempty"`
	// LoadPhase is the load phase (null without one).
	LoadPhase *JSONLoadPhase `json:"load_phase"`
	// Phases are every measure phase (or every phase of a run without one).
	Phases []JSONPhase `json:"phases"`
	// Headline: the workload's headline metrics; also top-level numbers
	// under their names (see JSONRunWorkers).
	Headline    []JSONMetric     `json:"headline"`
	TpmC        *float64         `json:"tpmc,omitempty"`
	Consistency *JSONConsistency `json:"consistency,omitempty"`
	Impacts     []impactJSON     `json:"impacts"`
	NodeMetrics []JSONNode       `json:"node_metrics"`
}

// JSONStartWait is measure.StartWait in µs.
type JSONStartWait struct {
	MeanUS      float64 `json:"mean_us"`
	QueueMeanUS float64 `json:"queue_mean_us"`
	LagMeanUS   float64 `json:"lag_mean_us"`
}

// JSONLag is the dispatch lag of a phase, in µs.
type JSONLag struct {
	P50US int64 `json:"p50_us"`
	P99US int64 `json:"p99_us"`
	MaxUS int64 `json:"max_us"`
}

// JSONLoadModel is how the run scheduled its operations.
type JSONLoadModel struct {
	Model     string  `json:"model"`
	Clients   int     `json:"clients"`
	Rate      float64 `json:"rate"`
	Arrival   string  `json:"arrival,omitempty"`
	WarmupS   float64 `json:"warmup_s"`
	DurationS float64 `json:"duration_s"`
	Operation int64   `json:"operations"`
	Seed      int64   `json:"seed"`
}

// JSONLoadPhase is analysis.LoadPhase: per-batch latencies as stored, and
// the mean per record derived from them.
type JSONLoadPhase struct {
	Records         int64     `json:"records"`
	Wanted          int64     `json:"wanted"`
	Partial         bool      `json:"partial"`
	DurationS       float64   `json:"duration_s"`
	RecordsPerS     float64   `json:"records_per_s"`
	Batches         int64     `json:"batches"`
	BatchErrors     int64     `json:"batch_errors"`
	RecordsPerBatch float64   `json:"records_per_batch"`
	BatchLatency    JSONStats `json:"batch_latency"`
	MeanUSPerRecord float64   `json:"mean_us_per_record"`
}

// JSONPhase is one phase: the same blocks as the top level.
type JSONPhase struct {
	Phase         string               `json:"phase"`
	DurationS     float64              `json:"duration_s"`
	Dropped       int64                `json:"dropped"`
	Late          int64                `json:"late"`
	Ops           map[string]JSONStats `json:"ops"`
	Service       map[string]JSONStats `json:"service"`
	DispatchLag   JSONLag              `json:"dispatch_lag"`
	GeneratorLate bool                 `json:"generator_late"`
}

// JSONMetric is a headline metric.
type JSONMetric struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	Unit  string  `json:"unit,omitempty"`
	Doc   string  `json:"doc,omitempty"`
}

// JSONConsistency is the result of the workload's consistency checks.
type JSONConsistency struct {
	OK bool `json:"ok"`
}

// JSONNode is analysis.NodeSummary.
type JSONNode struct {
	Node            string  `json:"node"`
	Samples         int     `json:"samples"`
	CPUMeanPct      float64 `json:"cpu_mean_pct"`
	CPUMaxPct       float64 `json:"cpu_max_pct"`
	RSSMaxBytes     uint64  `json:"rss_max_bytes"`
	ReadBytes       uint64  `json:"read_bytes"`
	WriteBytes      uint64  `json:"write_bytes"`
	CtxSwitches     uint64  `json:"ctx_switches"`
	FDsMax          int     `json:"fds_max"`
	MeanWriteBPS    float64 `json:"write_bytes_per_s"`
	MeanCtxSwitchPS float64 `json:"ctx_switches_per_s"`
}

// JSON writes the last measure phase of sums (or the last phase when there
// is none, e.g. for a load-only run) as one JSON object.
func JSON(w io.Writer, runID int64, status string, sums []measure.Summary) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(Result(runID, status, sums))
}

// Result is the JSON form of a run known only by its phases, as JSON
// writes it.
func Result(runID int64, status string, sums []measure.Summary) JSONResult {
	return ResultJSON(analysis.ResultOf(MemoryRun(runID, status, sums, nil)))
}

// MemoryRun is a run that just ended, assembled from what it returned, for
// analysis.ResultOf.
func MemoryRun(runID int64, status string, sums []measure.Summary, ms []results.RunMetric) analysis.Run {
	d := &results.RunDetail{RunRow: results.RunRow{ID: runID, Status: status}, Phases: sums}
	r := analysis.NewRun(d, nil)
	r.Headline = ms
	return r
}

// ResultJSON is the JSON form of a run's result.
func ResultJSON(res analysis.Result) JSONResult {
	out := JSONResult{SchemaVersion: SchemaVersion, RunID: res.RunID, Status: res.Status,
		Ops: map[string]JSONStats{}, Service: map[string]JSONStats{},
		Message: res.Message, Name: res.Name, Experiment: res.Experiment, Matrix: res.Matrix, Tags: res.Tags,
		System: res.System, ServerVersion: res.ServerVersion, Driver: res.Driver, Target: res.Target, Workload: res.Workload,
		ShownNote: res.ShownNote, Phases: []JSONPhase{}, Headline: []JSONMetric{}, Impacts: []impactJSON{}, NodeMetrics: []JSONNode{},
		TpmC: res.TpmC}
	if s := res.Shown; s != nil {
		p := phaseJSON(*s)
		out.Phase, out.DurationS, out.Dropped, out.Ops, out.Service = p.Phase, p.DurationS, p.Dropped, p.Ops, p.Service
		out.DispatchLag, out.GeneratorLate = p.DispatchLag, p.GeneratorLate
		out.StartWait = JSONStartWait{MeanUS: s.StartWait.MeanUS, QueueMeanUS: s.StartWait.QueueMeanUS, LagMeanUS: s.StartWait.LagMeanUS}
	}
	if l := res.Load; l.Model != "" {
		out.Load = &JSONLoadModel{Model: l.Model, Clients: l.Clients, Rate: l.Rate, Arrival: l.Arrival,
			WarmupS: l.Warmup.Seconds(), DurationS: l.Duration.Seconds(), Operation: l.Operations, Seed: l.Seed}
	}
	if !res.Start.IsZero() {
		t := res.Start.UTC()
		out.StartedAt = &t
	}
	if !res.End.IsZero() {
		t := res.End.UTC()
		out.EndedAt = &t
	}
	if lp := res.LoadPhase; lp != nil {
		out.LoadPhase = &JSONLoadPhase{Records: lp.Records, Wanted: lp.Wanted, Partial: lp.Partial, DurationS: lp.DurationS,
			RecordsPerS: lp.RecordsPerSec, Batches: lp.Batches, BatchErrors: lp.BatchErrors, RecordsPerBatch: lp.RecordsPerBatch,
			BatchLatency: statsJSON(analysis.OpResult{Count: lp.Batches, Errors: lp.BatchErrors, Throughput: lp.BatchesPerSec, ErrorRate: lp.BatchErrorRate}, lp.BatchLatency), MeanUSPerRecord: lp.MeanUSPerRecord}
	}
	for _, p := range res.Phases {
		out.Phases = append(out.Phases, phaseJSON(p))
	}
	for _, m := range res.Headline {
		out.Headline = append(out.Headline, JSONMetric{Name: m.Name, Value: m.Value, Unit: m.Unit, Doc: m.Doc})
	}
	if res.Consistency != nil {
		out.Consistency = &JSONConsistency{OK: *res.Consistency}
	}
	for _, im := range res.Impacts {
		out.Impacts = append(out.Impacts, impactJSONOf(res.RunID, im))
	}
	for _, n := range res.Nodes {
		out.NodeMetrics = append(out.NodeMetrics, JSONNode{Node: n.Node, Samples: n.Samples, CPUMeanPct: n.CPUMeanPct, CPUMaxPct: n.CPUMaxPct,
			RSSMaxBytes: n.RSSMaxBytes, ReadBytes: n.ReadBytes, WriteBytes: n.WriteBytes, CtxSwitches: n.CtxSwitches, FDsMax: n.FDsMax,
			MeanWriteBPS: n.MeanWriteBPS, MeanCtxSwitchPS: n.MeanCtxSwitchPS})
	}
	return out
}

func phaseJSON(p analysis.PhaseResult) JSONPhase {
	out := JSONPhase{Phase: p.Phase, DurationS: p.DurationS, Dropped: p.Dropped, Late: p.Late,
		Ops: map[string]JSONStats{}, Service: map[string]JSONStats{},
		DispatchLag: JSONLag{P50US: p.Lag.P50, P99US: p.Lag.P99, MaxUS: p.Lag.Max}, GeneratorLate: p.GeneratorLate}
	for _, o := range p.Ops {
		out.Ops[o.Op] = statsJSON(o, o.Response)
		out.Service[o.Op] = statsJSON(o, o.Service)
	}
	return out
}

func statsJSON(o analysis.OpResult, st analysis.Latency) JSONStats {
	return JSONStats{Count: o.Count, Errors: o.Errors, ErrorRate: o.ErrorRate, Throughput: o.Throughput, MeanUS: st.Mean,
		P50US: st.P50, P90US: st.P90, P95US: st.P95, P99US: st.P99, P999US: st.P999, MaxUS: st.Max}
}

// impactJSONOf is one fault's cost as JSON.
func impactJSONOf(runID int64, im analysis.Impact) impactJSON {
	j := impactJSON{RunID: runID, Fault: im.Fault, Target: im.Detail, StartMS: im.Start.Milliseconds(), EndMS: im.End.Milliseconds(), NotFired: im.NotFired,
		BaselineP50US: im.Baseline.P50, BaselineP95US: im.Baseline.P95, BaselineP99US: im.Baseline.P99,
		FaultP50US: im.During.P50, FaultP95US: im.During.P95, FaultP99US: im.During.P99,
		AfterP50US: im.After.P50, AfterP95US: im.After.P95, AfterP99US: im.After.P99,
		ThroughputChangePct: im.ThroughputChangePct, Errors: im.During.Errors + im.After.Errors,
		UnavailableMS: im.UnavailableMS, RecoveryCut: im.RecoveryCut}
	if im.Recovery != nil {
		ms := im.Recovery.Milliseconds()
		j.RecoveryMS = &ms
	}
	for _, sh := range im.Shares {
		j.NodeShare = append(j.NodeShare, nodeShareJSON{Node: sh.Node, Baseline: math.Round(sh.Baseline*10) / 10,
			During: math.Round(sh.During*10) / 10, After: math.Round(sh.After*10) / 10})
	}
	for _, l := range im.Lags {
		lj := replicaLagJSON{Node: l.Node, NormalBytes: int64(l.Normal), MaxBytes: int64(l.Max)}
		if l.CaughtUp != nil {
			ms := l.CaughtUp.Milliseconds()
			lj.CaughtUpMS = &ms
		}
		j.ReplicaLag = append(j.ReplicaLag, lj)
	}
	return j
}

// WriteResultJSON writes a run's result as one JSON object: JSONResult
// (in its order), its workers' figures for a distributed run, and each
// headline metric as a top-level number under its name ("tpmc",
// "tpm_total", …) unless a key of the result has that name.
func WriteResultJSON(w io.Writer, res analysis.Result) error {
	b, err := json.Marshal(ResultJSON(res))
	if err != nil {
		return fmt.Errorf("json: %w", err)
	}
	taken := map[string]json.RawMessage{}
	if err := json.Unmarshal(b, &taken); err != nil {
		return fmt.Errorf("json: %w", err)
	}
	var extra bytes.Buffer
	add := func(key string, v any) error {
		if _, ok := taken[key]; ok {
			return nil // never hide a field of the result
		}
		raw, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("json: %s: %w", key, err)
		}
		k, _ := json.Marshal(key)
		taken[key] = raw
		extra.WriteByte(',')
		extra.Write(k)
		extra.WriteByte(':')
		extra.Write(raw)
		return nil
	}
	if res.Workers != nil {
		if err := add("workers", res.Workers); err != nil {
			return err
		}
	}
	for _, m := range res.Headline {
		if err := add(m.Name, m.Value); err != nil {
			return err
		}
	}
	doc := append(append(b[:len(b)-1:len(b)-1], extra.Bytes()...), '}')
	var out bytes.Buffer
	if err := json.Indent(&out, doc, "", "  "); err != nil {
		return fmt.Errorf("json: %w", err)
	}
	out.WriteByte('\n')
	_, err = w.Write(out.Bytes())
	return err
}
