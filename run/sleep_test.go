package run

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// BenchmarkWakeLateness measures this machine's timer slack: how late a
// wait returns, by kind, for a few waits (p50/p99 lateness in µs). It is
// what SpinWait has to cover (README, "spinwait"):
//
//	go test -run '^$' -bench WakeLateness ./run/
func BenchmarkWakeLateness(b *testing.B) {
	kinds := []struct {
		name string
		wait func(time.Duration)
	}{
		{"timer", time.Sleep},
		{"nanosleep", nanosleep},
	}
	for _, k := range kinds {
		for _, d := range []time.Duration{20 * time.Microsecond, 100 * time.Microsecond, 500 * time.Microsecond, 2 * time.Millisecond} {
			b.Run(fmt.Sprintf("%s/%v", k.name, d), func(b *testing.B) {
				late := make([]time.Duration, 0, b.N)
				for b.Loop() {
					t := time.Now()
					k.wait(d)
					late = append(late, time.Since(t)-d)
				}
				reportLate(b, late)
			})
		}
	}
	// A parked goroutine woken through a channel: the hand-off the open
	// model's scheduler used to make per operation.
	b.Run("channel-handoff", func(b *testing.B) {
		ch := make(chan time.Time)
		got := make(chan time.Duration)
		go func() {
			for t := range ch {
				got <- time.Since(t)
			}
		}()
		late := make([]time.Duration, 0, b.N)
		for b.Loop() {
			time.Sleep(100 * time.Microsecond) // let the receiver park
			ch <- time.Now()
			late = append(late, <-got)
		}
		close(ch)
		reportLate(b, late)
	})
}

func reportLate(b *testing.B, late []time.Duration) {
	if len(late) == 0 {
		return
	}
	slices.Sort(late)
	us := func(q float64) float64 { return float64(late[int(q*float64(len(late)-1))]) / 1e3 }
	b.ReportMetric(us(0.5), "p50_late_µs")
	b.ReportMetric(us(0.99), "p99_late_µs")
}
