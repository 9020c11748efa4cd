package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/dbrig/dbrig/experiment"
	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/spec"
)

// benchOut is a finished run of system sys (repetition rep of n) whose
// measure phase has one READ row.
func benchOut(id int64, sys string, rep, n int, status string, tp float64, p50, p99, count, errs int64) experiment.BenchOutcome {
	o := measure.OpSummary{Op: "READ", Count: count, Errors: errs, Throughput: tp, Response: measure.Stats{P50: p50, P99: p99}}
	all := o
	all.Op = ""
	return experiment.BenchOutcome{
		Run: experiment.BenchRun{Repeat: rep, Exp: spec.Experiment{Repeat: n, Matrix: []spec.MatrixPick{{Key: "system", Value: sys}}}},
		Outcome: &experiment.Outcome{RunID: id, Status: status,
			Phases: []measure.Summary{{Phase: measure.PhaseLoad}, {Phase: measure.PhaseMeasure, Ops: []measure.OpSummary{o}, Overall: all}}},
	}
}

func TestBenchComparisonTable(t *testing.T) {
	for _, tc := range []struct {
		name string
		outs []experiment.BenchOutcome
		want []string // lines (after trimming) the table must have
		not  []string
	}{
		{
			name: "two systems, one run each",
			outs: []experiment.BenchOutcome{
				benchOut(1, "redis", 1, 1, "done", 40000, 150, 900, 800000, 0),
				benchOut(2, "etcd", 1, 1, "done", 4000, 1800, 9500, 80000, 800),
			},
			want: []string{
				"comparison",
				"runs  op         ops/s  vs first     p50      p99       errors",
				"system=redis     1  OVERALL   40,000     1.00×   150µs    900µs            0",
				"READ      40,000             150µs    900µs            0",
				"system=etcd      1  OVERALL    4,000     0.10×  1.80ms  9.50ms    800 (1.0%)",
			},
			not: []string{"median"},
		},
		{
			name: "repeats: median and range, a failed run not counted",
			outs: []experiment.BenchOutcome{
				benchOut(1, "redis", 1, 3, "done", 40000, 100, 800, 1000, 0),
				benchOut(2, "redis", 2, 3, "done", 44000, 100, 1000, 1000, 0),
				benchOut(3, "redis", 3, 3, "done", 42000, 100, 900, 1000, 0),
				benchOut(4, "etcd", 1, 3, "done", 4000, 2000, 9000, 1000, 10),
				benchOut(5, "etcd", 2, 3, "failed", 10, 2000, 9000, 1000, 990),
				benchOut(6, "etcd", 3, 3, "done", 5000, 2000, 9000, 1000, 30),
			},
			want: []string{
				"comparison: median [min … max] over the repeats",
				"system=redis     3  OVERALL  42,000 [40,000 … 44,000]     1.00×   100µs  900µs [800µs … 1.00ms]  0",
				"system=etcd      2  OVERALL    4,500 [4,000 … 5,000]     0.11×  2.00ms                  9.00ms  20 [10 … 30] (2.0%)",
				"system=etcd: not counted: run 5 failed",
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			Comparison(&b, "x", BenchComparison(tc.outs))
			got := b.String()
			lines := map[string]bool{}
			for _, l := range strings.Split(got, "\n") {
				lines[strings.Join(strings.Fields(l), " ")] = true
			}
			for _, w := range tc.want {
				if !lines[strings.Join(strings.Fields(w), " ")] {
					t.Errorf("no line %q in\n%s", w, got)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(got, n) {
					t.Errorf("%q in\n%s", n, got)
				}
			}
		})
	}
}

// bench --json carries the comparison with the figures of the table.
func TestBenchJSONComparison(t *testing.T) {
	outs := []experiment.BenchOutcome{
		benchOut(1, "redis", 1, 2, "done", 40000, 100, 800, 1000, 0),
		benchOut(2, "redis", 2, 2, "done", 44000, 120, 1000, 1000, 0),
		benchOut(3, "etcd", 1, 2, "interrupted", 10, 2000, 9000, 1000, 0),
		benchOut(4, "etcd", 2, 2, "done", 4200, 2000, 9000, 1000, 10),
	}
	for i := range outs {
		outs[i].Run.Plan = &experiment.Plan{}
	}
	var buf bytes.Buffer
	if err := BenchJSON(&buf, &experiment.Bench{Name: "x"}, outs); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Comparison []struct {
			Group      string  `json:"group"`
			Runs       []int64 `json:"runs"`
			NotCounted []struct {
				RunID int64  `json:"run_id"`
				Why   string `json:"why"`
			} `json:"not_counted"`
			Ratio *float64 `json:"throughput_ratio"`
			Ops   []struct {
				Op         string             `json:"op"`
				Throughput map[string]float64 `json:"throughput"`
				P50US      map[string]float64 `json:"p50_us"`
				ErrorPct   map[string]float64 `json:"error_pct"`
			} `json:"ops"`
		} `json:"comparison"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Comparison) != 2 {
		t.Fatalf("comparison %+v, want 2 groups", doc.Comparison)
	}
	r, e := doc.Comparison[0], doc.Comparison[1]
	for _, tc := range []struct {
		name      string
		got, want any
	}{
		{"redis group", r.Group, "system=redis"},
		{"redis runs", len(r.Runs), 2},
		{"redis ops", len(r.Ops), 2},
		{"redis OVERALL first", r.Ops[0].Op, "OVERALL"},
		{"redis ops/s median", r.Ops[0].Throughput["median"], 42000.0},
		{"redis ops/s min", r.Ops[0].Throughput["min"], 40000.0},
		{"redis ops/s n", r.Ops[0].Throughput["n"], 2.0},
		{"redis p50 max", r.Ops[0].P50US["max"], 120.0},
		{"redis ratio", *r.Ratio, 1.0},
		{"etcd runs", len(e.Runs), 1},
		{"etcd not counted", len(e.NotCounted), 1},
		{"etcd not counted run", e.NotCounted[0].RunID, int64(3)},
		{"etcd not counted why", e.NotCounted[0].Why, "interrupted"},
		{"etcd ratio", *e.Ratio, 0.1},
		{"etcd error %", e.Ops[1].ErrorPct["median"], 1.0},
	} {
		if tc.got != tc.want {
			t.Errorf("%s = %v, want %v", tc.name, tc.got, tc.want)
		}
	}
}
