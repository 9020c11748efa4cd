package analysis

import (
	"reflect"
	"testing"
	"time"

	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/results"
)

func TestBenchOf(t *testing.T) {
	for _, c := range []struct {
		name       string
		tags       []string
		experiment string
		matrix     map[string]string
	}{
		{"sweep clients=4 driver=pebble rep=2", []string{"experiment:sweep", "nightly", "clients:4"}, "sweep",
			map[string]string{"clients": "4", "driver": "pebble"}},
		{"sweep", []string{"experiment:sweep"}, "sweep", map[string]string{}},
		{"a=b", []string{"nightly"}, "", nil}, // not a bench run: its name is the user's
	} {
		exp, m := benchOf(c.name, c.tags)
		if exp != c.experiment || !reflect.DeepEqual(m, c.matrix) {
			t.Errorf("benchOf(%q, %v) = %q %v, want %q %v", c.name, c.tags, exp, m, c.experiment, c.matrix)
		}
	}
}

func TestStoredRecords(t *testing.T) {
	evs := []results.Event{
		{Kind: "phase_start", Name: measure.PhaseLoad, Detail: "records=5000 clients=2 batch=100"},
		{Kind: "phase_end", Name: measure.PhaseLoad, Detail: "ops=31 errors=1 dropped=0 records=3000"},
		{Kind: "phase_end", Name: measure.PhaseMeasure, Detail: "ops=9 records=7"},
	}
	if r, w := storedRecords(evs); r != 3000 || w != 5000 {
		t.Errorf("storedRecords = %d of %d, want 3000 of 5000", r, w)
	}
}

func TestLoadPhaseOf(t *testing.T) {
	start := time.Unix(100, 0)
	s := measure.Summary{Phase: measure.PhaseLoad, Start: start, End: start.Add(4 * time.Second), Records: 3000, Wanted: 5000,
		Overall: measure.OpSummary{Count: 31, Errors: 1, Response: measure.Stats{Mean: 2000, P99: 5000}}}
	lp := LoadPhaseOf(s)
	want := LoadPhase{Records: 3000, Wanted: 5000, Partial: true, DurationS: 4, RecordsPerSec: 750, Batches: 31, BatchesPerSec: 7.75,
		BatchErrors: 1, BatchErrorRate: 1.0 / 31, RecordsPerBatch: 100, BatchLatency: Latency{Mean: 2000, P99: 5000}, MeanUSPerRecord: 20}
	if lp != want {
		t.Errorf("LoadPhaseOf =\n%+v, want\n%+v", lp, want)
	}
}

func TestNodeSummaries(t *testing.T) {
	ms := []results.Metric{
		{Node: "dbrig", CPUUser: 50, RSS: 10},
		{Node: "n1", CPUUser: 10, CPUSys: 2, RSS: 100, WriteBytes: 1000, CtxSwitches: 5, FDs: 9},
		{Node: "n1", CPUUser: 20, CPUSys: 4, RSS: 300, WriteBytes: 3000, CtxSwitches: 15, FDs: 7},
		{Node: "n1", Gone: true, CPUUser: 999},
	}
	got := NodeSummaries(ms)
	want := []NodeSummary{
		{Node: "n1", Samples: 2, CPUMeanPct: 18, CPUMaxPct: 24, RSSMaxBytes: 300, WriteBytes: 4000, CtxSwitches: 20, FDsMax: 9,
			MeanWriteBPS: 2000, MeanCtxSwitchPS: 10},
		{Node: "dbrig", Samples: 1, CPUMeanPct: 50, CPUMaxPct: 50, RSSMaxBytes: 10},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("NodeSummaries =\n%+v, want\n%+v", got, want)
	}
}

// ResultOf takes tpmC and the consistency result from the headline
// metrics, and its phases' error rates from the counts.
func TestResultOfHeadline(t *testing.T) {
	start := time.Unix(100, 0)
	meas := measure.Summary{Phase: measure.PhaseMeasure, Start: start, End: start.Add(10 * time.Second),
		Ops:     []measure.OpSummary{{Op: "NEW_ORDER", Count: 200, Errors: 50}},
		Overall: measure.OpSummary{Count: 200, Errors: 50}}
	d := &results.RunDetail{RunRow: results.RunRow{ID: 3, Status: "done"}, Phases: []measure.Summary{meas}}
	r := NewRun(d, nil)
	r.Headline = []results.RunMetric{{Name: MetricTpmC, Value: 1234, Unit: "txn/min"}, {Name: MetricConsistency, Value: 0}}
	res := ResultOf(r)
	if res.TpmC == nil || *res.TpmC != 1234 || res.Consistency == nil || *res.Consistency {
		t.Errorf("tpmC %v, consistency %v", res.TpmC, res.Consistency)
	}
	if res.Shown == nil || len(res.Shown.Ops) != 2 || res.Shown.Ops[0].ErrorRate != 0.25 || !res.Shown.Overall().Overall ||
		res.Shown.Overall().Op != measure.OverallOp {
		t.Errorf("shown phase = %+v", res.Shown)
	}
	if res.LoadPhase != nil || res.Impacts != nil || res.Workers != nil {
		t.Errorf("a run without load phase, faults or workers: %+v", res)
	}
}
