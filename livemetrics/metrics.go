// Package livemetrics publishes a run's figures while it runs: as
// Prometheus/OpenMetrics text at /metrics (Serve) and pushed with the
// Prometheus remote-write protocol (RemoteWriter). It is fed the same
// per-second intervals and events as the progress line (it is a
// run.Observer), so it costs one histogram walk per operation type per
// second, off the operations' path.
package livemetrics

import (
	"maps"
	"regexp"
	"slices"
	"strconv"
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/nodestat"
	"github.com/dbrig/dbrig/run"
	"github.com/dbrig/dbrig/scenario"
)

// Run names the run whose figures follow; every series carries its
// RunID, and dbrig_run_info the rest.
type Run struct {
	RunID      string
	Experiment string            // the experiment's (bench's) name, the run's --name, or the command
	Workload   string            // e.g. workloada
	System     string            // the driver
	Matrix     map[string]string // matrix key → value of a bench run (labels matrix_KEY)
}

// maxRuns bounds the runs whose series are kept (a long bench): the oldest
// go first.
const maxRuns = 200

// Metrics holds the live figures of one process's runs. Its methods may be
// called from any goroutine; Interval and Event make it a run.Observer.
type Metrics struct {
	mu      sync.Mutex
	runs    []Run // oldest first; the last is the current one
	phase   string
	ops     map[opKey]*opState
	phases  map[phaseKey]*phaseState
	backlog float64
	target  float64
	faults  map[faultKey]uint64
	active  map[faultKey]bool // fault_start seen, fault_end not yet (Kind "")
	nodes   map[string]nodestat.Sample
	workers int
	seq     int // runs not stored (yet) are numbered
	layouts layouts

	reg *prometheus.Registry
}

type opKey struct{ run, phase, op string }

type opState struct {
	ok, failed uint64
	classes    map[string]uint64
	latency    *hist
}

type phaseKey struct{ run, phase string }

type phaseState struct {
	dropped uint64
	lag     *hist
}

type faultKey struct{ run, kind, name, outcome string }

// New returns empty live metrics, registered in their own registry.
func New() *Metrics {
	m := &Metrics{
		ops: map[opKey]*opState{}, phases: map[phaseKey]*phaseState{},
		faults: map[faultKey]uint64{}, active: map[faultKey]bool{}, nodes: map[string]nodestat.Sample{},
		workers: 1, layouts: layouts{},
		reg: prometheus.NewRegistry(),
	}
	m.reg.MustRegister(m)
	return m
}

// Registry is where the metrics are gathered from (and where a remote
// writer's own counters are registered).
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// BeginRun makes r the current run: what follows is labelled with it.
func (m *Metrics) BeginRun(r Run) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if n := len(m.runs); n > 0 && r.RunID != "" && m.runs[n-1].RunID == r.RunID {
		m.runs[n-1] = r // the same run, better described
		return
	}
	if r.RunID == "" {
		m.seq++
		r.RunID = "unstored-" + strconv.Itoa(m.seq) // until SetRunID
	}
	m.runs = append(m.runs, r)
	m.phase, m.backlog, m.target = "", 0, 0
	if len(m.runs) > maxRuns {
		m.forget(m.runs[0].RunID)
		m.runs = m.runs[1:]
	}
}

// SetRunID renames the current run once the store has given it an id.
func (m *Metrics) SetRunID(id string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.runs) == 0 {
		m.runs = append(m.runs, Run{RunID: id})
		return
	}
	cur := &m.runs[len(m.runs)-1]
	old := cur.RunID
	if old == id {
		return
	}
	cur.RunID = id
	rekey(m.ops, old, id, func(k opKey) (string, opKey) { r := k.run; k.run = id; return r, k })
	rekey(m.phases, old, id, func(k phaseKey) (string, phaseKey) { r := k.run; k.run = id; return r, k })
	rekey(m.faults, old, id, func(k faultKey) (string, faultKey) { r := k.run; k.run = id; return r, k })
	rekey(m.active, old, id, func(k faultKey) (string, faultKey) { r := k.run; k.run = id; return r, k })
}

func rekey[K comparable, V any](mp map[K]V, old, id string, f func(K) (string, K)) {
	for k, v := range mp {
		if r, nk := f(k); r == old {
			delete(mp, k)
			mp[nk] = v
		}
	}
}

// forget drops the series of a run (under mu).
func (m *Metrics) forget(id string) {
	maps.DeleteFunc(m.ops, func(k opKey, _ *opState) bool { return k.run == id })
	maps.DeleteFunc(m.phases, func(k phaseKey, _ *phaseState) bool { return k.run == id })
	maps.DeleteFunc(m.faults, func(k faultKey, _ uint64) bool { return k.run == id })
	maps.DeleteFunc(m.active, func(k faultKey, _ bool) bool { return k.run == id })
}

// SetWorkers sets the number of worker processes the run is spread over.
func (m *Metrics) SetWorkers(n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.workers = n
}

// Node records a node's process sample (nodestat).
func (m *Metrics) Node(s nodestat.Sample) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s.Gone {
		delete(m.nodes, s.Node)
		return
	}
	m.nodes[s.Node] = s
}

// current is the current run's id (under mu).
func (m *Metrics) current() string {
	if len(m.runs) == 0 {
		m.seq++
		m.runs = append(m.runs, Run{RunID: "unstored-" + strconv.Itoa(m.seq)})
	}
	return m.runs[len(m.runs)-1].RunID
}

// Interval implements run.Observer: it adds one interval's figures.
func (m *Metrics) Interval(iv measure.Interval) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := m.current()
	for _, o := range iv.Ops {
		k := opKey{r, iv.Phase, o.Op}
		s := m.ops[k]
		if s == nil {
			s = &opState{classes: map[string]uint64{}, latency: newHist()}
			m.ops[k] = s
		}
		s.ok += uint64(o.Count - o.Errors)
		s.failed += uint64(o.Errors)
		for c, n := range o.Classes {
			s.classes[c] += uint64(n)
		}
		s.latency.addHDR(o.Response, m.layouts)
	}
	pk := phaseKey{r, iv.Phase}
	ps := m.phases[pk]
	if ps == nil {
		ps = &phaseState{lag: newHist()}
		m.phases[pk] = ps
	}
	ps.dropped += uint64(iv.Dropped)
	if iv.Phase != measure.PhaseLoad { // a load batch has no schedule to lag behind
		ps.lag.addHDR(iv.Lag, m.layouts)
	}
	m.phase, m.backlog, m.target = iv.Phase, float64(iv.Backlog), iv.TargetRate
}

// Event implements run.Observer: phases and faults.
func (m *Metrics) Event(ev run.Event) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := m.current()
	switch ev.Kind {
	case run.EventPhaseStart:
		m.phase = ev.Name
	case scenario.EventFault, scenario.EventFaultStart, scenario.EventFaultEnd:
		m.faults[faultKey{r, ev.Kind, ev.Name, outcomeClass(ev.Outcome)}]++
		switch ev.Kind {
		case scenario.EventFaultStart:
			m.active[faultKey{run: r, name: ev.Name}] = true
		case scenario.EventFaultEnd:
			delete(m.active, faultKey{run: r, name: ev.Name})
		}
	}
}

// outcomeClass keeps a fault's outcome to a few label values: "failed: why"
// becomes "failed".
func outcomeClass(o string) string {
	if len(o) >= 6 && o[:6] == "failed" {
		return "failed"
	}
	return o
}

var (
	opLabels    = []string{"run_id", "phase", "op"}
	dOps        = prometheus.NewDesc("dbrig_operations_total", "Operations completed, by result (success or error).", append(slices.Clone(opLabels), "result"), nil)
	dErrors     = prometheus.NewDesc("dbrig_operation_errors_total", "Failed operations by error class (package errclass).", append(slices.Clone(opLabels), "class"), nil)
	dLatency    = prometheus.NewDesc("dbrig_operation_latency_seconds", "Response time: end minus intended start (no coordinated omission).", opLabels, nil)
	dLag        = prometheus.NewDesc("dbrig_dispatch_lag_seconds", "How much later than it could have dbrig started each operation.", []string{"run_id", "phase"}, nil)
	dDropped    = prometheus.NewDesc("dbrig_dropped_operations_total", "Open model: operations dropped at the backlog limit or not started by the phase's end.", []string{"run_id", "phase"}, nil)
	dBacklog    = prometheus.NewDesc("dbrig_backlog_operations", "Open model: operations waiting for a client.", []string{"run_id"}, nil)
	dTarget     = prometheus.NewDesc("dbrig_target_ops_per_second", "The rate the load model asks for (0: as fast as possible).", []string{"run_id"}, nil)
	dPhase      = prometheus.NewDesc("dbrig_phase", "1 for the phase the run is in, 0 for the others.", []string{"run_id", "phase"}, nil)
	dFaults     = prometheus.NewDesc("dbrig_fault_events_total", "Fault events (fault, fault_start, fault_end) by fault name and outcome.", []string{"run_id", "kind", "fault", "outcome"}, nil)
	dActive     = prometheus.NewDesc("dbrig_fault_active", "1 while a fault with a duration is in force.", []string{"run_id", "fault"}, nil)
	dNodeCPU    = prometheus.NewDesc("dbrig_node_cpu_ratio", "CPU of a node dbrig started (its process tree) and of dbrig itself, in cores.", []string{"node", "mode"}, nil)
	dNodeRSS    = prometheus.NewDesc("dbrig_node_memory_rss_bytes", "Resident memory of a node dbrig started (its process tree) and of dbrig itself.", []string{"node"}, nil)
	dWorkers    = prometheus.NewDesc("dbrig_workers", "Worker processes the run is spread over (1: this process alone).", nil, nil)
	labelRegexp = regexp.MustCompile(`[^a-zA-Z0-9_]`)
)

// Describe implements prometheus.Collector. It describes nothing: the run
// info's label names follow the runs' matrix keys (an unchecked collector).
func (m *Metrics) Describe(chan<- *prometheus.Desc) {}

// Collect implements prometheus.Collector: a snapshot under the lock.
func (m *Metrics) Collect(ch chan<- prometheus.Metric) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for k, s := range m.ops {
		emit(ch, dOps, prometheus.CounterValue, float64(s.ok), k.run, k.phase, k.op, "success")
		emit(ch, dOps, prometheus.CounterValue, float64(s.failed), k.run, k.phase, k.op, "error")
		for c, n := range s.classes {
			emit(ch, dErrors, prometheus.CounterValue, float64(n), k.run, k.phase, k.op, c)
		}
		ch <- s.latency.metric(dLatency, k.run, k.phase, k.op)
	}
	for k, s := range m.phases {
		emit(ch, dDropped, prometheus.CounterValue, float64(s.dropped), k.run, k.phase)
		if k.phase != measure.PhaseLoad {
			ch <- s.lag.metric(dLag, k.run, k.phase)
		}
	}
	for k, n := range m.faults {
		emit(ch, dFaults, prometheus.CounterValue, float64(n), k.run, k.kind, k.name, k.outcome)
	}
	for k := range m.active {
		emit(ch, dActive, prometheus.GaugeValue, 1, k.run, k.name)
	}
	for _, s := range m.nodes {
		emit(ch, dNodeCPU, prometheus.GaugeValue, s.UserPct/100, s.Node, "user")
		emit(ch, dNodeCPU, prometheus.GaugeValue, s.SystemPct/100, s.Node, "system")
		emit(ch, dNodeRSS, prometheus.GaugeValue, float64(s.RSS), s.Node)
	}
	emit(ch, dWorkers, prometheus.GaugeValue, float64(m.workers))
	if len(m.runs) == 0 {
		return
	}
	cur := m.runs[len(m.runs)-1].RunID
	emit(ch, dBacklog, prometheus.GaugeValue, m.backlog, cur)
	emit(ch, dTarget, prometheus.GaugeValue, m.target, cur)
	for _, p := range measure.Phases() {
		v := 0.0
		if p == m.phase {
			v = 1
		}
		emit(ch, dPhase, prometheus.GaugeValue, v, cur, p)
	}
	m.collectInfo(ch)
}

// collectInfo writes dbrig_run_info, one series per run, with the union of
// the runs' matrix keys as labels (a family has one set of label names).
func (m *Metrics) collectInfo(ch chan<- prometheus.Metric) {
	keys := map[string]string{} // label → matrix key
	for _, r := range m.runs {
		for k := range r.Matrix {
			keys[MatrixLabel(k)] = k
		}
	}
	labels := slices.Sorted(maps.Keys(keys))
	desc := prometheus.NewDesc("dbrig_run_info", "The runs this process performed: experiment, workload, system and matrix values.",
		append([]string{"run_id", "experiment", "workload", "system"}, labels...), nil)
	for _, r := range m.runs {
		vals := []string{r.RunID, r.Experiment, r.Workload, r.System}
		for _, l := range labels {
			vals = append(vals, r.Matrix[keys[l]])
		}
		emit(ch, desc, prometheus.GaugeValue, 1, vals...)
	}
}

// MatrixLabel is the label a matrix key is shown under: matrix_ and the key
// with every character a label name may not hold as '_'.
func MatrixLabel(key string) string {
	return "matrix_" + labelRegexp.ReplaceAllString(key, "_")
}

// emit sends one constant metric; a label value the client library refuses
// (not UTF-8) loses that series, never the process.
func emit(ch chan<- prometheus.Metric, d *prometheus.Desc, t prometheus.ValueType, v float64, labels ...string) {
	if mt, err := prometheus.NewConstMetric(d, t, v, labels...); err == nil {
		ch <- mt
	}
}
