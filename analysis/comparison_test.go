package analysis

import (
	"math"
	"testing"

	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/results"
)

// cmpPhase is a measure phase with an OVERALL row and one row per op given as
// op, count, errors, throughput, p50, p99.
func cmpPhase(overall measure.OpSummary, ops ...measure.OpSummary) *measure.Summary {
	return &measure.Summary{Phase: measure.PhaseMeasure, Overall: overall, Ops: ops}
}

func cmpOp(name string, count, errs int64, tp float64, p50, p99 int64) measure.OpSummary {
	return measure.OpSummary{Op: name, Count: count, Errors: errs, Throughput: tp, Response: measure.Stats{P50: p50, P99: p99}}
}

func TestCompareBench(t *testing.T) {
	redis := func(tp float64, p99 int64) *measure.Summary {
		return cmpPhase(cmpOp("", 1000, 0, tp, 100, p99), cmpOp("READ", 500, 0, tp/2, 90, p99), cmpOp("UPDATE", 500, 0, tp/2, 110, p99))
	}
	etcd := func(tp float64, errs int64) *measure.Summary {
		return cmpPhase(cmpOp("", 1000, errs, tp, 2000, 9000), cmpOp("READ", 500, 0, tp/2, 1500, 8000), cmpOp("UPDATE", 500, errs, tp/2, 2500, 9000), cmpOp("SCAN", 0, 0, 0, 0, 0))
	}
	c := CompareBench([]BenchRunFigures{
		{Group: "system=redis", RunID: 1, Status: "done", Measured: redis(40000, 300)},
		{Group: "system=redis", RunID: 2, Status: "done", Measured: redis(44000, 500)},
		{Group: "system=redis", RunID: 3, Status: "done", Measured: redis(42000, 400)},
		{Group: "system=etcd", RunID: 4, Status: "done", Measured: etcd(4000, 10)},
		{Group: "system=etcd", RunID: 5, Status: "interrupted", Measured: etcd(100, 0)},
		{Group: "system=etcd", RunID: 6, Status: "done", Measured: nil},
		{Group: "system=etcd", RunID: 7, Status: "done", Measured: etcd(5000, 30)},
	})
	if got := len(c.Rows); got != 2 {
		t.Fatalf("%d rows, want 2", got)
	}
	if want := []string{"OVERALL", "READ", "UPDATE", "SCAN"}; len(c.Ops) != 4 || c.Ops[0] != want[0] || c.Ops[3] != want[3] {
		t.Errorf("ops %v, want %v", c.Ops, want)
	}
	r, e := c.Rows[0], c.Rows[1]
	for _, tc := range []struct {
		name      string
		got, want Stat
	}{
		{"redis OVERALL ops/s", r.Ops[0].Throughput, Stat{Median: 42000, Min: 40000, Max: 44000, N: 3}},
		{"redis OVERALL p99", r.Ops[0].P99US, Stat{Median: 400, Min: 300, Max: 500, N: 3}},
		{"redis READ p50", r.Ops[1].P50US, Stat{Median: 90, Min: 90, Max: 90, N: 3}},
		{"redis has no SCAN", r.Ops[3].Throughput, Stat{}},
		// Two counted runs: the median is the mean of the two.
		{"etcd OVERALL ops/s", e.Ops[0].Throughput, Stat{Median: 4500, Min: 4000, Max: 5000, N: 2}},
		{"etcd UPDATE errors", e.Ops[2].Errors, Stat{Median: 20, Min: 10, Max: 30, N: 2}},
		{"etcd UPDATE error rate", e.Ops[2].ErrorRatePct, Stat{Median: 4, Min: 2, Max: 6, N: 2}},
		{"etcd SCAN never ran: no error rate", e.Ops[3].ErrorRatePct, Stat{}},
	} {
		if tc.got != tc.want {
			t.Errorf("%s = %+v, want %+v", tc.name, tc.got, tc.want)
		}
	}
	if len(r.Runs) != 3 || len(e.Runs) != 2 || e.Runs[0] != 4 || e.Runs[1] != 7 {
		t.Errorf("counted runs %v and %v, want [1 2 3] and [4 7]", r.Runs, e.Runs)
	}
	if len(e.Left) != 2 || e.Left[0] != (BenchLeft{5, "interrupted"}) || e.Left[1] != (BenchLeft{6, "no measure phase"}) {
		t.Errorf("left %+v, want run 5 interrupted and run 6 without a measure phase", e.Left)
	}
	if r.ThroughputRatio != 1 || math.Abs(e.ThroughputRatio-4500.0/42000) > 1e-12 {
		t.Errorf("ratios %v %v, want 1 and %v", r.ThroughputRatio, e.ThroughputRatio, 4500.0/42000)
	}
}

// A combination none of whose runs counted has no figures and no ratio; it
// still has its row, so the table says what happened to it.
func TestCompareBenchNothingCounted(t *testing.T) {
	c := CompareBench([]BenchRunFigures{
		{Group: "clients=1", RunID: 1, Status: "failed"},
		{Group: "clients=4", RunID: 2, Status: "done", Measured: cmpPhase(cmpOp("", 10, 0, 10, 1, 2))},
	})
	if len(c.Rows) != 2 || c.Rows[0].Ops[0].Throughput.N != 0 || c.Rows[0].ThroughputRatio != 0 || c.Rows[1].ThroughputRatio != 0 {
		t.Errorf("rows %+v", c.Rows)
	}
	if len(c.Rows[0].Left) != 1 || c.Rows[0].Left[0].Why != "failed" {
		t.Errorf("left %+v", c.Rows[0].Left)
	}
}

// Headline metrics (points/s, bytes per point, tpmC) stand beside the
// operations: over the counted runs only, in the order first seen, and a
// combination without one has N = 0 there.
func TestCompareBenchHeadline(t *testing.T) {
	m := func(name string, v float64, unit string) results.RunMetric {
		return results.RunMetric{Name: name, Value: v, Unit: unit}
	}
	ph := cmpPhase(cmpOp("", 100, 0, 10, 1, 2))
	c := CompareBench([]BenchRunFigures{
		{Group: "system=influxdb", RunID: 1, Status: "done", Measured: ph, Headline: []results.RunMetric{m("points/s", 20000, "points/s"), m("bytes_per_point", 19.5, "B")}},
		{Group: "system=influxdb", RunID: 2, Status: "done", Measured: ph, Headline: []results.RunMetric{m("points/s", 24000, "points/s"), m("bytes_per_point", 18.5, "B")}},
		{Group: "system=influxdb", RunID: 3, Status: "interrupted", Measured: ph, Headline: []results.RunMetric{m("points/s", 1, "points/s")}},
		{Group: "system=postgres", RunID: 4, Status: "done", Measured: ph, Headline: []results.RunMetric{m("points/s", 46000, "points/s")}},
	})
	if want := []string{"points/s", "bytes_per_point"}; len(c.Headline) != 2 || c.Headline[0] != want[0] || c.Headline[1] != want[1] {
		t.Fatalf("headline names %v, want %v", c.Headline, want)
	}
	for _, tc := range []struct {
		name string
		got  BenchHeadline
		want BenchHeadline
	}{
		{"influxdb points/s (the interrupted run not counted)", c.Rows[0].Headline[0], BenchHeadline{"points/s", "points/s", Stat{Median: 22000, Min: 20000, Max: 24000, N: 2}}},
		{"influxdb bytes", c.Rows[0].Headline[1], BenchHeadline{"bytes_per_point", "B", Stat{Median: 19, Min: 18.5, Max: 19.5, N: 2}}},
		{"postgres points/s", c.Rows[1].Headline[0], BenchHeadline{"points/s", "points/s", Stat{Median: 46000, Min: 46000, Max: 46000, N: 1}}},
		{"postgres has no bytes figure", c.Rows[1].Headline[1], BenchHeadline{"bytes_per_point", "B", Stat{}}},
	} {
		if tc.got != tc.want {
			t.Errorf("%s = %+v, want %+v", tc.name, tc.got, tc.want)
		}
	}
}
