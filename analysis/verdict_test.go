package analysis

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/results"
	"github.com/dbrig/dbrig/spec"
)

// sec is one stored second of a hand-made run: ops operations, errs of
// them failed, every one taking lat µs.
type sec struct{ ops, errs, lat int64 }

// handRun stores secs from the measure phase's start and injects a fault
// (lasting 1 s) at each of faults.
func handRun(t *testing.T, secs []sec, faults ...time.Duration) Run {
	t.Helper()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var rows []results.IntervalRow
	for i, s := range secs {
		h := measure.NewHistogram()
		for n := int64(0); n < s.ops; n++ {
			if err := h.RecordValue(s.lat); err != nil {
				t.Fatal(err)
			}
		}
		enc, err := measure.EncodeHistogram(h)
		if err != nil {
			t.Fatal(err)
		}
		end := time.Duration(i+1) * time.Second
		rows = append(rows,
			results.IntervalRow{Phase: measure.PhaseMeasure, T: end, Length: time.Second, Op: "READ", Count: s.ops, Errors: s.errs, P99US: s.lat, Hist: enc},
			results.IntervalRow{Phase: measure.PhaseMeasure, T: end, Length: time.Second, Op: measure.OverallOp, Count: s.ops, Errors: s.errs, P99US: s.lat})
	}
	d := &results.RunDetail{}
	d.Start = t0
	d.Events = append(d.Events, results.Event{Time: t0, Kind: "phase_start", Name: measure.PhaseMeasure})
	for i, f := range faults {
		name := "fault" + string(rune('A'+i))
		d.Events = append(d.Events,
			results.Event{Time: t0.Add(f), Kind: "fault_start", Name: name, Outcome: "injected"},
			results.Event{Time: t0.Add(f + time.Second), Kind: "fault_end", Name: name, Outcome: "healed"})
	}
	d.Events = append(d.Events, results.Event{Time: t0.Add(time.Duration(len(secs)) * time.Second), Kind: "phase_end", Name: measure.PhaseMeasure})
	return Run{Detail: d, Intervals: rows}
}

// pattern is n seconds of s.
func pattern(n int, s sec) []sec {
	out := make([]sec, n)
	for i := range out {
		out[i] = s
	}
	return out
}

func TestRecoveryCut(t *testing.T) {
	calm, broken := sec{100, 0, 1000}, sec{100, 50, 9000}
	for _, tc := range []struct {
		name    string
		secs    []sec
		faults  []time.Duration
		cut     string
		atLeast time.Duration
	}{
		{"recovered", concat(pattern(10, calm), pattern(2, broken), pattern(10, calm)), []time.Duration{10 * time.Second}, "", 0},
		// The second fault strikes 4 s after the first: 1 s too early for
		// RecoveryHold calm seconds.
		{"next fault", concat(pattern(10, calm), pattern(2, broken), pattern(2, calm), pattern(2, broken), pattern(8, calm)),
			[]time.Duration{10 * time.Second, 14 * time.Second}, RecoveryCutNextFault, 0},
		// Broken from the fault to the end: 12 s watched, of which the last
		// RecoveryHold could not have begun a recovery.
		{"end of run", concat(pattern(10, calm), pattern(12, broken)), []time.Duration{10 * time.Second}, RecoveryCutEndOfRun, 7 * time.Second},
		// Errors in every second, the baseline's too: nothing to recover to.
		{"never calm", pattern(22, sec{100, 1, 1000}), []time.Duration{10 * time.Second}, RecoveryCutNeverCalm, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			im := Impacts(handRun(t, tc.secs, tc.faults...))[0]
			if (im.Recovery == nil) != (tc.cut != "") || im.RecoveryCut != tc.cut || im.RecoveryAtLeast != tc.atLeast {
				t.Errorf("recovery %v, cut %q, at least %v; want cut %q, at least %v", im.Recovery, im.RecoveryCut, im.RecoveryAtLeast, tc.cut, tc.atLeast)
			}
			if tc.cut != "" && !strings.Contains(im.NotRecovered(), tc.cut) {
				t.Errorf("NotRecovered() = %q, want the reason %q", im.NotRecovered(), tc.cut)
			}
		})
	}
}

func concat(parts ...[]sec) []sec {
	var out []sec
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func TestJudge(t *testing.T) {
	calm, broken := sec{100, 0, 1000}, sec{100, 50, 9000}
	recovered := Impacts(handRun(t, concat(pattern(10, calm), pattern(2, broken), pattern(10, calm)), 10*time.Second))[0]
	endOfRun := Impacts(handRun(t, concat(pattern(10, calm), pattern(12, broken)), 10*time.Second))[0]
	nextFault := Impacts(handRun(t, concat(pattern(10, calm), pattern(2, broken), pattern(2, calm), pattern(8, broken)),
		10*time.Second, 14*time.Second))[0]
	noBaseline := Impacts(handRun(t, concat(pattern(2, broken), pattern(10, calm)), 0))[0]
	// 861 ms without a successful operation, per operation (Precise).
	precise := Precise([]Impact{{Fault: "kill", Start: 10 * time.Second, End: 10 * time.Second,
		Baseline: Window{To: 10 * time.Second, Secs: 10, Ops: 1000}, After: Window{From: 11 * time.Second, To: 22 * time.Second, Secs: 11},
		During: Window{From: 10 * time.Second, To: 11 * time.Second, Secs: 1, Ops: 100}}}, preciseTimeline(10860*time.Millisecond))[0]
	if precise.UnavailableMS != 861 {
		t.Fatalf("the timeline gives %d ms unavailable, want 861", precise.UnavailableMS)
	}
	for _, tc := range []struct {
		im   Impact
		l    Limit
		pass bool
		text string // what String says after the limit
	}{
		{precise, Limit{Metric: "unavailable", Op: "<", Value: 2}, true, "861ms — pass"},
		{precise, Limit{Metric: "unavailable", Op: "<", Value: 0.8}, false, "861ms — FAIL"},
		{precise, Limit{Metric: "unavailable", Op: "<=", Value: 0.861}, true, "861ms — pass"},
		{precise, Limit{Metric: "unavailable", Op: ">", Value: 0.861}, false, "861ms — FAIL"},
		{precise, Limit{Metric: "unavailable", Op: ">=", Value: 0.86}, true, "861ms — pass"},
		{recovered, Limit{Metric: "recovery", Op: "<=", Value: 15}, true, "2.0s — pass"},
		{recovered, Limit{Metric: "recovery", Op: ">", Value: 3}, false, "2.0s — FAIL"},
		{recovered, Limit{Metric: "throughput_change_pct", Op: ">=", Value: -60}, true, "-50.0% — pass"},
		{recovered, Limit{Metric: "errors", Op: "=", Value: 0}, false, "100 — FAIL"},
		{recovered, Limit{Metric: "p50_change_pct", Op: "<=", Value: 1000}, true, "+800.7% — pass"},
		// Not recovered within 7 s of watching: any limit up to 7 s is decided.
		{endOfRun, Limit{Metric: "recovery", Op: "<=", Value: 5}, false, "not recovered in 7.0s (end of run) — FAIL"},
		{endOfRun, Limit{Metric: "recovery", Op: ">", Value: 5}, true, "not recovered in 7.0s (end of run) — pass"},
		// A longer limit cannot be judged: not measured, failed unless asked.
		{endOfRun, Limit{Metric: "recovery", Op: "<=", Value: 15}, false, "not measured: not recovered in 7.0s (end of run) — FAIL"},
		{endOfRun, Limit{Metric: "recovery", Op: "<=", Value: 15, IfMeasured: true}, true, "not measured: not recovered in 7.0s (end of run) — skipped"},
		{nextFault, Limit{Metric: "recovery", Op: "<=", Value: 15}, false, "not measured: not recovered (next fault) — FAIL"},
		{noBaseline, Limit{Metric: "p99_change_pct", Op: "<=", Value: 300}, false, "not measured: no baseline: nothing was measured before the first fault — FAIL"},
		{noBaseline, Limit{Metric: "p99_change_pct", Op: "<=", Value: 300, IfMeasured: true}, true, "— skipped"},
		{noBaseline, Limit{Metric: "throughput_change_pct", Op: ">=", Value: -50}, false, "not measured: no baseline"},
		{Impact{Fault: "x", NotFired: true}, Limit{Metric: "errors", Op: "=", Value: 0, IfMeasured: true}, false, "the fault did not fire — FAIL"},
	} {
		tc.l.Text = tc.l.Metric + " " + tc.l.Op + " …"
		j := Judge([]Impact{tc.im}, []Limit{tc.l})[0]
		if j.Pass != tc.pass || !strings.Contains(j.String(), tc.text) {
			t.Errorf("%s: pass %v, want %v, saying %q", j, j.Pass, tc.pass, tc.text)
		}
	}
}

func TestFigureKnowsEveryMetric(t *testing.T) {
	two := 2 * time.Second
	im := Impact{Recovery: &two, Baseline: Window{Secs: 1, Ops: 1}, During: Window{Secs: 1, Ops: 1}}
	for _, m := range spec.VerdictMetrics() {
		if v, why := im.Figure(m.Name); math.IsNaN(v) || why != "" {
			t.Errorf("Figure(%q) = %v, %q", m.Name, v, why)
		}
	}
	if _, why := im.Figure("latency"); why == "" {
		t.Error("an unknown metric has a figure")
	}
}
