package analysis

import (
	"testing"
	"time"

	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/results"
)

// The per-second rule's bound is the baseline's mean + 2σ, with σ > 0: a
// baseline of 90 % operations at 1 ms and 10 % at 2 ms has mean 1.1 ms and
// σ 0.3 ms, so the bound is 1.7 ms. After a fault (two seconds of errors)
// every operation takes 1.5 ms: within the bound, so recovery is 2 s. With
// the bound at the mean alone (σ dropped) every operation after the fault
// is slow and the system never recovers; with 1σ it is 1.4 ms, the same.
func TestRecoveryBoundHasSigma(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var rows []results.IntervalRow
	add := func(sec int, errs int64, lat map[int64]int64) {
		h := measure.NewHistogram()
		ops := int64(0)
		for v, n := range lat {
			if err := h.RecordValues(v, n); err != nil {
				t.Fatal(err)
			}
			ops += n
		}
		enc, err := measure.EncodeHistogram(h)
		if err != nil {
			t.Fatal(err)
		}
		end := time.Duration(sec+1) * time.Second
		p99 := h.ValueAtQuantile(99)
		rows = append(rows,
			results.IntervalRow{Phase: measure.PhaseMeasure, T: end, Length: time.Second, Op: "READ", Count: ops, Errors: errs, P99US: p99, Hist: enc},
			results.IntervalRow{Phase: measure.PhaseMeasure, T: end, Length: time.Second, Op: measure.OverallOp, Count: ops, Errors: errs, P99US: p99})
	}
	for s := 0; s < 10; s++ {
		add(s, 0, map[int64]int64{1000: 90, 2000: 10})
	}
	add(10, 50, map[int64]int64{5000: 100})
	add(11, 50, map[int64]int64{5000: 100})
	for s := 12; s < 20; s++ {
		add(s, 0, map[int64]int64{1500: 100})
	}
	d := &results.RunDetail{Events: []results.Event{
		{Time: t0, Kind: "phase_start", Name: measure.PhaseMeasure},
		{Time: t0.Add(10 * time.Second), Kind: "fault", Name: "kill", Outcome: "injected"},
		{Time: t0.Add(20 * time.Second), Kind: "phase_end", Name: measure.PhaseMeasure},
	}}
	d.Start = t0
	ims := Impacts(Run{Detail: d, Intervals: rows})
	if len(ims) != 1 {
		t.Fatalf("%d impacts", len(ims))
	}
	im := ims[0]
	if im.Threshold < 1695 || im.Threshold > 1705 {
		t.Errorf("threshold %d µs, want the baseline's mean 1100 + 2σ (σ = 300): 1700", im.Threshold)
	}
	if im.Recovery == nil || *im.Recovery != 2*time.Second {
		t.Errorf("recovery %v, want 2s (1.5 ms is within mean + 2σ)", im.Recovery)
	}
	// Four calm seconds are one short of RecoveryHold: not recovered.
	d.Events[2].Time = t0.Add(16 * time.Second)
	if im := Impacts(Run{Detail: d, Intervals: rows[:2*16]})[0]; im.Recovery != nil {
		t.Errorf("recovered after %v with %d calm seconds, want %d", *im.Recovery, RecoveryHold-1, RecoveryHold)
	}
}
