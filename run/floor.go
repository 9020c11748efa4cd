package run

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"time"
)

// Floor is this machine's timing floor, after jHiccup: how late a thread
// that does nothing but wait gets to run. No load generator starts
// operations more punctually than this, so dbrig selftest prints it beside
// the open model's dispatch precision.
type Floor struct {
	Interval time.Duration
	// Sleep is how late a nanosleep of Interval returns (as the open
	// model's leader sleeps before its spin): what SpinWait must cover.
	Sleep Hiccups
	// Spin is, per Interval, the longest gap between two clock reads of a
	// thread that only spins: the time the machine (the VM, other
	// processes, this process's runtime) took the CPU away from it. No
	// spin window covers that.
	Spin Hiccups

	sleepLate []time.Duration // sorted
}

// SleepLaterThan is the share of sleeps that woke more than d late: with a
// spin window of d, the share of operations after a sleep that start late.
func (f Floor) SleepLaterThan(d time.Duration) float64 {
	if len(f.sleepLate) == 0 {
		return 0
	}
	i, _ := slices.BinarySearch(f.sleepLate, d+1)
	return float64(len(f.sleepLate)-i) / float64(len(f.sleepLate))
}

// Hiccups is a distribution of lateness.
type Hiccups struct {
	Samples             int
	P50, P99, P999, Max time.Duration
}

func (h Hiccups) String() string {
	us := func(d time.Duration) string { return fmt.Sprintf("%.0fµs", float64(d)/1e3) }
	return fmt.Sprintf("p50 %s p99 %s p99.9 %s max %s (%d samples)", us(h.P50), us(h.P99), us(h.P999), us(h.Max), h.Samples)
}

// hiccupsOf sorts late and summarizes it.
func hiccupsOf(late []time.Duration) Hiccups {
	if len(late) == 0 {
		return Hiccups{}
	}
	slices.Sort(late)
	q := func(p float64) time.Duration { return late[int(p*float64(len(late)-1)+0.5)] }
	return Hiccups{Samples: len(late), P50: q(0.5), P99: q(0.99), P999: q(0.999), Max: late[len(late)-1]}
}

// floorClock is the time the floor measures: the real one, or a fake in
// tests (a stopped thread is a jump of the clock).
type floorClock interface {
	Now() time.Time
	Sleep(time.Duration)
}

type realClock struct{}

func (realClock) Now() time.Time        { return time.Now() }
func (realClock) Sleep(d time.Duration) { nanosleep(d) }

// MeasureFloor measures the sleeping thread for d, then the spinning one
// for d (one after the other: each alone, as jHiccup runs), each on a
// thread of its own, in windows of interval.
func MeasureFloor(ctx context.Context, d, interval time.Duration) (Floor, error) {
	if d <= 0 || interval <= 0 || interval > d {
		return Floor{}, &ConfigError{Field: "floor duration and interval", Value: d, Want: "0 < interval ≤ duration"}
	}
	return measureFloor(ctx, realClock{}, d, interval)
}

func measureFloor(ctx context.Context, clk floorClock, d, interval time.Duration) (Floor, error) {
	f := Floor{Interval: interval}
	var err error
	onThread(func() { f.Sleep, f.sleepLate, err = sleepHiccups(ctx, clk, d, interval) })
	if err != nil {
		return f, err
	}
	onThread(func() { f.Spin, err = spinHiccups(ctx, clk, d, interval) })
	return f, err
}

// onThread runs fn on a goroutine locked to a thread of its own (the
// nanosleep's timer slack is the thread's; a spin must not migrate) and
// waits for it.
func onThread(fn func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		fn()
	}()
	<-done
}

// sleepHiccups returns the distribution and the sorted lateness.
func sleepHiccups(ctx context.Context, clk floorClock, d, interval time.Duration) (Hiccups, []time.Duration, error) {
	late := make([]time.Duration, 0, d/interval+1)
	for start := clk.Now(); clk.Now().Sub(start) < d; {
		if err := ctx.Err(); err != nil {
			return Hiccups{}, nil, fmt.Errorf("machine floor: %w", err)
		}
		t := clk.Now()
		clk.Sleep(interval)
		late = append(late, max(0, clk.Now().Sub(t)-interval))
	}
	return hiccupsOf(late), late, nil
}

func spinHiccups(ctx context.Context, clk floorClock, d, interval time.Duration) (Hiccups, error) {
	late := make([]time.Duration, 0, d/interval+1)
	start := clk.Now()
	prev, window, worst := start, start, time.Duration(0)
	for {
		t := clk.Now()
		worst = max(worst, t.Sub(prev))
		prev = t
		if t.Sub(window) < interval {
			continue
		}
		late = append(late, worst)
		window, worst = t, 0
		if t.Sub(start) >= d {
			return hiccupsOf(late), nil
		}
		if err := ctx.Err(); err != nil {
			return Hiccups{}, fmt.Errorf("machine floor: %w", err)
		}
	}
}
