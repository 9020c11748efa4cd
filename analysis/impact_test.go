package analysis

import (
	"testing"
	"time"

	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/results"
)

// A hand-made run: 10 calm seconds (p99 1 ms), a kill at 10 s, three seconds
// of errors and 5 ms p99, one second with no successful operation, then
// calm again from 14 s. By hand: recovery 4 s (14 − 10), one unavailable
// second, throughput during the fault's own second 50/s against 100/s.
func TestImpactsByHand(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var rows []results.IntervalRow
	add := func(sec int, ops, errs, p99 int64) {
		h := measure.NewHistogram()
		for i := int64(0); i < ops; i++ {
			h.RecordValue(p99)
		}
		enc, err := measure.EncodeHistogram(h)
		if err != nil {
			t.Fatal(err)
		}
		end := time.Duration(sec+1) * time.Second
		rows = append(rows,
			results.IntervalRow{Phase: measure.PhaseMeasure, T: end, Length: time.Second, Op: "READ", Count: ops, Errors: errs, P99US: p99, Hist: enc},
			results.IntervalRow{Phase: measure.PhaseMeasure, T: end, Length: time.Second, Op: measure.OverallOp, Count: ops, Errors: errs, P99US: p99})
	}
	for s := 0; s < 10; s++ {
		add(s, 100, 0, 1000)
	}
	add(10, 100, 50, 5000)
	add(11, 100, 50, 5000)
	add(12, 100, 50, 5000)
	add(13, 20, 20, 9000)
	for s := 14; s < 22; s++ {
		add(s, 100, 0, 1000)
	}
	d := &results.RunDetail{Events: []results.Event{
		{Time: t0, Kind: "phase_start", Name: measure.PhaseMeasure},
		{Time: t0.Add(10 * time.Second), Kind: "fault", Name: "kill-leader", Detail: "kill leader: [etcd2]", Outcome: "injected"},
		{Time: t0.Add(22 * time.Second), Kind: "phase_end", Name: measure.PhaseMeasure},
	}}
	d.Start = t0
	ims := Impacts(Run{Detail: d, Intervals: rows})
	if len(ims) != 1 {
		t.Fatalf("%d impacts", len(ims))
	}
	im := ims[0]
	if im.Fault != "kill-leader" || im.Start != 10*time.Second || im.End != im.Start {
		t.Errorf("fault %q at %v–%v", im.Fault, im.Start, im.End)
	}
	if im.Baseline.P99 != 1000 || im.Baseline.Throughput != 100 || im.Baseline.Errors != 0 {
		t.Errorf("baseline %+v", im.Baseline)
	}
	if im.During.P99 < 4995 || im.During.P99 > 5005 || im.During.Throughput != 50 || im.ThroughputChangePct != -50 {
		t.Errorf("during %+v, throughput change %v%%", im.During, im.ThroughputChangePct)
	}
	if im.Threshold != 1000 || im.UnavailableS != 1 || im.Recovery == nil || *im.Recovery != 4*time.Second {
		t.Errorf("threshold %d, unavailable %d s, recovery %v; want 1000, 1, 4s", im.Threshold, im.UnavailableS, im.Recovery)
	}
	// Cut the run short of 5 calm seconds: not recovered.
	short := rows[:2*17]
	d.Events[2].Time = t0.Add(17 * time.Second)
	if im := Impacts(Run{Detail: d, Intervals: short})[0]; im.Recovery != nil {
		t.Errorf("recovered after %v with only 3 calm seconds", *im.Recovery)
	}
}

// A pause lasts: its window is the pause, the after window follows its end.
func TestImpactOfALastingFault(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	d := &results.RunDetail{Events: []results.Event{
		{Time: t0, Kind: "phase_start", Name: measure.PhaseMeasure},
		{Time: t0.Add(3 * time.Second), Kind: "fault_start", Name: "pause-1"},
		{Time: t0.Add(5 * time.Second), Kind: "fault_end", Name: "pause-1", Outcome: "healed"},
	}}
	d.Start = t0
	im := Impacts(Run{Detail: d})[0]
	if im.Fault != "pause-1" || im.Start != 3*time.Second || im.End != 5*time.Second || im.During.From != 3*time.Second || im.During.To != 5*time.Second {
		t.Errorf("%+v", im)
	}
}
