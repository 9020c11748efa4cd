package report

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbrig/dbrig/analysis"
	"github.com/dbrig/dbrig/format"
	"github.com/dbrig/dbrig/loadmodel"
	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/results"
)

// fieldsOf returns the whitespace-separated fields of the first line that
// starts (after indentation) with prefix.
func fieldsOf(t *testing.T, out, prefix string) []string {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), prefix) {
			return strings.Fields(l)
		}
	}
	t.Fatalf("no line starting with %q in\n%s", prefix, out)
	return nil
}

func TestRunList(t *testing.T) {
	start := time.Date(2025, 6, 1, 12, 30, 0, 0, time.Local)
	rows := []results.RunRow{
		{ID: 12, Name: "baseline", Tags: []string{"nightly", "v7"}, Status: "done", Start: start, System: "redis",
			ServerVersion: "7.2", Workload: "ycsb/workloada", Model: "open", Clients: 16, Rate: 5000,
			Count: 150000, Errors: 3, Throughput: 4998.7, P99US: 2500},
		{ID: 11, Status: "running", Abandoned: true, Start: start.Add(-time.Hour), System: "sim", Workload: "ycsb/workloadc",
			Model: "closed", Clients: 4},
	}
	var buf bytes.Buffer
	if err := RunList(&buf, rows); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	want := map[string]string{
		"id":  "id started status system workload load ops/s p99 errors name",
		"12 ": "12 2025-06-01 12:30 done redis 7.2 ycsb/workloada open 16 @5,000/s 4,999 2.50ms 3 baseline [nightly,v7]",
		"11 ": "11 2025-06-01 11:30 abandoned sim ycsb/workloadc closed 4 - - -",
	}
	for prefix, w := range want {
		if got := strings.Join(fieldsOf(t, out, prefix), " "); got != w {
			t.Errorf("line %q:\n got %q\nwant %q", prefix, got, w)
		}
	}
	// Left-aligned text columns: "status" starts where the statuses start.
	lines := strings.Split(out, "\n")
	col := strings.Index(lines[0], "status")
	for _, l := range lines[1:3] {
		if !strings.HasPrefix(l[col:], "done") && !strings.HasPrefix(l[col:], "abandoned") {
			t.Errorf("status column not aligned:\n%s", out)
		}
	}
	buf.Reset()
	if err := RunList(&buf, nil); err != nil || buf.String() != "no runs\n" {
		t.Errorf("empty list = %q, %v", buf.String(), err)
	}
}

// detail builds a stored run with a measure phase of READ and UPDATE.
func detail(id int64, tput, p50, p95, p99 float64, withUpdate bool) *results.RunDetail {
	start := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	read := measure.OpSummary{Op: "READ", Count: 1000, Throughput: tput,
		Response: measure.Stats{P50: int64(p50), P95: int64(p95), P99: int64(p99)}}
	ops := []measure.OpSummary{read}
	if withUpdate {
		ops = append(ops, measure.OpSummary{Op: "UPDATE", Count: 10, Throughput: 1, Response: measure.Stats{P50: 10, P95: 10, P99: 10}})
	}
	d := &results.RunDetail{
		RunRow: results.RunRow{ID: id, Status: "done", Start: start, End: start.Add(40 * time.Second),
			System: "redis", ServerVersion: "7.2", Workload: "ycsb/workloada"},
		Phases: []measure.Summary{
			{Phase: measure.PhaseWarmup, Start: start, End: start.Add(10 * time.Second), Overall: measure.OpSummary{Count: 500, Throughput: 50}},
			{Phase: measure.PhaseMeasure, Start: start.Add(10 * time.Second), End: start.Add(40 * time.Second), Ops: ops,
				Overall: measure.OpSummary{Count: 1010, Throughput: tput + 1, Response: read.Response}},
		},
	}
	d.Info = results.RunInfo{System: "redis", ServerVersion: "7.2", Workload: "ycsb/workloada", Driver: "redis",
		Target: "redis://127.0.0.1:6379", Command: "dbrig run -P workloads/workloada",
		Props: map[string]string{"recordcount": "1000", "fieldcount": "10"},
		Load:  loadmodel.Load{Model: "closed", Clients: 4, Duration: 30 * time.Second, Seed: 7},
		Host:  results.Host{Hostname: "bench1", Cores: 2, MemoryBytes: 4 << 30}}
	return d
}

// seconds are n per-second interval rows of READ and OVERALL whose figures
// wobble ±1 % around the summary's.
func seconds(d *results.RunDetail, n int) analysis.Run {
	s, _ := measure.Measured(d.Phases)
	read := s.Ops[0]
	var ivs []results.IntervalRow
	for i := range n {
		f := 1 + float64(i%3-1)/100
		for _, op := range []string{"READ", measure.OverallOp} {
			ivs = append(ivs, results.IntervalRow{Phase: measure.PhaseMeasure, Op: op, Length: time.Second,
				Count: int64(read.Throughput * f), P50US: int64(float64(read.Response.P50) * f),
				P95US: int64(float64(read.Response.P95) * f), P99US: int64(float64(read.Response.P99) * f)})
		}
	}
	return analysis.Run{Detail: d, Intervals: ivs}
}

func TestRunCompare(t *testing.T) {
	a := seconds(detail(1, 1000, 1000, 1200, 1000, true), 30)
	b := seconds(detail(2, 1010, 900, 1200, 1500, false), 30)
	var buf bytes.Buffer
	if err := RunCompare(&buf, a, b); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	readBlock := out[strings.Index(out, "READ"):]
	tests := []struct{ prefix, want string }{
		{"ops/s", "ops/s 1,000 1,010 +1.0% [+0.0%, +2.0%] 0.002 no significant change"}, // the interval reaches 0
		{"p50", "p50 1.00ms 900µs -10.0% [-10.9%, -9.1%] <0.001 better"},                // lower latency is better
		{"p95", "p95 1.20ms 1.20ms +0.0% [-1.0%, +1.0%] 1.000 no significant change"},   // unchanged
		{"p99", "p99 1.00ms 1.50ms +50.0% [+48.5%, +51.5%] <0.001 worse"},               // higher latency is worse
	}
	for _, tt := range tests {
		if got := strings.Join(fieldsOf(t, readBlock, tt.prefix), " "); got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.prefix, got, tt.want)
		}
	}
	if got := strings.Join(fieldsOf(t, out, "UPDATE"), " "); got != "UPDATE not in B" {
		t.Errorf("UPDATE line = %q", got)
	}
	if !strings.HasPrefix(out, "A: run 1 · redis 7.2 · ycsb/workloada · done\nB: run 2") {
		t.Errorf("compare header:\n%s", out)
	}

	// Higher throughput is better.
	buf.Reset()
	if err := RunCompare(&buf, a, seconds(detail(3, 1500, 1000, 1200, 1000, true), 30)); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(fieldsOf(t, buf.String(), "ops/s"), " "); !strings.HasPrefix(got, "ops/s 1,000 1,500 +50.0%") || !strings.HasSuffix(got, "better") {
		t.Errorf("throughput up: %q", got)
	}
	// Single short runs are not called better or worse, however large the
	// change: too few seconds, or none stored.
	for _, tt := range []struct {
		b    analysis.Run
		want string
	}{
		{seconds(detail(3, 1500, 1000, 1200, 1000, true), 3), "ops/s 1,000 1,500 +50.0% — — too few seconds (30 vs 3, need 5)"},
		{analysis.Run{Detail: detail(3, 1500, 1000, 1200, 1000, true)}, "ops/s 1,000 1,500 +50.0% — — no per-second samples"},
	} {
		buf.Reset()
		if err := RunCompare(&buf, a, tt.b); err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(fieldsOf(t, buf.String(), "ops/s"), " "); got != tt.want {
			t.Errorf("short run:\n got %q\nwant %q", got, tt.want)
		}
	}
	// A run without a measure phase cannot be compared.
	noMeasure := detail(4, 1, 1, 1, 1, true)
	noMeasure.Phases = noMeasure.Phases[:1]
	buf.Reset()
	if err := RunCompare(&buf, a, analysis.Run{Detail: noMeasure}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "run 4 has no measure phase") {
		t.Errorf("compare without measure phase:\n%s", buf.String())
	}
}

func TestRunShow(t *testing.T) {
	d := detail(5, 1000, 1000, 1200, 1500, true)
	d.Status, d.Message = "failed", "connection refused"
	d.Events = []results.Event{{Time: d.Start.Add(1500 * time.Millisecond), Kind: "fault", Name: "kill", Outcome: "ok", Detail: "node 2"}}
	var buf bytes.Buffer
	if err := RunShow(&buf, d); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"run 5 · redis 7.2 · ycsb/workloada · failed\n",
		"status    failed: connection refused\n",
		"target    redis://127.0.0.1:6379\n",
		"load      closed 4, duration 30s, seed 7\n",
		"host      bench1, 2 cores, 4.0 GiB\n",
		"properties:\n  fieldcount=10\n  recordcount=1000\n",
		"warmup phase: 10s, 500 operations, 50.0 ops/s, 0 errors\n",
		"measure phase: 30s, 1,010 operations, 1,001 ops/s",
		"  +1.5s  fault  kill  ok  node 2\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("RunShow lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\ndbrig ") {
		t.Errorf("empty dbrig version line shown:\n%s", out)
	}
	if got := strings.Join(fieldsOf(t, out, "READ"), " "); !strings.HasPrefix(got, "READ 1,000 0 1,000") {
		t.Errorf("READ row = %q", got)
	}
}

// TestRunShowFromStore renders a run as the store gives it back.
func TestRunShowFromStore(t *testing.T) {
	ctx := context.Background()
	s, err := results.Open(ctx, filepath.Join(t.TempDir(), "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sum := histSummary(t)
	id, err := s.CreateRun(ctx, results.RunInfo{System: "sim", Workload: "ycsb/workloadc", Start: sum.Start,
		Target: "postgres://u:hunter2@127.0.0.1/db"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AddPhase(ctx, id, sum); err != nil {
		t.Fatal(err)
	}
	if err := s.FinishRun(ctx, id, results.StatusDone, sum.End, ""); err != nil {
		t.Fatal(err)
	}
	d, err := s.Run(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := RunShow(&buf, d); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	r := sum.Ops[0].Response
	want := []string{"READ", "1,000", "7", "100", format.Micros(r.Mean), format.MicrosInt(r.P50), format.MicrosInt(r.P90),
		format.MicrosInt(r.P95), format.MicrosInt(r.P99), format.MicrosInt(r.P999), format.MicrosInt(r.Max)}
	if got := fieldsOf(t, out, "READ"); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("READ row = %q, want %q", got, want)
	}
	if !strings.Contains(out, "target    postgres://u:REDACTED@127.0.0.1/db") || strings.Contains(out, "hunter2") {
		t.Errorf("target not shown redacted:\n%s", out)
	}
	if !strings.Contains(out, "OVERALL  1,250") {
		t.Errorf("no OVERALL row:\n%s", out)
	}
	if strings.Contains(out, "workers:") {
		t.Errorf("a one-process run shows workers:\n%s", out)
	}

	// A distributed run lists its workers, the lost one with when.
	ws := []results.Worker{
		{Index: 0, Host: "gen-a", PID: 101, ClockOffset: 55 * time.Microsecond, RTT: 200 * time.Microsecond, Ops: 600, Records: 500, Status: results.WorkerDone},
		{Index: 1, Host: "gen-b", PID: 102, ClockOffset: -66 * time.Microsecond, RTT: 300 * time.Microsecond, Ops: 400, Records: 500,
			Status: results.WorkerLost, LostAt: sum.Start.Add(2500 * time.Millisecond), Detail: "no message for 3s"},
	}
	if err := s.AddWorkers(ctx, id, ws); err != nil {
		t.Fatal(err)
	}
	if d, err = s.Run(ctx, id); err != nil {
		t.Fatal(err)
	}
	buf.Reset()
	if err := RunShow(&buf, d); err != nil {
		t.Fatal(err)
	}
	out = buf.String()
	for _, want := range [][]string{
		{"0", "gen-a", "101", "done", "500", "600", "55µs", "±", "100µs"},
		{"1", "gen-b", "102", "lost", "500", "400", "-66µs", "±", "150µs", "lost", "at", "+2.5s", "no", "message", "for", "3s"},
	} {
		var got []string
		for _, l := range strings.Split(out, "\n") {
			if f := strings.Fields(l); len(f) > 1 && f[1] == want[1] {
				got = f
			}
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("worker row = %q, want %q:\n%s", got, want, out)
		}
	}
}
