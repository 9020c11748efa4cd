package analysis

import (
	"strconv"
	"strings"
	"time"

	"github.com/dbrig/dbrig/loadmodel"
	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/results"
)

// Result is every figure a user reads of one stored run, computed once:
// the terminal (runs show), --json, runs export, the HTML report and the
// dashboard render it and compute nothing of their own. Latencies are µs,
// rates per second.
type Result struct {
	RunID         int64
	Name          string
	Status        string // as shown: "abandoned" for a silent running run
	Message       string // why the run ended so, if it says
	Start, End    time.Time
	Experiment    string            // the experiment file's name (bench runs)
	Matrix        map[string]string // the matrix values the run was made with (bench runs)
	Tags          []string
	System        string
	ServerVersion string
	Driver        string
	Target        string
	Workload      string
	Load          loadmodel.Load
	// LoadPhase is the load phase, nil without one.
	LoadPhase *LoadPhase
	// Phases are the phases the summary lists: the measure phases, or
	// every phase when there is none (a load-only run).
	Phases []PhaseResult
	// AllPhases are every stored phase, in order (warmup and load too).
	AllPhases []PhaseResult
	// Shown is the phase the tables and --json show (ShownPhase): nil
	// without phases; ShownNote says why it is not a measure phase.
	Shown     *PhaseResult
	ShownNote string
	// Headline are the workload's headline metrics, in stored order
	// (tpmC, the consistency result, …).
	Headline []HeadlineMetric
	// TpmC is TPC-C's New-Order transactions per minute (nil: not a TPC-C
	// run). Consistency is the workload's consistency checks after the run
	// (nil: none were made).
	TpmC        *float64
	Consistency *bool
	Impacts     []Impact
	Nodes       []NodeSummary
	Workers     *Workers // a distributed run's workers; nil for one process
}

// HeadlineMetric is one of a workload's headline metrics.
type HeadlineMetric struct {
	Name  string
	Value float64
	Unit  string
	Doc   string
}

// Headline metric names with a meaning of their own.
const (
	MetricTpmC        = "tpmc"
	MetricConsistency = "consistency_ok"
)

// Latency is a distribution of latencies in µs.
type Latency struct {
	Mean                               float64
	P50, P90, P95, P99, P999, Max, Min int64
}

func latencyOf(s measure.Stats) Latency {
	return Latency{Mean: s.Mean, P50: s.P50, P90: s.P90, P95: s.P95, P99: s.P99, P999: s.P999, Max: s.Max, Min: s.Min}
}

// OpResult is one operation (or OVERALL) of a phase.
type OpResult struct {
	Op         string
	Overall    bool
	Count      int64
	Errors     int64
	ErrorRate  float64 // Errors / Count; 0 without operations
	Classes    map[string]int64
	Throughput float64 // as package measure counts it, per second of the phase
	Response   Latency // from the intended start
	Service    Latency
}

// PhaseResult is one phase of a run.
type PhaseResult struct {
	Phase         string
	Start, End    time.Time
	DurationS     float64
	Ops           []OpResult // the operations in the workload's order, then OVERALL
	Records       int64      // load phase: records inserted
	Wanted        int64      // load phase: records the data set was to have
	RecordsPerSec float64    // load phase: Records per second of the phase
	Dropped, Late int64
	Lag           Latency // dispatch lag: dbrig's own lateness, inside the response times
	GeneratorLate bool
	StartWait     measure.StartWait
	Errors        []measure.ErrorSample
}

// Overall is the phase's OVERALL row.
func (p PhaseResult) Overall() OpResult {
	if n := len(p.Ops); n > 0 {
		return p.Ops[n-1]
	}
	return OpResult{Op: measure.OverallOp, Overall: true}
}

// Op finds an operation (or OVERALL) of the phase.
func (p PhaseResult) Op(name string) (OpResult, bool) {
	for _, o := range p.Ops {
		if o.Op == name {
			return o, true
		}
	}
	return OpResult{}, false
}

// LoadPhase is the load phase: how many records went in and how fast. Its
// operations are batches: the store holds each batch's latency, not each
// record's, so per-record latency is BatchLatency.Mean spread over the
// batch's records (MeanUSPerRecord), a mean and no distribution.
type LoadPhase struct {
	Records, Wanted int64
	Partial         bool // fewer records than wanted were loaded
	DurationS       float64
	RecordsPerSec   float64
	Batches         int64
	BatchesPerSec   float64
	BatchErrors     int64
	BatchErrorRate  float64
	RecordsPerBatch float64
	BatchLatency    Latency // per batch, µs
	MeanUSPerRecord float64 // BatchLatency.Mean / RecordsPerBatch
}

// NodeSummary is what one process of the run (a node, or dbrig itself) did,
// over its samples.
type NodeSummary struct {
	Node            string
	Samples         int
	CPUMeanPct      float64 // % of one core
	CPUMaxPct       float64
	RSSMaxBytes     uint64
	ReadBytes       uint64 // over the run
	WriteBytes      uint64
	CtxSwitches     uint64
	FDsMax          int
	MeanWriteBPS    float64 // WriteBytes per sampled second
	MeanCtxSwitchPS float64
}

// ResultOf computes the result of a run read by ReadRuns (or assembled in
// memory from what a run just did). Impacts are RunImpacts' when the run
// had faults; a caller holding impacts computed at the run's end may set
// them instead.
func ResultOf(r Run) Result {
	d := r.Detail
	res := Result{RunID: d.ID, Name: d.Name, Status: d.DisplayStatus(), Message: d.Message, Start: d.Start, End: d.End,
		Tags: d.Tags, System: d.System, ServerVersion: d.ServerVersion, Driver: d.Driver, Target: d.Info.Target,
		Workload: d.Workload, Load: d.Info.Load}
	if res.System == "" {
		res.System, res.Driver, res.Workload = d.Info.System, d.Info.Driver, d.Info.Workload
	}
	if len(res.Tags) == 0 {
		res.Tags = d.Info.Tags
	}
	res.Experiment, res.Matrix = benchOf(res.Name, res.Tags)
	// The store keeps a load phase's records only in its events.
	phases := append([]measure.Summary(nil), d.Phases...)
	for i, s := range phases {
		if s.Phase == measure.PhaseLoad && s.Records == 0 {
			phases[i].Records, phases[i].Wanted = storedRecords(d.Events)
		}
	}
	for _, s := range phases {
		res.AllPhases = append(res.AllPhases, PhaseOf(s))
		if s.Phase == measure.PhaseLoad && s.Records > 0 && res.LoadPhase == nil {
			lp := LoadPhaseOf(s)
			res.LoadPhase = &lp
		}
	}
	for _, s := range MeasurePhases(phases) {
		res.Phases = append(res.Phases, PhaseOf(s))
	}
	if s, note, ok := ShownPhase(phases); ok {
		p := PhaseOf(s)
		res.Shown, res.ShownNote = &p, note
	}
	for _, m := range r.Headline {
		res.Headline = append(res.Headline, HeadlineMetric{Name: m.Name, Value: m.Value, Unit: m.Unit, Doc: m.Doc})
		switch m.Name {
		case MetricTpmC:
			v := m.Value
			res.TpmC = &v
		case MetricConsistency:
			ok := m.Value == 1
			res.Consistency = &ok
		}
	}
	if hasFaults(d) {
		res.Impacts = RunImpacts(r)
	}
	res.Nodes = NodeSummaries(r.Metrics)
	res.Workers = WorkersOf(r)
	return res
}

// benchOf reads what `dbrig bench` stored of a run's experiment: its name
// in the "experiment:NAME" tag and its matrix values as the "key=value"
// words it appends to the run's name ("rep=N", the repetition, left out).
func benchOf(name string, tags []string) (string, map[string]string) {
	exp := ""
	for _, t := range tags {
		if v, ok := strings.CutPrefix(t, "experiment:"); ok {
			exp = v
		}
	}
	if exp == "" {
		return "", nil
	}
	m := map[string]string{}
	for _, w := range strings.Fields(strings.TrimPrefix(name, exp)) {
		if k, v, ok := strings.Cut(w, "="); ok && k != "" && k != "rep" {
			m[k] = v
		}
	}
	return exp, m
}

// storedRecords reads the records a load phase inserted (and the data set
// was to have) from its phase_end (and phase_start) events: the store's
// phases table has no column for them ("records=N" in the details).
func storedRecords(events []results.Event) (records, wanted int64) {
	num := func(detail string) int64 {
		for _, w := range strings.Fields(detail) {
			if v, ok := strings.CutPrefix(w, "records="); ok {
				n, err := strconv.ParseInt(v, 10, 64)
				if err == nil {
					return n
				}
			}
		}
		return 0
	}
	for _, e := range events {
		if e.Name != measure.PhaseLoad {
			continue
		}
		switch e.Kind {
		case "phase_start":
			wanted = num(e.Detail)
		case "phase_end":
			records = num(e.Detail)
		}
	}
	return records, wanted
}

// PhaseOf computes the figures of one phase: its operations, then OVERALL.
func PhaseOf(s measure.Summary) PhaseResult {
	p := PhaseResult{Phase: s.Phase, Start: s.Start, End: s.End, DurationS: s.End.Sub(s.Start).Seconds(),
		Records: s.Records, Wanted: s.Wanted, Dropped: s.Dropped, Late: s.Late,
		Lag: latencyOf(s.Lag), GeneratorLate: GeneratorLate(s), StartWait: s.StartWait(), Errors: s.Errors}
	if p.DurationS > 0 {
		p.RecordsPerSec = float64(s.Records) / p.DurationS
	}
	for _, o := range WithOverall(s) {
		p.Ops = append(p.Ops, opOf(o))
	}
	p.Ops[len(p.Ops)-1].Overall = true
	return p
}

func opOf(o measure.OpSummary) OpResult {
	r := OpResult{Op: o.Op, Count: o.Count, Errors: o.Errors, Classes: o.Classes, Throughput: o.Throughput,
		Response: latencyOf(o.Response), Service: latencyOf(o.Service)}
	if o.Count > 0 {
		r.ErrorRate = float64(o.Errors) / float64(o.Count)
	}
	return r
}

// LoadPhaseOf computes the figures of a load phase.
func LoadPhaseOf(s measure.Summary) LoadPhase {
	lp := LoadPhase{Records: s.Records, Wanted: s.Wanted, Partial: s.Wanted > s.Records,
		DurationS: s.End.Sub(s.Start).Seconds(), Batches: s.Overall.Count, BatchErrors: s.Overall.Errors,
		BatchLatency: latencyOf(s.Overall.Response)}
	if lp.DurationS > 0 {
		lp.RecordsPerSec = float64(s.Records) / lp.DurationS
		lp.BatchesPerSec = float64(lp.Batches) / lp.DurationS
	}
	if lp.Batches > 0 {
		lp.BatchErrorRate = float64(lp.BatchErrors) / float64(lp.Batches)
	}
	if ok := lp.Batches - lp.BatchErrors; ok > 0 {
		lp.RecordsPerBatch = float64(s.Records) / float64(ok)
		lp.MeanUSPerRecord = lp.BatchLatency.Mean / lp.RecordsPerBatch
	}
	return lp
}

// NodeSummaries sums up each process's samples, in the order first seen
// (dbrig itself last, as the charts have it).
func NodeSummaries(ms []results.Metric) []NodeSummary {
	var out []NodeSummary
	index := map[string]int{}
	cpuSum := map[string]float64{}
	for _, m := range ms {
		if m.Gone {
			continue
		}
		i, ok := index[m.Node]
		if !ok {
			i = len(out)
			index[m.Node] = i
			out = append(out, NodeSummary{Node: m.Node})
		}
		n := &out[i]
		cpu := m.CPUUser + m.CPUSys
		n.Samples++
		cpuSum[m.Node] += cpu
		n.CPUMaxPct = max(n.CPUMaxPct, cpu)
		n.RSSMaxBytes = max(n.RSSMaxBytes, m.RSS)
		n.ReadBytes += m.ReadBytes
		n.WriteBytes += m.WriteBytes
		n.CtxSwitches += m.CtxSwitches
		n.FDsMax = max(n.FDsMax, m.FDs)
	}
	for i := range out {
		n := &out[i]
		n.CPUMeanPct = cpuSum[n.Node] / float64(n.Samples)
		n.MeanWriteBPS = float64(n.WriteBytes) / float64(n.Samples)
		n.MeanCtxSwitchPS = float64(n.CtxSwitches) / float64(n.Samples)
	}
	// dbrig, the load generator, last: the system's nodes come first.
	for i, n := range out {
		if n.Node == "dbrig" && i < len(out)-1 {
			out = append(append(out[:i:i], out[i+1:]...), n)
			break
		}
	}
	return out
}
