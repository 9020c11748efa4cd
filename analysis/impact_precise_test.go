package analysis

import (
	"testing"
	"time"

	"github.com/dbrig/dbrig/results"
)

// A hand-made timeline: an operation every 10 ms, 1000 and 1200 µs by
// turns until the fault at 10 s (mean 1100, σ 100: slow is above 1300 µs);
// then every operation fails (2 ms) until failUntil, and takes 1000 µs
// after. By hand, for failUntil 12.5 s: the first successful completion is
// 12.501 s (unavailable 2501 ms); the first 5 bad operations begin at 10 s
// and the first calm 5 s begin at 12.5 s: recovery 2.5 s.
func preciseTimeline(failUntil time.Duration) []results.TimedOp {
	var ops []results.TimedOp
	for t := time.Duration(0); t < 22*time.Second; t += 10 * time.Millisecond {
		o := results.TimedOp{StartUS: t.Microseconds(), LatencyUS: 1000, OK: true}
		switch {
		case t < 10*time.Second && (t/(10*time.Millisecond))%2 == 1:
			o.LatencyUS = 1200
		case t >= 10*time.Second && t < failUntil:
			o.LatencyUS, o.OK = 2000, false
		}
		ops = append(ops, o)
	}
	return ops
}

func TestPrecise(t *testing.T) {
	dur := func(d time.Duration) *time.Duration { return &d }
	for _, tc := range []struct {
		name        string
		failUntil   time.Duration
		unavailable int64
		recovery    *time.Duration
	}{
		{"recovers", 12500 * time.Millisecond, 2501, dur(2500 * time.Millisecond)},
		{"never recovers before the end", 19 * time.Second, 9001, nil},
		{"no impact", 10 * time.Second, 10, dur(0)}, // the spacing of operations at 100/s
	} {
		t.Run(tc.name, func(t *testing.T) {
			im := Impact{Fault: "f", Start: 10 * time.Second, End: 10 * time.Second,
				Baseline: Window{From: 0, To: 10 * time.Second}, After: Window{From: 11 * time.Second, To: 22 * time.Second}}
			got := Precise([]Impact{im}, preciseTimeline(tc.failUntil))[0]
			if !got.Precise || got.Threshold != 1300 {
				t.Errorf("precise %v, threshold %d; want true, 1300", got.Precise, got.Threshold)
			}
			if got.UnavailableMS != tc.unavailable {
				t.Errorf("unavailable %d ms, want %d", got.UnavailableMS, tc.unavailable)
			}
			switch {
			case tc.recovery == nil && got.Recovery != nil:
				t.Errorf("recovery %v, want none", *got.Recovery)
			case tc.recovery != nil && (got.Recovery == nil || *got.Recovery != *tc.recovery):
				t.Errorf("recovery %v, want %v", got.Recovery, *tc.recovery)
			}
		})
	}
	// Without operations in the timeline the per-second figures stay.
	im := Impact{Start: time.Second, UnavailableMS: 3000}
	if got := Precise([]Impact{im}, nil)[0]; got.Precise || got.UnavailableMS != 3000 {
		t.Errorf("no timeline: %+v", got)
	}
}

func TestSpreads(t *testing.T) {
	d := func(s float64) *time.Duration { x := time.Duration(s * float64(time.Second)); return &x }
	runs := [][]Impact{
		{{Fault: "kill", Recovery: d(3), UnavailableMS: 1000, P99ChangePct: 100, ThroughputChangePct: -50}},
		{{Fault: "kill", Recovery: nil, UnavailableMS: 4000, P99ChangePct: 300, ThroughputChangePct: -90}, {Fault: "pause", UnavailableMS: 0}},
		{{Fault: "kill", Recovery: d(1), UnavailableMS: 2000, P99ChangePct: 200, ThroughputChangePct: -70}},
	}
	got := Spreads(runs)
	if len(got) != 2 || got[0].Fault != "kill" || got[1].Fault != "pause" {
		t.Fatalf("spreads %+v", got)
	}
	k := got[0]
	// By hand: recovery over the 2 recovered runs {1, 3}: median 2; the rest over 3 runs.
	want := Spread{Fault: "kill", Runs: 3, Recovered: 2,
		Recovery:            Stat{Median: 2, Min: 1, Max: 3, N: 2},
		UnavailableMS:       Stat{Median: 2000, Min: 1000, Max: 4000, N: 3},
		P99ChangePct:        Stat{Median: 200, Min: 100, Max: 300, N: 3},
		ThroughputChangePct: Stat{Median: -70, Min: -90, Max: -50, N: 3}}
	if k != want {
		t.Errorf("kill spread %+v\nwant %+v", k, want)
	}
	if got[1].Runs != 1 || got[1].Recovered != 0 || got[1].Recovery.N != 0 {
		t.Errorf("pause spread %+v", got[1])
	}
}
