package report

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbrig/dbrig/measure"
)

var t0 = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

func histOf(t *testing.T, values ...int64) *hdr.Histogram {
	t.Helper()
	h := measure.NewHistogram()
	for _, v := range values {
		if err := h.RecordValue(v); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

func statsOf(h *hdr.Histogram) measure.Stats {
	return measure.StatsOf(h)
}

// histSummary is a 10 s measure phase whose figures come from real histograms.
func histSummary(t *testing.T) measure.Summary {
	var readV, updV []int64
	for i := int64(0); i < 1000; i++ {
		readV = append(readV, 100+i*7)
	}
	for i := int64(0); i < 250; i++ {
		updV = append(updV, 900+i*31)
	}
	op := func(name string, vals []int64, errs int64, classes map[string]int64) measure.OpSummary {
		h, sh := histOf(t, vals...), histOf(t, vals[:len(vals)/2]...)
		return measure.OpSummary{Op: name, Count: h.TotalCount(), Errors: errs, Classes: classes,
			Throughput: float64(h.TotalCount()) / 10, Response: statsOf(h), Service: statsOf(sh), ResponseHist: h, ServiceHist: sh}
	}
	read := op("READ", readV, 7, map[string]int64{"not_found": 4, "timeout": 3})
	upd := op("UPDATE", updV, 0, nil)
	all := op("", append(append([]int64(nil), readV...), updV...), 7, nil)
	return measure.Summary{Phase: measure.PhaseMeasure, Start: t0, End: t0.Add(10 * time.Second),
		Ops: []measure.OpSummary{read, upd}, Overall: all}
}

// parseYCSB reads "[SECTION], Metric, value" lines into section → metric → value.
func parseYCSB(t *testing.T, out string) map[string]map[string]float64 {
	t.Helper()
	got := map[string]map[string]float64{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Split(line, ", ")
		if len(f) != 3 || !strings.HasPrefix(f[0], "[") || !strings.HasSuffix(f[0], "]") {
			t.Fatalf("not a YCSB line: %q", line)
		}
		v, err := strconv.ParseFloat(f[2], 64)
		if err != nil {
			t.Fatalf("line %q: value: %v", line, err)
		}
		sec := strings.Trim(f[0], "[]")
		if got[sec] == nil {
			got[sec] = map[string]float64{}
		}
		if _, dup := got[sec][f[1]]; dup {
			t.Errorf("duplicate line %q", line)
		}
		got[sec][f[1]] = v
	}
	return got
}

func TestYCSBParsesBack(t *testing.T) {
	s := histSummary(t)
	var buf bytes.Buffer
	if err := YCSB(&buf, s); err != nil {
		t.Fatal(err)
	}
	got := parseYCSB(t, buf.String())
	want := map[string]map[string]float64{
		"OVERALL": {"RunTime(ms)": 10000, "Throughput(ops/sec)": 125},
	}
	for _, o := range s.Ops {
		r := o.Response
		m := map[string]float64{
			"Operations": float64(o.Count), "AverageLatency(us)": r.Mean,
			"MinLatency(us)": float64(r.Min), "MaxLatency(us)": float64(r.Max),
			"95thPercentileLatency(us)": float64(r.P95), "99thPercentileLatency(us)": float64(r.P99),
			"Return=OK": float64(o.Count - o.Errors),
		}
		if o.Op == "READ" {
			m["Return=NOT_FOUND"], m["Return=ERROR"] = 4, 3
		}
		want[o.Op] = m
	}
	if len(got) != len(want) {
		t.Errorf("sections = %v, want %v", keys(got), keys(want))
	}
	for sec, metrics := range want {
		for k, v := range metrics {
			if g, ok := got[sec][k]; !ok || g != v {
				t.Errorf("[%s], %s = %v (present %v), want %v", sec, k, g, ok, v)
			}
		}
		if len(got[sec]) != len(metrics) {
			t.Errorf("[%s] has %d lines, want %d: %v", sec, len(got[sec]), len(metrics), got[sec])
		}
	}
	if !strings.HasPrefix(buf.String(), "[OVERALL], RunTime(ms), 10000\n[OVERALL], Throughput(ops/sec), 125.0\n") {
		t.Errorf("YCSB output starts with\n%s", buf.String()[:80])
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// fixedSummary has hand-chosen figures so the expected text is known.
func fixedSummary(dropped int64) measure.Summary {
	read := measure.OpSummary{Op: "READ", Count: 1234567, Errors: 3, Throughput: 9998.4,
		Response: measure.Stats{Mean: 1234.5, P50: 850, P90: 1200, P95: 1500, P99: 2500, P999: 12000, Max: 1500000},
		Service:  measure.Stats{P99: 2000}}
	upd := measure.OpSummary{Op: "UPDATE", Count: 12, Throughput: 12.5,
		Response: measure.Stats{Mean: 40, P50: 40, P90: 40, P95: 40, P99: 40, P999: 40, Max: 40},
		Service:  measure.Stats{P99: 39}}
	all := measure.OpSummary{Count: 1234579, Errors: 3, Throughput: 10010.9,
		Response: measure.Stats{Mean: 1234, P50: 850, P90: 1200, P95: 1500, P99: 2500, P999: 12000, Max: 1500000},
		Service:  measure.Stats{P99: 2000}}
	return measure.Summary{Phase: measure.PhaseMeasure, Start: t0, End: t0.Add(2 * time.Minute), Ops: []measure.OpSummary{read, upd},
		Overall: all, Dropped: dropped,
		Errors: []measure.ErrorSample{{Op: "READ", Class: "timeout", Message: "i/o timeout", Count: 3}}}
}

func TestSummaryTable(t *testing.T) {
	warm := fixedSummary(0)
	warm.Phase = measure.PhaseWarmup
	var buf bytes.Buffer
	h := Header{RunID: 7, Name: "nightly", System: "redis", ServerVersion: "7.2", Workload: "ycsb/workloada", Status: "done"}
	if err := Summary(&buf, h, []measure.Summary{warm, fixedSummary(42)}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	lines := strings.Split(out, "\n")
	if lines[0] != `run 7 · "nightly" · redis 7.2 · ycsb/workloada · done` {
		t.Errorf("header = %q", lines[0])
	}
	if strings.Contains(out, "warmup") {
		t.Errorf("warmup phase shown in the summary:\n%s", out)
	}
	wantRows := map[string][]string{
		"op":      {"op", "count", "errors", "ops/s", "mean", "p50", "p90", "p95", "p99", "p99.9", "max"},
		"READ":    {"READ", "1,234,567", "3", "9,998", "1.23ms", "850µs", "1.20ms", "1.50ms", "2.50ms", "12.0ms", "1.50s"},
		"UPDATE":  {"UPDATE", "12", "0", "12.5", "40µs", "40µs", "40µs", "40µs", "40µs", "40µs", "40µs"},
		"OVERALL": {"OVERALL", "1,234,579", "3", "10,011", "1.23ms", "850µs", "1.20ms", "1.50ms", "2.50ms", "12.0ms", "1.50s"},
	}
	var tableLines []string
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) == 0 {
			continue
		}
		if want, ok := wantRows[f[0]]; ok {
			tableLines = append(tableLines, l)
			if strings.Join(f, " ") != strings.Join(want, " ") {
				t.Errorf("row %s:\n got %q\nwant %q", f[0], f, want)
			}
			delete(wantRows, f[0])
		}
	}
	if len(wantRows) != 0 {
		t.Errorf("rows missing: %v\n%s", keys(wantRows), out)
	}
	// Right-aligned columns: every row of the table has the same width.
	for _, l := range tableLines[1:] {
		if utf8.RuneCountInString(l) != utf8.RuneCountInString(tableLines[0]) {
			t.Errorf("table not aligned:\n%s", strings.Join(tableLines, "\n"))
			break
		}
	}
	for _, want := range []string{
		"measure phase: 2m00s, 1,234,579 operations, 10,011 ops/s, 3 errors",
		"service time p99: READ 2.00ms, UPDATE 39µs, OVERALL 2.00ms",
		"dropped: 42 operations",
		"3× READ timeout: i/o timeout",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	// Two causes, told apart: a full backlog, and the phase ending first.
	buf.Reset()
	mixed := fixedSummary(42)
	mixed.Late = 40
	if err := Summary(&buf, Header{}, []measure.Summary{mixed}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"dropped: 2 operations were not started: the backlog limit was hit", "dropped: 40 operations were still waiting for a client when the phase ended"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, buf.String())
		}
	}
	buf.Reset()
	if err := Summary(&buf, Header{}, []measure.Summary{fixedSummary(0)}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "dropped") {
		t.Errorf("dropped line without dropped operations:\n%s", buf.String())
	}
}

func TestSummaryWithoutMeasurePhase(t *testing.T) {
	load := fixedSummary(0)
	load.Phase = measure.PhaseLoad
	var buf bytes.Buffer
	if err := Summary(&buf, Header{}, []measure.Summary{load}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "load phase: 2m00s") {
		t.Errorf("a load-only run should show its load phase:\n%s", buf.String())
	}
}
