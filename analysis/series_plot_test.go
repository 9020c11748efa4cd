package analysis

import (
	"testing"
	"time"

	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/results"
)

// row is one interval of OVERALL in a phase, ending at end, length long.
func row(phase string, end, length time.Duration, count, p99 int64) results.IntervalRow {
	return results.IntervalRow{Phase: phase, T: end, Length: length, Op: measure.OverallOp, Count: count, P99US: p99, P50US: p99 / 2, P95US: p99}
}

// A load phase of two seconds (a 300 ms batch p99 in each) and a measure
// phase of three whole seconds and a trailing 200 ms in which the clients
// stopped (20 operations: 100/s against 1000/s before).
func TestChartsPartialSecondAndLoadScale(t *testing.T) {
	s := time.Second
	ivs := []results.IntervalRow{
		row(measure.PhaseLoad, 1*s, s, 500, 300000), row(measure.PhaseLoad, 2*s, s, 500, 300000),
		row(measure.PhaseLoad, 2400*time.Millisecond, 400*time.Millisecond, 50, 300000), // partial: left out too
		row(measure.PhaseMeasure, 3400*time.Millisecond, s, 1000, 2000), row(measure.PhaseMeasure, 4400*time.Millisecond, s, 1000, 4000),
		row(measure.PhaseMeasure, 5400*time.Millisecond, s, 1000, 3000),
		row(measure.PhaseMeasure, 5600*time.Millisecond, 200*time.Millisecond, 20, 9000),
	}
	for _, tc := range []struct {
		name string
		ivs  []results.IntervalRow
		x    []Num
		tput []Num
		ymax float64
	}{
		{"load and measure", ivs, nums(1, 2, 3.4, 4.4, 5.4), nums(500, 500, 1000, 1000, 1000), 4},
		{"measure only", ivs[3:], nums(3.4, 4.4, 5.4), nums(1000, 1000, 1000), 0},
		// One interval only: partial or not, it is all there is.
		{"one short interval", ivs[6:], nums(5.6), nums(100), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := &results.RunDetail{RunRow: results.RunRow{ID: 1, Start: t0, End: t0.Add(6 * time.Second)}}
			set := Analyze([]Run{NewRun(d, tc.ivs)})
			var tp, lat *Chart
			for i, c := range set.Charts {
				switch c.ID {
				case ChartID(KindThroughput, measure.OverallOp):
					tp = &set.Charts[i]
				case ChartID(KindLatency, measure.OverallOp):
					lat = &set.Charts[i]
				}
			}
			if tp == nil || lat == nil {
				t.Fatalf("charts %v", set.Charts)
			}
			if !sameNums(tp.X, tc.x) || !sameNums(tp.Lines[0].Y, tc.tput) {
				t.Errorf("throughput at %v: %v; want at %v: %v", tp.X, tp.Lines[0].Y, tc.x, tc.tput)
			}
			if lat.YMax != tc.ymax {
				t.Errorf("latency y-scale top %v ms, want %v", lat.YMax, tc.ymax)
			}
		})
	}
}
