package run

import (
	"strings"
	"testing"
	"time"
)

// The window widens to cover the sleeps' recent p99.9 lateness, within its
// bound; a tail beyond the bound, or sleeps that are punctual, leave it at
// SpinWait.
func TestSpinWindowAdapts(t *testing.T) {
	const us = time.Microsecond
	for _, tt := range []struct {
		name  string
		base  time.Duration
		late  func(i int) time.Duration // i-th sleep's lateness
		sleep int
		want  time.Duration
	}{
		{"punctual sleeps", 200 * us, func(int) time.Duration { return 30 * us }, 2000, 200 * us},
		{"tail within bound", 200 * us, func(i int) time.Duration {
			if i%100 == 0 {
				return 300 * us
			}
			return 30 * us
		}, 2000, 300*us + spinMargin},
		{"tail just beyond bound", 200 * us, func(i int) time.Duration {
			if i%100 == 0 {
				return 400 * us
			}
			return 30 * us
		}, 2000, 200 * us},
		{"tail beyond bound", 200 * us, func(i int) time.Duration {
			if i%100 == 0 {
				return 5 * time.Millisecond
			}
			return 30 * us
		}, 2000, 200 * us},
		{"tail gone: back to base", 200 * us, func(i int) time.Duration {
			if i < 500 && i%100 == 0 {
				return 300 * us
			}
			return 30 * us
		}, 2000, 200 * us},
		{"too few sleeps yet", 200 * us, func(int) time.Duration { return 400 * us }, spinRecompute - 1, 200 * us},
		{"sleep only", 0, func(int) time.Duration { return 400 * us }, 2000, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := newSpinWindow(tt.base)
			for i := range tt.sleep {
				w.window(time.Second)
				w.observe(tt.late(i))
			}
			if got := w.window(time.Second); got != tt.want {
				t.Errorf("window %v, want %v (%v)", got, tt.want, w)
			}
		})
	}
}

// With no time to spare before the sleep, the window is not recomputed.
func TestSpinWindowRecomputesOnlyWithTime(t *testing.T) {
	w := newSpinWindow(200 * time.Microsecond)
	for range 2 * spinRecompute {
		w.observe(300 * time.Microsecond)
	}
	if got := w.window(450 * time.Microsecond); got != 200*time.Microsecond {
		t.Errorf("recomputed with 450µs ahead: %v", got)
	}
	if got := w.window(time.Second); got != 300*time.Microsecond+spinMargin {
		t.Errorf("window %v, want %v", got, 300*time.Microsecond+spinMargin)
	}
	if s := w.String(); !strings.Contains(s, "spin_window_max_us=330") || !strings.Contains(s, "sleep_late_p999_us=300") {
		t.Errorf("detail %q", s)
	}
}

// Every window, widened or SpinWait's, stays within half the time ahead:
// two leaders never spin at once.
func TestSpinWindowHalfTheGap(t *testing.T) {
	const us = time.Microsecond
	w := newSpinWindow(100 * us)
	for range spinRecompute {
		w.observe(150 * us)
	}
	for _, tt := range []struct{ ahead, want time.Duration }{
		{time.Second, 180 * us}, // recomputes: 150 µs + the margin
		{300 * us, 150 * us},
		{120 * us, 60 * us},
		{50 * us, 25 * us},
		{-10 * us, 0}, // the start is already due: no spin before it
	} {
		if got := w.window(tt.ahead); got != tt.want {
			t.Errorf("%v ahead: window %v, want %v", tt.ahead, got, tt.want)
		}
	}
}

// Paced closed clients spin at most half the gap between the pool's starts.
func TestPacedSpin(t *testing.T) {
	const us = time.Microsecond
	for _, tt := range []struct {
		spin time.Duration
		rate float64
		want time.Duration
	}{
		{200 * us, 0, 200 * us},                   // think time or a pacer: each client alone
		{200 * us, 1000, 200 * us},                // 1 ms apart
		{200 * us, 8000, 62500 * time.Nanosecond}, // 125 µs apart
		{0, 8000, 0},
	} {
		if got := pacedSpin(tt.spin, tt.rate); got != tt.want {
			t.Errorf("pacedSpin(%v, %g) = %v, want %v", tt.spin, tt.rate, got, tt.want)
		}
	}
}
