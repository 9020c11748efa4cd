package run

import (
	"context"
	"errors"
	"testing"
	"time"
)

// fakeFloorClock advances step per reading and by the sleep asked plus
// late per sleep; stall[n] adds a jump at the n-th reading: the thread
// stopped there.
type fakeFloorClock struct {
	now         time.Time
	step, late  time.Duration
	reads       int
	stall       map[int]time.Duration
	sleepStalls map[int]time.Duration // by sleep number
	sleeps      int
}

func (c *fakeFloorClock) Now() time.Time {
	c.reads++
	c.now = c.now.Add(c.step + c.stall[c.reads])
	return c.now
}

func (c *fakeFloorClock) Sleep(d time.Duration) {
	c.sleeps++
	c.now = c.now.Add(d + c.late + c.sleepStalls[c.sleeps])
}

// A thread stopped for 5 ms shows as a 5 ms hiccup in the maximum, not in
// the median; without one the floor is the clock's step and the sleep's
// lateness.
func TestMeasureFloorHiccup(t *testing.T) {
	const ms = time.Millisecond
	for _, tt := range []struct {
		name                 string
		stall, sleepStall    map[int]time.Duration
		wantSpinMax, wantMax time.Duration // spin max, sleep max
	}{
		{"smooth", nil, nil, time.Microsecond, 30 * time.Microsecond},
		{"stopped thread", map[int]time.Duration{50_000: 5 * ms}, map[int]time.Duration{40: 5 * ms}, 5*ms + time.Microsecond, 5*ms + 30*time.Microsecond},
	} {
		t.Run(tt.name, func(t *testing.T) {
			clk := &fakeFloorClock{now: time.Unix(1e9, 0), step: time.Microsecond, late: 30 * time.Microsecond, stall: tt.stall, sleepStalls: tt.sleepStall}
			f, err := measureFloor(context.Background(), clk, 200*ms, ms)
			if err != nil {
				t.Fatal(err)
			}
			// Each sleep of 1 ms takes 1.03 ms plus two clock steps.
			if f.Sleep.Samples < 150 || f.Sleep.Samples > 200 {
				t.Errorf("sleep: %d samples in 200 ms of 1 ms sleeps", f.Sleep.Samples)
			}
			if want := 30*time.Microsecond + time.Microsecond; f.Sleep.P50 != want {
				t.Errorf("sleep p50 %v, want %v (the sleep's lateness and one clock step)", f.Sleep.P50, want)
			}
			if f.Sleep.Max != tt.wantMax+time.Microsecond {
				t.Errorf("sleep max %v, want %v", f.Sleep.Max, tt.wantMax+time.Microsecond)
			}
			if f.Spin.Samples < 150 || f.Spin.P50 != time.Microsecond {
				t.Errorf("spin: %v, want ~195 windows with a p50 gap of one clock step", f.Spin)
			}
			if f.Spin.Max != tt.wantSpinMax {
				t.Errorf("spin max %v, want %v", f.Spin.Max, tt.wantSpinMax)
			}
		})
	}
}

func TestMeasureFloorStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := MeasureFloor(ctx, time.Second, time.Millisecond); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v, want context.Canceled", err)
	}
	var ce *ConfigError
	if _, err := MeasureFloor(context.Background(), time.Millisecond, time.Second); !errors.As(err, &ce) {
		t.Errorf("interval > duration: %v, want a ConfigError", err)
	}
}

// BenchmarkMachineFloor prints this machine's floor (µs): how late a 1 ms
// nanosleep returns and the longest stall per 1 ms of a spinning thread:
//
//	go test -run '^$' -bench MachineFloor -benchtime 1x ./run/
func BenchmarkMachineFloor(b *testing.B) {
	for b.Loop() {
		f, err := MeasureFloor(context.Background(), 3*time.Second, time.Millisecond)
		if err != nil {
			b.Fatal(err)
		}
		b.Logf("sleep: %v", f.Sleep)
		b.Logf("spin:  %v", f.Spin)
		us := func(d time.Duration) float64 { return float64(d) / 1e3 }
		b.ReportMetric(us(f.Sleep.P99), "sleep_p99_µs")
		b.ReportMetric(us(f.Sleep.P999), "sleep_p99.9_µs")
		b.ReportMetric(us(f.Spin.P99), "spin_p99_µs")
		b.ReportMetric(us(f.Spin.P999), "spin_p99.9_µs")
	}
}

func TestFloorSleepLaterThan(t *testing.T) {
	f := Floor{sleepLate: []time.Duration{10, 20, 30, 40}}
	for _, tt := range []struct {
		d    time.Duration
		want float64
	}{{0, 1}, {10, 0.75}, {25, 0.5}, {40, 0}} {
		if got := f.SleepLaterThan(tt.d); got != tt.want {
			t.Errorf("later than %v: %v, want %v", tt.d, got, tt.want)
		}
	}
}
