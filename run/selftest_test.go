package run

import (
	"slices"
	"testing"
	"time"

	"github.com/dbrig/dbrig/measure"
)

// The soak reports every second but samples memory only every --every.
func TestSoakObserverSamplesEvery(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	for _, tt := range []struct {
		name      string
		iv, every time.Duration
		early     time.Duration // each cut this much before its second
		ends      int           // intervals in the measure phase
		want      []int64       // operations counted at each sample
	}{
		{"every interval", 250 * time.Millisecond, 250 * time.Millisecond, 0, 4, []int64{1010, 1020, 1030, 1040}},
		{"every third second", time.Second, 3 * time.Second, 0, 10, []int64{1030, 1060, 1090}},
		{"early cuts still sample", time.Second, 2 * time.Second, time.Millisecond, 5, []int64{1020, 1040}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got []int64
			o := &soakObserver{every: tt.every, slack: tt.iv / 2, sample: func(ops, _ int64) { got = append(got, ops) }}
			// The warm-up's operations count, but the warm-up is not sampled.
			o.Interval(measure.Interval{Phase: measure.PhaseWarmup, Start: t0.Add(-tt.iv), End: t0, Ops: []measure.OpInterval{{Count: 1000}}})
			for i := range tt.ends {
				start := t0.Add(time.Duration(i) * tt.iv)
				o.Interval(measure.Interval{Phase: measure.PhaseMeasure, Start: start, End: start.Add(tt.iv - tt.early), Ops: []measure.OpInterval{{Count: 10}}})
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("sampled at ops %v, want %v", got, tt.want)
			}
		})
	}
}
