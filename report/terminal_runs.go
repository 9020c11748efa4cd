package report

import (
	"fmt"
	"io"
	"strings"

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
