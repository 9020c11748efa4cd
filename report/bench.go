package report

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/dbrig/dbrig/analysis"
	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/experiment"
	"github.com/dbrig/dbrig/format"
	"github.com/dbrig/dbrig/results"
	"github.com/dbrig/dbrig/run"
	"github.com/dbrig/dbrig/spec"
)

// dbrig bench's terminal output: the plan (--dry-run), each run, the
// spread of fault impacts over repeats; and its --json document.

// BenchRun prints one finished run of a bench: its summary, load phase and
// headline metrics (tpmC, the consistency result), the impact of its
// faults and their verdicts, and what a verify: true read-back found.
// It returns the failures: verdicts not met, acknowledged writes lost.
func BenchRun(w io.Writer, o experiment.BenchOutcome) (failed []string) {
	out := o.Outcome
	fmt.Fprintln(w)
	Summary(w, Header{RunID: out.RunID, Name: o.Run.Plan.Name, System: o.Run.Plan.Driver,
		Workload: o.Run.Plan.WorkloadName(), Status: out.Status}, out.Phases)
	LoadLine(w, out.Phases)
	Headline(w, out.Metrics)
	if len(out.Faults) > 0 {
		Impacts(w, out.Impacts)
		for _, j := range analysis.Judge(out.Impacts, limitsOf(o.Run.Exp.Verdicts)) {
			fmt.Fprintf(w, "  verdict %s\n", j)
			if !j.Pass {
				failed = append(failed, fmt.Sprintf("run %d %s", out.RunID, j))
			}
		}
	}
	if v := out.Verify; v != nil {
		Verify(w, *v)
		if v.Lost() > 0 {
			failed = append(failed, fmt.Sprintf("run %d lost %d acknowledged writes", out.RunID, v.Lost()))
		}
	}
	return failed
}

// RunSummary prints a finished run of dbrig run or load (named name):
// its summary table, load line, headline metrics, YCSB's lines when asked,
// and whether it was stored.
func RunSummary(w io.Writer, name string, plan *experiment.Plan, out *experiment.Outcome, ycsb bool) {
	fmt.Fprintln(w)
	Summary(w, Header{RunID: out.RunID, Name: name, System: plan.Driver, Workload: plan.WorkloadName(), Status: out.Status}, out.Phases)
	LoadLine(w, out.Phases)
	Headline(w, out.Metrics)
	if ycsb {
		if s, ok := out.Measured(); ok {
			YCSB(w, s)
		}
	}
	Stored(w, out)
}

// BenchEnd prints what ends a bench: the spread of the fault figures over
// repeats, and which runs were stored and how to compare them.
func BenchEnd(w io.Writer, b *experiment.Bench, outs []experiment.BenchOutcome) {
	Spreads(w, outs)
	if len(outs) > 1 {
		Comparison(w, b.Name, BenchComparison(outs))
	}
	var ids []string
	for _, o := range outs {
		if o.Outcome != nil {
			ids = append(ids, fmt.Sprint(o.Outcome.RunID))
		}
	}
	if len(ids) > 0 {
		fmt.Fprintf(w, "\n%d runs stored (tag experiment:%s); compare: dbrig report %s -o %s.html\n", len(ids), b.Name, strings.Join(ids, " "), b.Name)
	}
}

// Stored says whether the run is in the results store: never "stored"
// when a write failed (a full disk), so nobody trusts a partial record.
func Stored(w io.Writer, out *experiment.Outcome) {
	if out.StoreErr != nil {
		fmt.Fprintf(w, "run %d was NOT stored completely (%v); what was written before is kept: dbrig runs show %d\n", out.RunID, out.StoreErr, out.RunID)
		return
	}
	fmt.Fprintf(w, "run %d stored (%s); see: dbrig runs show %d\n", out.RunID, out.Status, out.RunID)
}

// Spreads prints, for each matrix combination run more than once
// with faults, the median and range of each fault's impact figures.
func Spreads(w io.Writer, outs []experiment.BenchOutcome) {
	var order []string
	groups := map[string][][]analysis.Impact{}
	for _, o := range outs {
		if o.Outcome == nil || len(o.Outcome.Impacts) == 0 {
			continue
		}
		key := o.Run.Group()
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

// Verify prints what the read-back of a verify: true run found.
func Verify(w io.Writer, v results.Verification) {
	verdict := "none lost"
	if v.Lost() > 0 {
		verdict = fmt.Sprintf("%d LOST", v.Lost())
	}
	fmt.Fprintf(w, "lost writes (verify): %s — %d of %d acknowledged inserts missing, %d of %d acknowledged deletes came back;"+
		" %d keys not judged (a write failed: its outcome is unknown), %d unreadable; read back in %d ms\n",
		verdict, v.LostInserts, v.InsertsAcked, v.ResurrectedDeletes, v.DeletesAcked, v.Uncertain, v.Unreadable, v.TookMS)
}

// Plan prints every run of a resolved bench: what --dry-run promises.
func Plan(w io.Writer, b *experiment.Bench) {
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
			fmt.Fprintf(w, "  system     %s on a local cluster: %s\n", p.Driver, cluster.Describe(p.Cluster.Recipe))
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

// limitsOf turns an experiment file's verdicts into analysis limits.
func limitsOf(vs []spec.Verdict) []analysis.Limit {
	out := make([]analysis.Limit, len(vs))
	for i, v := range vs {
		out[i] = analysis.Limit{Metric: v.Metric, Op: v.Op, Value: v.Value, Text: v.Text, IfMeasured: v.IfMeasured}
	}
	return out
}

// BenchComparison sets a bench's runs side by side (analysis.CompareBench),
// one row per matrix combination, from the figures each run stored.
func BenchComparison(outs []experiment.BenchOutcome) analysis.BenchComparison {
	var runs []analysis.BenchRunFigures
	for _, o := range outs {
		f := analysis.BenchRunFigures{Group: o.Run.Group(), Status: "not started"}
		if out := o.Outcome; out != nil {
			f.RunID, f.Status = out.RunID, out.Status
			if s, ok := out.Measured(); ok {
				f.Measured = &s
			}
			f.Headline = out.Metrics
		}
		runs = append(runs, f)
	}
	return analysis.CompareBench(runs)
}

// Comparison prints a bench's comparison: per matrix combination and
// operation the throughput, its ratio to the first combination's, the
// response time p50 and p99 and the errors; with repeats each is the median
// and, in brackets, the range over the runs. name labels a bench without a
// matrix.
func Comparison(w io.Writer, name string, c analysis.BenchComparison) {
	if len(c.Rows) == 0 {
		return
	}
	most := 0
	for _, r := range c.Rows {
		most = max(most, len(r.Runs))
	}
	how := ""
	if most > 1 {
		how = ": median [min … max] over the repeats"
	}
	fmt.Fprintf(w, "\ncomparison%s\n", how)
	t := &table{left: map[int]bool{2: true}}
	t.add("", "runs", "op", "ops/s", "vs first", "p50", "p99", "errors")
	for _, r := range c.Rows {
		group := r.Group
		if group == "" {
			group = name
		}
		for i, op := range r.Ops {
			if op.Throughput.N == 0 && i > 0 {
				continue // an operation this combination never ran
			}
			first, runs, ratio := "", "", ""
			if i == 0 {
				first, runs = group, fmt.Sprint(len(r.Runs))
				if r.ThroughputRatio > 0 {
					ratio = fmt.Sprintf("%.2f×", r.ThroughputRatio)
				}
			}
			t.add(first, runs, op.Op, statText(op.Throughput, format.Rate), ratio,
				statText(op.P50US, format.Micros), statText(op.P99US, format.Micros), errorsText(op))
		}
	}
	t.write(w, "  ")
	comparisonHeadline(w, name, c)
	for _, r := range c.Rows {
		if len(r.Left) == 0 {
			continue
		}
		var why []string
		for _, l := range r.Left {
			if l.RunID == 0 {
				why = append(why, l.Why)
				continue
			}
			why = append(why, fmt.Sprintf("run %d %s", l.RunID, l.Why))
		}
		group := r.Group
		if group == "" {
			group = name
		}
		fmt.Fprintf(w, "  %s: not counted: %s\n", group, strings.Join(why, ", "))
	}
}

// statText is a figure over repeats: the value of one run, the median and
// range of several, "—" of none.
func statText(s analysis.Stat, f func(float64) string) string {
	switch {
	case s.N == 0:
		return "—"
	case s.N == 1 || s.Min == s.Max:
		return f(s.Median)
	}
	return fmt.Sprintf("%s [%s … %s]", f(s.Median), f(s.Min), f(s.Max))
}

// errorsText is an operation's errors with their share of its operations.
func errorsText(op analysis.BenchOp) string {
	n := statText(op.Errors, func(v float64) string { return format.Int(int64(math.Round(v))) })
	if op.ErrorRatePct.N > 0 && op.ErrorRatePct.Max > 0 {
		n += " (" + pct(op.ErrorRatePct.Median) + ")"
	}
	return n
}

// pct is a share in percent to two significant digits: 45%, 4.5%, 0.012%.
func pct(v float64) string {
	switch {
	case v >= 10:
		return strconv.FormatFloat(v, 'f', 0, 64) + "%"
	case v >= 1:
		return strconv.FormatFloat(v, 'f', 1, 64) + "%"
	}
	return strconv.FormatFloat(v, 'g', 2, 64) + "%"
}

// comparisonHeadline prints the workloads' headline metrics (tpmC, points/s,
// bytes per point) side by side, one row per combination, when any run has
// them.
func comparisonHeadline(w io.Writer, name string, c analysis.BenchComparison) {
	if len(c.Headline) == 0 {
		return
	}
	t := &table{}
	head := []string{""}
	for i, n := range c.Headline {
		if u := c.Rows[0].Headline[i].Unit; u != "" {
			n += " (" + u + ")"
		}
		head = append(head, n)
	}
	t.add(head...)
	for _, r := range c.Rows {
		group := r.Group
		if group == "" {
			group = name
		}
		row := []string{group}
		for _, h := range r.Headline {
			row = append(row, statText(h.Value, format.Rate))
		}
		t.add(row...)
	}
	fmt.Fprintf(w, "\n")
	t.write(w, "  ")
}
