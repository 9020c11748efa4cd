package experiment

import (
	"testing"
	"time"

	"github.com/dbrig/dbrig/analysis"
	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/results"
	"github.com/dbrig/dbrig/run"
)

// The stable trigger's band and the impact's recovery threshold are one
// rule (mean + 2σ, analysis.CalmBound): given the same calm values, as
// per-second p99s and as operation latencies, they agree — unless the
// band's floor of 10 % above the mean is higher.
func TestStableBandIsTheCalmBound(t *testing.T) {
	cases := []struct {
		calm  []int64
		want  int64
		floor bool // the band is 10 % above the mean, above mean + 2σ
	}{
		{[]int64{1000, 1100, 900}, 1164, false},
		{[]int64{200, 900, 400, 650}, 1064, false},
		{[]int64{1000, 1000, 1000}, 1100, true}, // σ 0
		{[]int64{1000, 1020, 980}, 1100, true},  // 2σ 33
	}
	for _, tc := range cases {
		in := newInjector(nil, nil, nil, func(run.Event) {})
		var ops []results.TimedOp
		for i, v := range tc.calm {
			in.Interval(second(v, 0))
			ops = append(ops, results.TimedOp{StartUS: int64(i) * 1000, LatencyUS: v, OK: true})
		}
		band, ok := in.band(time.Now())
		if !ok || band != tc.want {
			t.Errorf("%v: band %d (%v), want %d", tc.calm, band, ok, tc.want)
		}
		ops = append(ops, results.TimedOp{StartUS: 10_000, LatencyUS: 1, OK: true})
		im := analysis.Precise([]analysis.Impact{{Baseline: analysis.Window{To: 10 * time.Millisecond},
			Start: 10 * time.Millisecond, After: analysis.Window{To: 20 * time.Millisecond}}}, ops)[0]
		if tc.floor && im.Threshold >= band || !tc.floor && im.Threshold != band {
			t.Errorf("%v: the impact's threshold %d, the stable band %d: one rule", tc.calm, im.Threshold, band)
		}
	}
}

// A second's p99 is measure's (nearest rank): of 1…60 µs the 60th value.
func TestStableSampleP99IsMeasures(t *testing.T) {
	h := measure.NewHistogram()
	for v := int64(1); v <= 60; v++ {
		h.RecordValue(v)
	}
	if measure.Percentile(h, 99) == h.ValueAtPercentile(99) {
		t.Fatal("the values do not tell the two ranks apart")
	}
	in := newInjector(nil, nil, nil, func(run.Event) {})
	end := time.Now()
	in.Interval(measure.Interval{Phase: measure.PhaseMeasure, Start: end.Add(-time.Second), End: end,
		Ops: []measure.OpInterval{{Op: "READ", Count: 60, Response: h}}})
	if got, want := in.samples[0].p99, measure.Percentile(h, 99); got != want {
		t.Errorf("p99 %d, want %d", got, want)
	}
}
