package report

import (
	"testing"
	"time"

	"github.com/dbrig/dbrig/measure"
)

func TestProgress(t *testing.T) {
	same := func(n int, v int64) []int64 {
		out := make([]int64, n)
		for i := range out {
			out[i] = v
		}
		return out
	}
	// 9,000 reads at 800µs and 998 updates at 1,200µs: the p99 of all is 1.20ms.
	iv := measure.Interval{Phase: measure.PhaseMeasure, Start: t0, End: t0.Add(time.Second), Dropped: 5,
		Ops: []measure.OpInterval{
			{Op: "READ", Count: 9000, Errors: 2, Response: histOf(t, same(9000, 800)...)},
			{Op: "UPDATE", Count: 998, Response: histOf(t, same(998, 1200)...)},
		}}
	tests := []struct {
		name         string
		iv           measure.Interval
		elapsed, eta time.Duration
		want         string
	}{
		{"measure", iv, 12 * time.Second, 48 * time.Second, "elapsed 12s | 9,996 ops/s | p99 1.20ms | errors 2 (0.0%) | dropped 5 | ETA 48s"},
		{"unknown eta", iv, 12 * time.Second, -1, "elapsed 12s | 9,996 ops/s | p99 1.20ms | errors 2 (0.0%) | dropped 5"},
		{"mostly failed", measure.Interval{Phase: measure.PhaseMeasure, Start: t0, End: t0.Add(time.Second),
			Ops: []measure.OpInterval{{Op: "SCAN", Count: 1000, Errors: 950, Response: histOf(t, same(1000, 90)...)}}},
			time.Second, -1, "elapsed 1.0s | 50.0 ops/s | p99 90µs | errors 950 (95%) | dropped 0"},
		{"half-second interval", measure.Interval{Phase: measure.PhaseWarmup, Start: t0, End: t0.Add(500 * time.Millisecond),
			Ops: []measure.OpInterval{{Op: "READ", Count: 50, Response: histOf(t, same(50, 90)...)}}},
			3 * time.Second, 0, "warmup | elapsed 3.0s | 100 ops/s | p99 90µs | errors 0 | dropped 0 | ETA 0.0s"},
		{"with dispatch lag", measure.Interval{Phase: measure.PhaseMeasure, Start: t0, End: t0.Add(time.Second),
			Ops: []measure.OpInterval{{Op: "READ", Count: 50, Response: histOf(t, same(50, 90)...)}}, Lag: histOf(t, same(50, 12)...)},
			time.Second, -1, "elapsed 1.0s | 50.0 ops/s | p99 90µs | lag p99 12µs | errors 0 | dropped 0"},
		{"stall", measure.Interval{Phase: measure.PhaseMeasure, Start: t0, End: t0.Add(time.Second), Dropped: 100},
			time.Minute, -1, "elapsed 1m00s | 0 ops/s | p99 0 | errors 0 | dropped 100"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Progress(tt.iv, tt.elapsed, tt.eta); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}
