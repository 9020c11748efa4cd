package report

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"time"

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
			ops, p99, errs = fmtRate(r.Throughput), usInt(r.P99US), fmtInt(r.Errors)
		}
		t.add(fmt.Sprint(r.ID), r.Start.Local().Format(listTime), r.DisplayStatus(),
			strings.TrimSpace(r.System+" "+r.ServerVersion), r.Workload, loadText(r.Model, r.Clients, r.Rate),
			ops, p99, errs, name)
	}
	ew := &errWriter{w: w}
	ew.table(t, "")
	return ew.err
}

// loadText is "closed 16" or "open 16 @5,000/s".
func loadText(model string, clients int, rate float64) string {
	s := strings.TrimSpace(fmt.Sprintf("%s %d", model, clients))
	if rate > 0 {
		s += " @" + fmtRate(rate) + "/s"
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
		when += " → " + d.End.Local().Format(time.RFC3339) + " (" + fmtDur(d.End.Sub(d.Start)) + ")"
	}
	kv("time", when)
	kv("system", strings.TrimSpace(info.System+" "+info.ServerVersion))
	kv("driver", info.Driver)
	kv("target", info.Target)
	kv("workload", info.Workload)
	kv("load", loadDetail(info.Load))
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
				s.Phase, fmtDur(s.End.Sub(s.Start)), fmtInt(s.Overall.Count), fmtRate(s.Overall.Throughput), fmtInt(s.Overall.Errors))
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
			t.add("+"+fmtDur(e.Time.Sub(d.Start)), e.Kind, e.Name, e.Outcome, e.Detail)
		}
		ew.table(t, "  ")
	}
	return ew.err
}

func loadDetail(l results.LoadModel) string {
	parts := []string{loadText(l.Model, l.Clients, l.Rate)}
	if l.Arrival != "" {
		parts = append(parts, l.Arrival+" arrivals")
	}
	if l.ThinkTime > 0 {
		parts = append(parts, "think "+l.ThinkTime.String())
	}
	if l.Warmup > 0 {
		parts = append(parts, "warmup "+l.Warmup.String())
	}
	if l.Duration > 0 {
		parts = append(parts, "duration "+l.Duration.String())
	}
	if l.Operations > 0 {
		parts = append(parts, fmtInt(l.Operations)+" operations")
	}
	parts = append(parts, fmt.Sprintf("seed %d", l.Seed))
	return strings.Join(parts, ", ")
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

// compareNoise is the relative change below which a difference is shown
// without a better/worse marker: run-to-run noise of a benchmark is rarely
// below a few percent.
const compareNoise = 0.02

// RunCompare writes, per operation of the two runs' measure phases, the
// throughput and p50/p95/p99 response times of both runs, the change from A to
// B in percent, and whether B is better or worse.
func RunCompare(w io.Writer, a, b *results.RunDetail) error {
	ew := &errWriter{w: w}
	ew.printf("A: %s\nB: %s\n", HeaderOf(a), HeaderOf(b))
	sa, okA := a.Phase(measure.PhaseMeasure)
	sb, okB := b.Phase(measure.PhaseMeasure)
	if !okA || !okB {
		missing := a.ID
		if okA {
			missing = b.ID
		}
		ew.printf("\nnothing to compare: run %d has no measure phase\n", missing)
		return ew.err
	}
	t := &table{left: map[int]bool{4: true}}
	t.add("", fmt.Sprintf("A (run %d)", a.ID), fmt.Sprintf("B (run %d)", b.ID), "change", "")
	opsB := map[string]measure.OpSummary{}
	for _, o := range withOverall(sb) {
		opsB[o.Op] = o
	}
	seen := map[string]bool{}
	for _, oa := range withOverall(sa) {
		seen[oa.Op] = true
		ob, ok := opsB[oa.Op]
		if !ok {
			t.add(oa.Op, "", "not in B")
			continue
		}
		t.add(oa.Op)
		compareRow(t, "  ops/s", oa.Throughput, ob.Throughput, fmtRate, true)
		us := func(v float64) string { return fmtUS(v) }
		compareRow(t, "  p50", float64(oa.Response.P50), float64(ob.Response.P50), us, false)
		compareRow(t, "  p95", float64(oa.Response.P95), float64(ob.Response.P95), us, false)
		compareRow(t, "  p99", float64(oa.Response.P99), float64(ob.Response.P99), us, false)
		if oa.Errors > 0 || ob.Errors > 0 {
			t.add("  errors", fmtInt(oa.Errors), fmtInt(ob.Errors), "", "")
		}
	}
	for _, ob := range withOverall(sb) {
		if !seen[ob.Op] {
			t.add(ob.Op, "not in A", "")
		}
	}
	ew.printf("\n")
	ew.table(t, "")
	return ew.err
}

func withOverall(s measure.Summary) []measure.OpSummary {
	return append(append([]measure.OpSummary(nil), s.Ops...), overall(s))
}

// compareRow adds one metric: both values, the change in percent and a marker.
func compareRow(t *table, name string, a, b float64, format func(float64) string, higherIsBetter bool) {
	change, marker := "", ""
	switch {
	case a == 0 && b == 0:
		change = "0%"
	case a == 0:
		change = "new"
	default:
		rel := (b - a) / a
		change = fmt.Sprintf("%+.1f%%", rel*100)
		if math.Abs(rel) >= compareNoise {
			if (rel > 0) == higherIsBetter {
				marker = "better"
			} else {
				marker = "worse"
			}
		}
	}
	t.add(name, format(a), format(b), change, marker)
}
