package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/dbrig/dbrig/analysis"
	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/experiment"
	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/report"
	"github.com/dbrig/dbrig/results"
	"github.com/dbrig/dbrig/run"
	"github.com/dbrig/dbrig/spec"
)

// benchCmd: dbrig bench FILE.yaml [--dry-run] [--set k=v]… [--json]
func benchCmd(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("dbrig bench", e.stderr)
	var sets listFlag
	fs.Var(&sets, "set", "override a value of the file: key.path=value (e.g. load.duration=5s, clients=4); repeatable")
	dry := fs.Bool("dry-run", false, "print the resolved plan (every run) and exit")
	yes := fs.Bool("yes", false, fmt.Sprintf("allow more than %d runs", experiment.MaxRunsWithoutConfirm))
	store := fs.String("store", "", "results database: a SQLite path or postgres://… (default: per-user data path)")
	hdrlog := fs.String("hdrlog", "", "also write an HdrHistogram interval log per run (numbered after the first)")
	force := fs.Bool("force", false, "--hdrlog may replace existing files dbrig did not write (never a database)")
	jsonOut := fs.Bool("json", false, "print one JSON document with every run on stdout (tables go to stderr)")
	quiet := fs.Bool("quiet", false, "no live progress line")
	replay := fs.Int64("replay", 0, "run the exact fault plan and seed of this stored run again (FILE: default the run's own experiment file)")
	cpus := fs.String("cpus", "", cpusUsage+" (system.cluster.cpus)")
	pos, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return errHelp
	}
	if err != nil {
		return &usageError{msg: err.Error()}
	}
	if err := pinSelf(*cpus); err != nil {
		return err
	}
	if len(pos) != 1 && !(*replay > 0 && len(pos) == 0) {
		return usagef("dbrig bench: expected one experiment file (see examples/)")
	}
	bo := experiment.BenchOptions{Sets: sets, Store: *store, HDRLog: *hdrlog, Yes: *yes, Force: *force}
	var b *experiment.Bench
	if *replay > 0 {
		b, err = experiment.ReplayBench(ctx, strings.Join(pos, ""), *replay, bo)
	} else {
		b, err = experiment.ResolveBench(pos[0], bo)
	}
	if err != nil {
		return err
	}
	if b.Runs[0].Exp.Rate != nil && *replay == 0 {
		return benchRating(ctx, e, b, *store, *jsonOut, *quiet, *dry) // ratefile.go
	}
	slas, err := benchSLAs(b) // ratefile.go
	if err != nil {
		return err
	}
	if *dry {
		printPlan(e.stdout, b)
		return nil
	}
	table := e.stdout
	if *jsonOut {
		table = e.stderr
	}
	var prog *progress
	hooks := experiment.Hooks{
		Warn: func(err error) { fmt.Fprintf(e.stderr, "\nwarning: %v\n", err) },
		ClusterUp: func(nodes []cluster.Node) {
			for _, n := range nodes {
				fmt.Fprintf(e.stderr, "node %-10s %-8s pid %-7d %s  log %s\n", n.Name, n.Role, n.PID, n.Addr, n.Log)
			}
		},
		OnWorkers: benchOnWorkers(e), // workers: N in the file (worker.go)
	}
	stale := newBenchStale(slas) // ratefile.go
	hooks.WrapDB = stale.wrap
	outs, runErr := b.Execute(ctx, hooks, func(i int, r experiment.BenchRun) {
		stale.cur = r.Plan
		fmt.Fprintf(e.stderr, "\n== %s: run %d of %d %s\n", b.Name, i+1, len(b.Runs), r.Label())
		if *quiet {
			return
		}
		prog.close()
		prog = newProgress(e.stderr, map[string]bound{
			measure.PhaseLoad:    {ops: r.Plan.LoadOps()},
			measure.PhaseWarmup:  {dur: r.Plan.Config.Warmup},
			measure.PhaseMeasure: {ops: r.Plan.Config.Operations, dur: r.Plan.Config.Duration},
		})
		hooks.Observer = prog
	})
	prog.close()
	interrupted := false
	impacts := map[int64][]analysis.Impact{}
	var failedVerdicts []string
	for _, o := range outs {
		if o.Outcome == nil {
			continue
		}
		fmt.Fprintln(table)
		report.Summary(table, report.Header{RunID: o.Outcome.RunID, Name: o.Run.Plan.Name, System: o.Run.Plan.Driver,
			Workload: o.Run.Plan.WorkloadName(), Status: o.Outcome.Status}, o.Outcome.Phases)
		if len(o.Outcome.Faults) > 0 {
			ims := o.Outcome.Impacts
			impacts[o.Outcome.RunID] = ims
			report.Impacts(table, ims)
			for _, j := range analysis.Judge(ims, limitsOf(o.Run.Exp.Verdicts)) {
				fmt.Fprintf(table, "  verdict %s\n", j)
				if !j.Pass {
					failedVerdicts = append(failedVerdicts, fmt.Sprintf("run %d %s", o.Outcome.RunID, j))
				}
			}
		}
		if v := o.Outcome.Verify; v != nil {
			printVerify(table, *v)
			if v.Lost() > 0 {
				failedVerdicts = append(failedVerdicts, fmt.Sprintf("run %d lost %d acknowledged writes", o.Outcome.RunID, v.Lost()))
			}
		}
		if s, ok := slas[o.Run.Plan]; ok && o.Outcome.Status == experiment.StatusDone {
			miss, err := judgeSLA(ctx, table, *store, o.Outcome, s, stale.checks[o.Run.Plan])
			if err != nil {
				runErr = errors.Join(runErr, err)
			} else if miss != "" {
				failedVerdicts = append(failedVerdicts, miss)
			}
		}
		printStored(table, o.Outcome)
		interrupted = interrupted || o.Outcome.Status == experiment.StatusInterrupted
	}
	printSpreads(table, outs)
	var ids []string
	for _, o := range outs {
		if o.Outcome != nil {
			ids = append(ids, fmt.Sprint(o.Outcome.RunID))
		}
	}
	if len(ids) > 0 {
		fmt.Fprintf(table, "\n%d runs stored (tag experiment:%s); compare: dbrig report %s -o %s.html\n", len(ids), b.Name, strings.Join(ids, " "), b.Name)
	}
	if *jsonOut {
		writeBenchJSON(e.stdout, b, outs, impacts)
	}
	if interrupted {
		return errInterrupted
	}
	if runErr == nil && len(failedVerdicts) > 0 {
		return fmt.Errorf("%w: %s", errVerdict, strings.Join(failedVerdicts, "; "))
	}
	return runErr
}

// printSpreads prints, for each matrix combination run more than once
// with faults, the median and range of each fault's impact figures.
func printSpreads(w io.Writer, outs []experiment.BenchOutcome) {
	var order []string
	groups := map[string][][]analysis.Impact{}
	for _, o := range outs {
		if o.Outcome == nil || len(o.Outcome.Impacts) == 0 {
			continue
		}
		var parts []string
		for _, f := range strings.Fields(o.Run.Label()) {
			if !strings.HasPrefix(f, "rep=") {
				parts = append(parts, f)
			}
		}
		key := strings.Join(parts, " ")
		if _, ok := groups[key]; !ok {
			order = append(order, key)
		}
		groups[key] = append(groups[key], o.Outcome.Impacts)
	}
	for _, key := range order {
		if len(groups[key]) < 2 {
			continue
		}
		fmt.Fprintf(w, "\nfaults over %d runs%s: median [min … max]\n", len(groups[key]), strings.TrimRight(" ("+key+")", " ()"))
		stat := func(s analysis.Stat, unit string) string {
			if s.N == 0 {
				return "—"
			}
			return fmt.Sprintf("%.1f%s [%.1f … %.1f]", s.Median, unit, s.Min, s.Max)
		}
		for _, sp := range analysis.Spreads(groups[key]) {
			fmt.Fprintf(w, "  %-14s recovered %d/%d, recovery %s, unavailable %s, p99 change %s, throughput change %s\n",
				sp.Fault, sp.Recovered, sp.Runs, stat(sp.Recovery, "s"), stat(analysis.Stat{Median: sp.UnavailableMS.Median / 1000,
					Min: sp.UnavailableMS.Min / 1000, Max: sp.UnavailableMS.Max / 1000, N: sp.UnavailableMS.N}, "s"),
				stat(sp.P99ChangePct, "%"), stat(sp.ThroughputChangePct, "%"))
		}
	}
}

// printVerify prints what the read-back of a verify: true run found.
func printVerify(w io.Writer, v results.Verification) {
	verdict := "none lost"
	if v.Lost() > 0 {
		verdict = fmt.Sprintf("%d LOST", v.Lost())
	}
	fmt.Fprintf(w, "lost writes (verify): %s — %d of %d acknowledged inserts missing, %d of %d acknowledged deletes came back;"+
		" %d keys not judged (a write failed: its outcome is unknown), %d unreadable; read back in %d ms\n",
		verdict, v.LostInserts, v.InsertsAcked, v.ResurrectedDeletes, v.DeletesAcked, v.Uncertain, v.Unreadable, v.TookMS)
}

// printPlan prints every run of a resolved bench: what --dry-run promises.
func printPlan(w io.Writer, b *experiment.Bench) {
	fmt.Fprintf(w, "experiment %s (%s): %d runs\n", b.Name, b.File, len(b.Runs))
	for i, r := range b.Runs {
		p := r.Plan
		s := p.Config.Settings()
		bound := []string{}
		if p.Config.Operations > 0 {
			bound = append(bound, fmt.Sprintf("%d operations", p.Config.Operations))
		}
		if p.Config.Duration > 0 {
			bound = append(bound, p.Config.Duration.String())
		}
		fmt.Fprintf(w, "\nrun %d: %s\n", i+1, p.Name)
		if p.Cluster == nil {
			fmt.Fprintf(w, "  system     %s (embedded, or endpoints given in system.props)\n", p.Driver)
		} else {
			fmt.Fprintf(w, "  system     %s on a local cluster: %s\n", p.Driver, describeRecipe(p.Cluster.Recipe))
			fmt.Fprintf(w, "  nodes      on 127.0.0.1, torn down after the run%s\n", map[bool]string{true: " (data kept)"}[p.Cluster.Keep])
			printPlannedNodes(w, p.Cluster.Nodes)
		}
		fmt.Fprintf(w, "  workload   %s, %d records, load: %v\n", p.WorkloadName(), p.Workload.LoadCount(), !p.SkipLoad)
		model := fmt.Sprintf("%s, %d clients", s.Model, p.Config.Clients)
		if s.Rate > 0 {
			model += fmt.Sprintf(", %g ops/s", s.Rate)
		}
		if s.Model == "open" {
			model += ", " + s.Arrival + " arrivals"
		}
		if o, ok := p.Config.Model.(run.Open); ok && len(o.Schedule) > 0 {
			var steps []string
			for _, st := range o.Schedule {
				steps = append(steps, st.String())
			}
			model = fmt.Sprintf("%s, %d clients, schedule: %s, %s arrivals", s.Model, p.Config.Clients, strings.Join(steps, ", "), s.Arrival)
		}
		if s.ThinkTime > 0 {
			model += ", think " + s.ThinkTime.String()
		}
		fmt.Fprintf(w, "  load model %s\n", model)
		fmt.Fprintf(w, "  phases     warmup %v, measure %s\n", p.Config.Warmup, strings.Join(bound, " or "))
		fmt.Fprintf(w, "  tags       %s\n", strings.Join(p.Tags, ", "))
		fmt.Fprintf(w, "  properties %s\n", propsLine(p.Props.Map()))
	}
}

// printPlannedNodes lists each planned node with every port, as it will run.
func printPlannedNodes(w io.Writer, nodes []cluster.PlannedNode) {
	for _, n := range nodes {
		names := make([]string, 0, len(n.Ports))
		for k := range n.Ports {
			names = append(names, k)
		}
		sort.Strings(names)
		ports := make([]string, len(names))
		for i, k := range names {
			ports[i] = fmt.Sprintf("%s 127.0.0.1:%d", k, n.Ports[k])
		}
		version := ""
		if n.Version != "" {
			version = " " + n.Version
		}
		fmt.Fprintf(w, "    %-14s %-8s %s (%s%s)\n", n.Name, n.Role, strings.Join(ports, ", "), n.Binary, version)
	}
}

func propsLine(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + m[k]
	}
	return strings.Join(parts, " ")
}

// benchJSON is `dbrig bench --json`: the experiment, each run with its
// matrix values and the same ops/service blocks as `dbrig run --json`.
type benchJSON struct {
	Experiment string         `json:"experiment"`
	File       string         `json:"file"`
	Runs       []benchRunJSON `json:"runs"`
	Nodes      []nodeJSON     `json:"nodes"`
	Events     []eventJSON    `json:"events"`
	Impacts    []impactJSON   `json:"impacts"`
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
	report.JSONResult
	Name   string            `json:"name"`
	Matrix map[string]string `json:"matrix"`
	Repeat int               `json:"repeat"`
	Error  string            `json:"error,omitempty"`
	// LostWrites is the read-back of a verify: true run (absent otherwise).
	LostWrites *lostWritesJSON `json:"lost_writes,omitempty"`
}

type lostWritesJSON struct {
	InsertsAcked       int64 `json:"inserts_acked"`
	DeletesAcked       int64 `json:"deletes_acked"`
	Uncertain          int64 `json:"uncertain"`
	LostInserts        int64 `json:"lost_inserts"`
	ResurrectedDeletes int64 `json:"resurrected_deletes"`
	Unreadable         int64 `json:"unreadable"`
}

func writeBenchJSON(w io.Writer, b *experiment.Bench, outs []experiment.BenchOutcome, impacts map[int64][]analysis.Impact) error {
	doc := benchJSON{Experiment: b.Name, File: b.File, Runs: []benchRunJSON{}, Nodes: []nodeJSON{}, Events: []eventJSON{}, Impacts: []impactJSON{}}
	for _, o := range outs {
		r := benchRunJSON{Name: o.Run.Plan.Name, Matrix: map[string]string{}, Repeat: o.Run.Repeat}
		for _, m := range o.Run.Exp.Matrix {
			r.Matrix[m.Key] = m.Value
		}
		if o.Outcome != nil {
			id := o.Outcome.RunID
			r.JSONResult = report.Result(id, o.Outcome.Status, o.Outcome.Phases)
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
			for _, im := range impacts[id] {
				j := impactJSON{RunID: id, Fault: im.Fault, Target: im.Detail, StartMS: im.Start.Milliseconds(), EndMS: im.End.Milliseconds(),
					BaselineP50US: im.Baseline.P50, BaselineP95US: im.Baseline.P95, BaselineP99US: im.Baseline.P99,
					FaultP50US: im.During.P50, FaultP95US: im.During.P95, FaultP99US: im.During.P99,
					AfterP50US: im.After.P50, AfterP95US: im.After.P95, AfterP99US: im.After.P99,
					ThroughputChangePct: im.ThroughputChangePct, Errors: im.During.Errors + im.After.Errors,
					UnavailableMS: im.UnavailableMS}
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
				doc.Impacts = append(doc.Impacts, j)
			}
		}
		if o.Err != nil {
			r.Error = o.Err.Error()
		}
		doc.Runs = append(doc.Runs, r)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// describeRecipe says what a local cluster will be.
func describeRecipe(r cluster.Recipe) string { return cluster.Describe(r) }

// limitsOf turns an experiment file's verdicts into analysis limits.
func limitsOf(vs []spec.Verdict) []analysis.Limit {
	out := make([]analysis.Limit, len(vs))
	for i, v := range vs {
		out[i] = analysis.Limit{Metric: v.Metric, Op: v.Op, Value: v.Value, Text: v.Text}
	}
	return out
}
