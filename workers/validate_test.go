package workers

import (
	"math"
	"os"
	"testing"
	"time"

	"github.com/dbrig/dbrig/driver/sim"
	"github.com/dbrig/dbrig/experiment"
	"github.com/dbrig/dbrig/measure"
)

// TestValidationOnWorkers is dbrig validate's open-model run (a simulated
// store that stalls for a second) on two worker processes: each simulates
// its own store and gets half the rate, so the queue model predicts each
// worker's operations from its own store's origin; the merged mean must
// match the prediction within the tolerance a single process must meet.
func TestValidationOnWorkers(t *testing.T) {
	if os.Getenv("DBRIG_TIMING_TESTS") != "1" {
		t.Skip("timing-sensitive, as experiment's TestValidationShort: set DBRIG_TIMING_TESTS=1 on an otherwise idle machine (scripts/test does)")
	}
	const n = 2
	v := experiment.ClassicValidation(true)
	// Each worker simulates its own store and loads only its share of the
	// records, so half of workload C's reads would miss (not_found) and the
	// run would count as mostly failed; one-record scans cost the simulated
	// server what reads do and never miss.
	opts := v.OpenOptions("")
	opts.Props = append(opts.Props, "readproportion=0", "scanproportion=1", "maxscanlength=1")
	r := distributed(t, setup{opts: opts, n: n})
	if r.err != nil || r.out == nil {
		t.Fatalf("run: %v", r.err)
	}
	sum, ok := r.out.Measured()
	started := r.out.PhaseStarts[measure.PhaseMeasure]
	if !ok || started.IsZero() {
		t.Fatal("no measure phase")
	}
	var weighted float64
	var total int64
	for i, origin := range r.c.Origins() {
		if origin.IsZero() {
			t.Fatalf("worker %d reported no sim origin", i)
		}
		ops := int(v.Ops) / n
		if i < int(v.Ops)%n {
			ops++
		}
		rate := v.Rate / n
		pred := sim.Model{Capacity: v.Capacity, Hiccups: []sim.Hiccup{v.Hiccup}}.Predict(sim.ConstantArrivals(ops, rate, started.Sub(origin)))
		weighted += float64(pred.Mean) * float64(ops)
		total += int64(ops)
	}
	predicted := time.Duration(weighted / float64(total))
	measured := time.Duration(sum.Overall.Response.Mean * float64(time.Microsecond))
	dev := math.Abs(float64(measured-predicted)) / float64(predicted)
	t.Logf("%d workers: predicted mean %v, measured %v, deviation %.2f%% (tolerance %.0f%%), %d operations", n, predicted, measured, dev*100, v.Tolerance*100, sum.Overall.Count)
	if sum.Overall.Count != v.Ops {
		t.Errorf("measured %d operations, want %d", sum.Overall.Count, v.Ops)
	}
	if dev > v.Tolerance {
		t.Errorf("merged mean %v deviates %.1f%% from the queue model's %v (tolerance %.0f%%)", measured, dev*100, predicted, v.Tolerance*100)
	}
}
