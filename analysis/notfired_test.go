package analysis

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/results"
)

// A fault that failed to fire has no impact figures, and fails every
// verdict: there is nothing to judge the system by.
func TestFaultThatDidNotFire(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var rows []results.IntervalRow
	for s := 0; s < 20; s++ {
		end := time.Duration(s+1) * time.Second
		rows = append(rows, results.IntervalRow{Phase: measure.PhaseMeasure, T: end, Length: time.Second, Op: measure.OverallOp, Count: 100, P99US: 1000})
	}
	d := &results.RunDetail{Events: []results.Event{
		{Time: t0, Kind: "phase_start", Name: measure.PhaseMeasure},
		{Time: t0.Add(10 * time.Second), Kind: "fault", Name: "kill-9", Detail: "kill etcd9", Outcome: "failed: no node etcd9"},
		{Time: t0.Add(20 * time.Second), Kind: "phase_end", Name: measure.PhaseMeasure},
	}}
	d.Start = t0
	ims := Impacts(Run{Detail: d, Intervals: rows})
	if len(ims) != 1 {
		t.Fatalf("%d impacts", len(ims))
	}
	im := ims[0]
	if !im.NotFired || im.Recovery != nil || im.During.Throughput != 0 || im.Baseline.Throughput != 0 {
		t.Errorf("impact of a fault that did not fire: %+v", im)
	}
	js := Judge(ims, []Limit{{Metric: "recovery", Op: "<=", Value: 15, Text: "recovery <= 15s"}, {Metric: "errors", Op: "=", Value: 0, Text: "errors = 0"}})
	for _, j := range js {
		if j.Pass || !math.IsNaN(j.Got) || !strings.Contains(j.String(), "did not fire") {
			t.Errorf("verdict %s: pass %v", j, j.Pass)
		}
	}
}
