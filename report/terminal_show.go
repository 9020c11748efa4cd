package report

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/dbrig/dbrig/analysis"
	"github.com/dbrig/dbrig/format"
	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/results"
)

// StoredRunShow prints dbrig runs show ID: everything stored about the run,
// its figures as analysis.ResultOf computes them.
func StoredRunShow(ctx context.Context, w io.Writer, store *results.Store, id int64) error {
	runs, err := analysis.ReadRuns(ctx, store, []int64{id})
	if err != nil {
		return err
	}
	return RunShowResult(w, runs[0].Detail, analysis.ResultOf(runs[0]))
}

// RunShow writes what a run detail holds (RunShowResult of its phases).
func RunShow(w io.Writer, d *results.RunDetail) error {
	return RunShowResult(w, d, analysis.ResultOf(analysis.NewRun(d, nil)))
}

// RunShowResult writes everything stored about a run: its context, its
// headline metrics, its load phase, the summary of its measure phase(s),
// the other phases in one line each, what its faults cost, what its nodes
// did, its events and its workers. Every figure is res's.
func RunShowResult(w io.Writer, d *results.RunDetail, res analysis.Result) error {
	ew := &errWriter{w: w}
	ew.printf("%s\n\n", HeaderOf(d))
	writeContext(ew, d, res)
	if len(res.Headline) > 0 {
		ew.printf("\n")
		ms := make([]results.RunMetric, len(res.Headline))
		for i, m := range res.Headline {
			ms[i] = results.RunMetric{Name: m.Name, Value: m.Value, Unit: m.Unit, Doc: m.Doc}
		}
		if err := Headline(ew.w, ms); err != nil && ew.err == nil {
			ew.err = err
		}
	}
	ew.printf("\n")
	if lp := res.LoadPhase; lp != nil {
		writeLoadPhase(ew, *lp)
	}
	for _, s := range d.Phases {
		if s.Phase != measure.PhaseMeasure && (s.Phase != measure.PhaseLoad || res.LoadPhase == nil) {
			p := analysis.PhaseOf(s)
			o := p.Overall()
			ew.printf("%s phase: %s, %s operations, %s ops/s, %s errors\n",
				p.Phase, format.Elapsed(p.End.Sub(p.Start)), format.Int(o.Count), format.Rate(o.Throughput), format.Int(o.Errors))
		}
	}
	for _, p := range res.Phases {
		if p.Phase == measure.PhaseMeasure {
			writePhaseResult(ew, p)
		}
	}
	if err := Impacts(ew.w, res.Impacts); err != nil && ew.err == nil {
		ew.err = err
	}
	writeNodes(ew, res.Nodes)
	if len(d.Events) > 0 {
		ew.printf("\nevents:\n")
		t := &table{left: map[int]bool{1: true, 2: true, 3: true, 4: true}}
		for _, e := range d.Events {
			t.add("+"+format.Elapsed(e.Time.Sub(d.Start)), e.Kind, e.Name, e.Outcome, e.Detail)
		}
		ew.table(t, "  ")
	}
	if len(d.Workers) > 0 {
		writeWorkers(ew, d)
		if res.Workers != nil {
			for _, f := range res.Workers.Flags {
				ew.printf("  %s\n", f)
			}
		}
	}
	return ew.err
}

// writeContext writes the run's context table and properties.
func writeContext(ew *errWriter, d *results.RunDetail, res analysis.Result) {
	info := d.Info
	ctx := &table{left: map[int]bool{1: true}}
	kv := func(k, v string) {
		if strings.TrimSpace(v) != "" {
			ctx.add(k, v)
		}
	}
	status := res.Status
	if res.Message != "" {
		status += ": " + res.Message
	}
	kv("status", status)
	when := d.Start.Local().Format(time.RFC3339)
	if !d.End.IsZero() {
		when += " → " + d.End.Local().Format(time.RFC3339) + " (" + format.Elapsed(d.End.Sub(d.Start)) + ")"
	}
	kv("time", when)
	kv("experiment", res.Experiment)
	var picks []string
	for _, k := range sortedKeys(res.Matrix) {
		picks = append(picks, k+"="+res.Matrix[k])
	}
	kv("matrix", strings.Join(picks, " "))
	kv("system", strings.TrimSpace(info.System+" "+info.ServerVersion))
	kv("driver", info.Driver)
	kv("target", info.Target)
	kv("workload", info.Workload)
	kv("load", format.LoadDetail(info.Load))
	kv("tags", strings.Join(info.Tags, ", "))
	kv("host", hostText(info.Host))
	version := info.DbrigVersion
	if info.GoVersion != "" {
		version = strings.TrimSpace(version + " (" + info.GoVersion + ")")
	}
	kv("dbrig", version)
	kv("command", info.Command)
	ew.table(ctx, "")
	if len(info.Props) > 0 {
		ew.printf("properties:\n")
		for _, k := range sortedKeys(info.Props) {
			ew.printf("  %s=%s\n", k, info.Props[k])
		}
	}
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// writeLoadPhase writes the load phase: records, rate, and the batches'
// latency (what is stored) with the mean it comes to per record.
func writeLoadPhase(ew *errWriter, lp analysis.LoadPhase) {
	ew.printf("load phase: %s records in %s, %s records/s, %s batches (%s errors)\n",
		format.Int(lp.Records), format.Elapsed(time.Duration(lp.DurationS*float64(time.Second))), format.Rate(lp.RecordsPerSec),
		format.Int(lp.Batches), format.Int(lp.BatchErrors))
	if lp.Batches > 0 {
		l := lp.BatchLatency
		ew.printf("  per batch of %.1f records on average: mean %s, p50 %s, p99 %s, max %s; %s per record (the mean spread over its batch)\n",
			lp.RecordsPerBatch, format.Micros(l.Mean), format.MicrosInt(l.P50), format.MicrosInt(l.P99), format.MicrosInt(l.Max),
			format.Micros(lp.MeanUSPerRecord))
	}
	if lp.Partial {
		ew.printf("  the data set is partial: %s of %s records were loaded\n", format.Int(lp.Records), format.Int(lp.Wanted))
	}
}

// writeNodes writes what each process did over the run.
func writeNodes(ew *errWriter, ns []analysis.NodeSummary) {
	if len(ns) == 0 {
		return
	}
	mib := func(b float64) string { return strconv.FormatFloat(b/(1<<20), 'f', 1, 64) + " MiB" }
	ew.printf("\nnodes (over their samples; CPU in %% of one core):\n")
	t := &table{}
	t.add("node", "samples", "cpu mean", "cpu max", "rss max", "written", "writes/s", "ctx sw/s", "fds max")
	for _, n := range ns {
		t.add(n.Node, strconv.Itoa(n.Samples), fmt.Sprintf("%.1f%%", n.CPUMeanPct), fmt.Sprintf("%.1f%%", n.CPUMaxPct),
			mib(float64(n.RSSMaxBytes)), mib(float64(n.WriteBytes)), mib(n.MeanWriteBPS)+"/s", format.Rate(n.MeanCtxSwitchPS), strconv.Itoa(n.FDsMax))
	}
	ew.table(t, "  ")
}

// writeWorkers lists a distributed run's workers: who did what, which one
// was lost and when, and how far its clock was from the coordinator's.
func writeWorkers(ew *errWriter, d *results.RunDetail) {
	ew.printf("\nworkers:\n")
	t := &table{left: map[int]bool{1: true, 2: true, 4: true, 8: true}}
	t.add("worker", "host", "pid", "status", "records", "ops", "clock offset", "detail")
	for _, w := range d.Workers {
		detail := w.Detail
		if !w.LostAt.IsZero() {
			detail = strings.TrimSpace("lost at +" + format.Elapsed(w.LostAt.Sub(d.Start)) + " " + detail)
		}
		t.add(strconv.Itoa(w.Index), w.Host, strconv.Itoa(w.PID), w.Status, format.Int(w.Records), format.Int(w.Ops),
			format.Duration(w.ClockOffset)+" ± "+format.Duration(w.RTT/2), detail)
	}
	ew.table(t, "  ")
}

func hostText(h results.Host) string {
	var parts []string
	for _, p := range []string{h.Hostname, h.OS, h.Kernel, h.CPUModel} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	if h.Cores > 0 {
		parts = append(parts, fmt.Sprintf("%d cores", h.Cores))
	}
	if h.MemoryBytes > 0 {
		parts = append(parts, fmt.Sprintf("%.1f GiB", float64(h.MemoryBytes)/(1<<30)))
	}
	return strings.Join(parts, ", ")
}
