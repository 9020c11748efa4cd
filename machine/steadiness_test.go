package machine

import (
	"context"
	"math"
	"testing"
	"time"
)

func TestVariationOf(t *testing.T) {
	tests := []struct {
		name                       string
		rates                      []float64
		min, median, max, cv, minm float64
	}{
		{name: "none"},
		{name: "steady", rates: []float64{100, 100, 100}, min: 100, median: 100, max: 100, cv: 0, minm: 1},
		{name: "odd", rates: []float64{120, 60, 100, 80, 140}, min: 60, median: 100, max: 140, cv: math.Sqrt(800) / 100, minm: 0.6},
		{name: "even", rates: []float64{50, 100, 150, 100}, min: 50, median: 100, max: 150, cv: math.Sqrt(1250) / 100, minm: 0.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := variationOf(tt.rates)
			if s.Min != tt.min || s.Median != tt.median || s.Max != tt.max || math.Abs(s.CV-tt.cv) > 1e-9 || math.Abs(s.MinMedian-tt.minm) > 1e-9 {
				t.Errorf("variationOf(%v) = %+v, want min %g median %g max %g cv %g min/median %g", tt.rates, s, tt.min, tt.median, tt.max, tt.cv, tt.minm)
			}
		})
	}
}

// A machine whose cache-bound work halves every other window and whose
// arithmetic does not: the cache spread shows it, the ALU one does not, and
// the first window of each (a warmup) is left out.
func TestMeasureSeesUnsteadyWork(t *testing.T) {
	calls := 0
	cache := func(d time.Duration) int {
		calls++
		time.Sleep(d)
		if calls == 1 {
			return 1 // warmup: would drag the minimum down
		}
		if calls%2 == 0 {
			return 1000
		}
		return 500
	}
	alu := func(d time.Duration) int { time.Sleep(d); return 800 }
	s, err := measure(context.Background(), 100*time.Millisecond, 10*time.Millisecond, cache, alu)
	if err != nil {
		t.Fatal(err)
	}
	if s.Windows != 4 {
		t.Fatalf("%d windows per kind, want 4 (5 less the warmup)", s.Windows)
	}
	if s.Cache.MinMedian > 0.7 || s.Cache.CV < 0.2 {
		t.Errorf("cache spread %+v: want the halving seen (min/median ≈ 0.67: the median of 500 and 1000 is 750; CV ≈ 0.33)", s.Cache)
	}
	if s.ALU.CV > 0.1 || s.ALU.MinMedian < 0.8 {
		t.Errorf("ALU spread %+v: want it steady", s.ALU)
	}
}

func TestMeasureSteadiness(t *testing.T) {
	s, err := MeasureSteadiness(context.Background(), 80*time.Millisecond, 10*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if s.Windows != 3 || !(s.Cache.Min > 0) || !(s.ALU.Min > 0) || s.Cache.Max < s.Cache.Min {
		t.Errorf("steadiness %+v: want 3 windows of each kind with work done", s)
	}
	for _, bad := range [][2]time.Duration{{time.Second, 0}, {30 * time.Millisecond, 10 * time.Millisecond}} {
		if _, err := MeasureSteadiness(context.Background(), bad[0], bad[1]); err == nil {
			t.Errorf("MeasureSteadiness(%v, %v) accepted", bad[0], bad[1])
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := MeasureSteadiness(ctx, time.Second, 10*time.Millisecond); err == nil {
		t.Error("a cancelled measurement returned no error")
	}
}
