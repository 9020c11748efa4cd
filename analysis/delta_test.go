package analysis

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/results"
)

func TestCompare(t *testing.T) {
	for _, tt := range []struct {
		name         string
		a, b         float64
		higherBetter bool
		rel          float64 // NaN: none
		verdict      Verdict
	}{
		{"throughput within noise", 1000, 1010, true, 0.01, Same},
		{"throughput up", 1000, 1500, true, 0.5, Better},
		{"throughput down", 1000, 500, true, -0.5, Worse},
		{"latency down", 1000, 900, false, -0.1, Better},
		{"latency up", 1000, 1500, false, 0.5, Worse},
		{"unchanged", 1200, 1200, false, 0, Same},
		{"exactly the noise counts", 100, 105, false, 0.05, Worse},
		{"just under the noise", 100, 104.9, false, 0.049, Same},
		{"negative base: sign follows the value", -10, -5, true, -0.5, Worse},
		{"both zero", 0, 0, true, math.NaN(), Same},
		{"from zero", 0, 5, false, math.NaN(), Same},
		{"to zero", 8, 0, false, -1, Better},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := Compare(tt.a, tt.b, tt.higherBetter)
			if c.A != tt.a || c.B != tt.b {
				t.Errorf("A, B = %v, %v; want %v, %v", c.A, c.B, tt.a, tt.b)
			}
			if math.IsNaN(tt.rel) != math.IsNaN(c.Rel) || (!math.IsNaN(tt.rel) && math.Abs(c.Rel-tt.rel) > 1e-9) {
				t.Errorf("Rel = %v, want %v", c.Rel, tt.rel)
			}
			if c.Verdict != tt.verdict {
				t.Errorf("Verdict = %v, want %v", c.Verdict, tt.verdict)
			}
		})
	}
}

func TestMetrics(t *testing.T) {
	o := measure.OpSummary{Throughput: 250.5, Errors: 3,
		Response: measure.Stats{Mean: 1.5, P50: 10, P95: 20, P99: 30, P999: 40, Max: 50}}
	for _, tt := range []struct {
		m             Metric
		name          string
		value         float64
		higher, latex bool
	}{
		{Throughput, "ops/s", 250.5, true, false}, {Errors, "errors", 3, false, false},
		{Mean, "mean", 1.5, false, true}, {P50, "p50", 10, false, true}, {P95, "p95", 20, false, true},
		{P99, "p99", 30, false, true}, {P999, "p99.9", 40, false, true}, {Max, "max", 50, false, true},
	} {
		if tt.m.String() != tt.name || tt.m.Of(o) != tt.value || tt.m.HigherIsBetter() != tt.higher || tt.m.Latency() != tt.latex {
			t.Errorf("%s: name %q, value %v, higher is better %v, latency %v", tt.name, tt.m, tt.m.Of(o), tt.m.HigherIsBetter(), tt.m.Latency())
		}
	}
}

func phase(name string, ops ...measure.OpSummary) measure.Summary {
	s := measure.Summary{Phase: name, Ops: ops}
	for _, o := range ops {
		s.Overall.Count += o.Count
		s.Overall.Throughput += o.Throughput
	}
	return s
}

func op(name string, count int64, tput float64, p99 int64) measure.OpSummary {
	return measure.OpSummary{Op: name, Count: count, Throughput: tput, Response: measure.Stats{P99: p99}}
}

func TestDiff(t *testing.T) {
	a := phase(measure.PhaseMeasure, op("READ", 100, 1000, 2000), op("UPDATE", 10, 100, 5000))
	b := phase(measure.PhaseMeasure, op("READ", 100, 1200, 1000), op("INSERT", 5, 50, 9000))
	d := Diff(&a, &b)
	var got []string
	for _, o := range d.Ops {
		s := o.Op
		if o.InA {
			s += " A"
		}
		if o.InB {
			s += " B"
		}
		got = append(got, s)
	}
	// A's operations, then OVERALL, then those only B has.
	if want := "READ A B, UPDATE A, OVERALL A B, INSERT B"; strings.Join(got, ", ") != want {
		t.Fatalf("ops = %q, want %q", strings.Join(got, ", "), want)
	}
	read, _ := d.Op("READ")
	if c := read.Change(Throughput); c.A != 1000 || c.B != 1200 || math.Abs(c.Rel-0.2) > 1e-9 || c.Verdict != Same {
		t.Errorf("READ ops/s change = %+v, want 1000 → 1200, +20%%, and no verdict without per-second samples", c)
	}
	if c := read.Change(P99); c.Rel != -0.5 || c.Verdict != Same || c.Stat.Enough() {
		t.Errorf("READ p99 change = %+v, want -50%%, no samples, no verdict", c)
	}
	all, _ := d.Op(measure.OverallOp)
	if c := all.Change(Throughput); c.A != 1100 || c.B != 1250 {
		t.Errorf("OVERALL ops/s = %v → %v, want 1100 → 1250", c.A, c.B)
	}
	if _, ok := d.Op("DELETE"); ok {
		t.Error("Op found an operation neither run has")
	}

	if got := Diff(nil, &b); len(got.Ops) != 3 || got.Ops[0].InA {
		t.Errorf("Diff(nil, b) = %+v, want B's 3 ops, none in A", got.Ops)
	}
	if got := Diff(&a, nil); len(got.Ops) != 3 || got.Ops[2].InB {
		t.Errorf("Diff(a, nil) = %+v, want A's 3 ops, none in B", got.Ops)
	}
}

func TestCompareRuns(t *testing.T) {
	start := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	run := func(id int64, phases ...measure.Summary) Run {
		return Run{Detail: &results.RunDetail{RunRow: results.RunRow{ID: id, Start: start}, Phases: phases}}
	}
	warm := phase(measure.PhaseWarmup, op("READ", 1, 1, 1))
	first := phase(measure.PhaseMeasure, op("READ", 10, 100, 1000))
	last := phase(measure.PhaseMeasure, op("READ", 10, 200, 1000))
	d, err := CompareRuns(run(1, first), run(2, warm, first, last, warm))
	if err != nil {
		t.Fatal(err)
	}
	if c := d.Ops[0].Change(Throughput); c.B != 200 {
		t.Errorf("B's throughput = %v, want 200 from its last measure phase", c.B)
	}
	for _, tt := range []struct {
		a, b Run
		want int64
	}{
		{run(3, warm), run(4, first), 3},
		{run(3, first), run(4, warm), 4},
		{run(3), run(4), 3},
	} {
		_, err := CompareRuns(tt.a, tt.b)
		var nm *NoMeasureError
		if !errors.As(err, &nm) || nm.RunID != tt.want {
			t.Errorf("CompareRuns(%d, %d) err = %v, want run %d has no measure phase", tt.a.Detail.ID, tt.b.Detail.ID, err, tt.want)
		}
	}
}
