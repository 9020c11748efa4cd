package report

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/dbrig/dbrig/analysis"
	"github.com/dbrig/dbrig/format"
	"github.com/dbrig/dbrig/loadmodel"
	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/results"
)

// listTime is how run start times are shown (local time, to the minute).
const listTime = "2006-01-02 15:04"

// RunList writes one line per run: id, start, status, system, workload, load,
// and the measure phase's throughput and p99.
func RunList(w io.Writer, runs []results.RunRow) error {
	if len(runs) == 0 {
		_, err := fmt.Fprintln(w, "no runs")
		return err
	}
	t := &table{left: map[int]bool{1: true, 2: true, 3: true, 4: true, 5: true, 9: true}}
	t.add("id", "started", "status", "system", "workload", "load", "ops/s", "p99", "errors", "name")
	for _, r := range runs {
		name := r.Name
		if len(r.Tags) > 0 {
			name = strings.TrimSpace(name + " [" + strings.Join(r.Tags, ",") + "]")
		}
		ops, p99, errs := "-", "-", "-"
		if r.Count > 0 {
			ops, p99, errs = format.Rate(r.Throughput), format.MicrosInt(r.P99US), format.Int(r.Errors)
		}
		t.add(fmt.Sprint(r.ID), r.Start.Local().Format(listTime), listStatus(r),
			strings.TrimSpace(r.System+" "+r.ServerVersion), r.Workload, format.LoadBrief(loadmodel.Load{Model: r.Model, Clients: r.Clients, Rate: r.Rate}),
			ops, p99, errs, name)
	}
	ew := &errWriter{w: w}
	ew.table(t, "")
	return ew.err
}

// listStatus is a run's status in a list; a run whose operations mostly
// failed says so beside it (its message says more: dbrig runs show).
func listStatus(r results.RunRow) string {
	s := r.DisplayStatus()
	if r.Count > 0 && float64(r.Errors) > measure.FailedShare*float64(r.Count) {
		s += " (" + measure.SharePct(r.Errors, r.Count) + " errors)"
	}
	return s
}

// RunShow writes everything stored about a run: its context, the summary of
// its measure phase(s), the other phases in one line each, and its events.
func RunShow(w io.Writer, d *results.RunDetail) error {
	ew := &errWriter{w: w}
	info := d.Info
	ew.printf("%s\n\n", HeaderOf(d))
	ctx := &table{left: map[int]bool{1: true}}
	kv := func(k, v string) {
		if strings.TrimSpace(v) != "" {
			ctx.add(k, v)
		}
	}
	status := d.DisplayStatus()
	if d.Message != "" {
		status += ": " + d.Message
	}
	kv("status", status)
	when := d.Start.Local().Format(time.RFC3339)
	if !d.End.IsZero() {
		when += " → " + d.End.Local().Format(time.RFC3339) + " (" + format.Elapsed(d.End.Sub(d.Start)) + ")"
	}
	kv("time", when)
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
		keys := make([]string, 0, len(info.Props))
		for k := range info.Props {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		ew.printf("properties:\n")
		for _, k := range keys {
			ew.printf("  %s=%s\n", k, info.Props[k])
		}
	}
	ew.printf("\n")
	for _, s := range d.Phases {
		if s.Phase != measure.PhaseMeasure {
			ew.printf("%s phase: %s, %s operations, %s ops/s, %s errors\n",
				s.Phase, format.Elapsed(s.End.Sub(s.Start)), format.Int(s.Overall.Count), format.Rate(s.Overall.Throughput), format.Int(s.Overall.Errors))
		}
	}
	for _, s := range d.Phases {
		if s.Phase == measure.PhaseMeasure {
			writePhase(ew, s)
		}
	}
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
	}
	return ew.err
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

// RunCompare writes, per operation of the two runs' measure phases, the
// throughput and p50/p95/p99 response times of both runs, the change from A to
// B in percent, the confidence interval of the change and the p-value of its
// per-second samples, and whether B is better or worse: only when the change
// is larger than the seconds' noise and at least analysis.Noise.
func RunCompare(w io.Writer, a, b analysis.Run) error {
	ew := &errWriter{w: w}
	ew.printf("A: %s\nB: %s\n", HeaderOf(a.Detail), HeaderOf(b.Detail))
	delta, err := analysis.CompareRuns(a, b)
	if err != nil { // a run without a measure phase
		ew.printf("\nnothing to compare: %v\n", err)
		return ew.err
	}
	conf := fmt.Sprintf("%.0f%% CI", analysis.Confidence*100)
	t := &table{left: map[int]bool{6: true}}
	t.add("", fmt.Sprintf("A (run %d)", a.Detail.ID), fmt.Sprintf("B (run %d)", b.Detail.ID), "change", conf, "p", "")
	for _, o := range delta.Ops {
		switch {
		case !o.InB:
			t.add(o.Op, "", "not in B")
			continue
		case !o.InA:
			t.add(o.Op, "not in A", "")
			continue
		}
		t.add(o.Op)
		for _, m := range []analysis.Metric{analysis.Throughput, analysis.P50, analysis.P95, analysis.P99} {
			compareRow(t, "  "+m.String(), m, o.Change(m))
		}
		if o.A.Errors > 0 || o.B.Errors > 0 {
			t.add("  errors", format.Int(o.A.Errors), format.Int(o.B.Errors), "", "", "", "")
		}
	}
	ew.printf("\n")
	ew.table(t, "")
	ew.printf("\nchange: of the phases' figures. %s and p: of the change in the medians of the per-second\n"+
		"samples (bootstrap; Mann-Whitney U test). Better or worse only when significant and at least %.0f%%.\n",
		conf, analysis.Noise*100)
	return ew.err
}

// compareRow adds one metric: both values, the change in percent, its
// interval and p-value, and the verdict in words.
func compareRow(t *table, name string, m analysis.Metric, c analysis.Change) {
	change := ""
	switch {
	case c.A == 0 && c.B == 0:
		change = "0%"
	case c.A == 0:
		change = "new"
	default:
		change = fmt.Sprintf("%+.1f%%", c.Rel*100)
	}
	t.add(name, fmtMetric(m, c.A), fmtMetric(m, c.B), change, c.Stat.FormatCI(), c.Stat.FormatP(), c.Stat.Say(m.HigherIsBetter()))
}

// fmtMetric formats the value of a compared metric.
func fmtMetric(m analysis.Metric, v float64) string {
	switch {
	case m == analysis.Throughput:
		return format.Rate(v)
	case m.Latency():
		return format.Micros(v)
	default:
		return format.Int(int64(v))
	}
}

// marker is the word (and CSS class) of a verdict; none within the noise.
func marker(v analysis.Verdict) string {
	if v == analysis.Same {
		return ""
	}
	return v.String()
}
