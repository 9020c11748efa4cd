package analysis

import (
	"fmt"
	"math"
	"time"

	"github.com/dbrig/dbrig/format"
	"github.com/dbrig/dbrig/spec"
)

// Limit bounds one figure of every fault's impact (a verdict of the
// experiment, after CockroachDB's perturbation tests).
type Limit struct {
	Metric string  // one of spec.VerdictMetrics
	Op     string  // <=, <, >=, >, =
	Value  float64 // in the metric's unit: seconds for recovery and unavailable, percent, count
	Text   string  // as the user wrote it
	// IfMeasured: a figure that could not be measured passes (skipped)
	// instead of failing.
	IfMeasured bool
}

// Judgement is one limit applied to one fault.
type Judgement struct {
	Limit Limit
	Fault string
	// Got is the figure in the limit's unit (NaN: the fault did not fire).
	// With Over, the figure is larger than Got: a recovery not seen within
	// the RecoveryAtLeast its window allowed.
	Got  float64
	Over bool
	// Note says, with Over, why there is no recovery time (NotRecovered).
	Note string
	// Unmeasured says why the figure could not be measured ("" when it
	// was); Pass then is Limit.IfMeasured.
	Unmeasured string
	Pass       bool
}

// Judge applies every limit to every fault, on the figures the impact
// tables show (Figure). A fault that did not fire fails every limit; one
// whose figure could not be measured fails unless the limit says "if
// measured".
func Judge(ims []Impact, limits []Limit) []Judgement {
	var out []Judgement
	for _, im := range ims {
		for _, l := range limits {
			out = append(out, judge(im, l))
		}
	}
	return out
}

func judge(im Impact, l Limit) Judgement {
	j := Judgement{Limit: l, Fault: im.Fault}
	if im.NotFired {
		j.Got = math.NaN()
		return j
	}
	got, why := im.Figure(l.Metric)
	j.Got = got
	switch {
	case why == "":
		j.Pass = holds(got, l.Op, l.Value)
	case l.Metric == "recovery" && im.RecoveryCut != RecoveryCutNeverCalm && got >= l.Value:
		// Recovery took longer than got ≥ the limit: that decides it.
		j.Over, j.Pass, j.Note = true, l.Op == ">" || l.Op == ">=", im.NotRecovered()
	default:
		j.Unmeasured, j.Pass = why, l.IfMeasured
	}
	return j
}

// Figure is the impact's value of a verdict metric (spec.VerdictMetrics)
// in its unit — seconds (to the millisecond of UnavailableMS for
// unavailable), percent, or a count — the same figure the impact tables
// show, and why it could not be measured ("" when it was). For a recovery
// that was not seen, the value is RecoveryAtLeast.
func (im Impact) Figure(metric string) (v float64, unmeasured string) {
	noBase := im.Baseline.Secs == 0 || im.Baseline.Ops == 0
	const before = "no baseline: nothing was measured before the first fault"
	switch metric {
	case "recovery":
		if im.Recovery != nil {
			return im.Recovery.Seconds(), ""
		}
		return im.RecoveryAtLeast.Seconds(), im.NotRecovered()
	case "unavailable", "errors":
		if im.During.Secs+im.After.Secs == 0 && !im.Precise {
			return 0, "nothing was measured after the fault"
		}
		if metric == "errors" {
			return float64(im.During.Errors + im.After.Errors), ""
		}
		return float64(im.UnavailableMS) / 1000, ""
	case "throughput_change_pct":
		switch {
		case noBase:
			return 0, before
		case im.During.Secs == 0:
			return 0, "nothing was measured during the fault"
		}
		return im.ThroughputChangePct, ""
	case "p50_change_pct", "p95_change_pct", "p99_change_pct":
		switch {
		case noBase:
			return 0, before
		case im.During.Ops == 0:
			return 0, "no operation completed during the fault"
		}
		if metric == "p50_change_pct" {
			return im.P50ChangePct, ""
		} else if metric == "p95_change_pct" {
			return im.P95ChangePct, ""
		}
		return im.P99ChangePct, ""
	}
	return math.NaN(), fmt.Sprintf("unknown metric %q", metric)
}

// NotRecovered says why a fault has no recovery time, e.g. "not recovered
// in 7.0s (end of run)", "not recovered (next fault)"; "" when it
// recovered.
func (im Impact) NotRecovered() string {
	switch {
	case im.Recovery != nil:
		return ""
	case im.RecoveryCut != "" && im.RecoveryAtLeast > 0:
		return fmt.Sprintf("not recovered in %s (%s)", format.Millis(im.RecoveryAtLeast.Milliseconds()), im.RecoveryCut)
	case im.RecoveryCut != "":
		return "not recovered (" + im.RecoveryCut + ")"
	}
	return "not recovered"
}

func holds(got float64, op string, v float64) bool {
	switch op {
	case "<=":
		return got <= v
	case "<":
		return got < v
	case ">=":
		return got >= v
	case ">":
		return got > v
	case "=":
		return got == v
	}
	return false
}

// Quantity formats a figure of a verdict metric with its unit: 861ms,
// 2.0s, +12.3%, 1,204.
func Quantity(metric string, v float64) string {
	switch spec.VerdictUnit(metric) {
	case spec.UnitDuration:
		return format.Millis(time.Duration(v * float64(time.Second)).Round(time.Millisecond).Milliseconds())
	case spec.UnitPercent:
		return fmt.Sprintf("%+.1f%%", v)
	case spec.UnitCount:
		return format.Int(int64(math.Round(v)))
	}
	return fmt.Sprint(v)
}

// String says what was judged, e.g. "kill-leader: unavailable < 2s:
// 861ms — pass", "kill: recovery <= 5s: not recovered in 7.0s (end of
// run) — FAIL", "kill: p99_change_pct <= 300 if measured: not measured:
// no baseline: … — skipped".
func (j Judgement) String() string {
	verdict := "pass"
	if !j.Pass {
		verdict = "FAIL"
	}
	var got string
	switch {
	case math.IsNaN(j.Got):
		got = "the fault did not fire"
	case j.Over:
		got = j.Note
	case j.Unmeasured != "":
		got = "not measured: " + j.Unmeasured
		if j.Pass {
			verdict = "skipped"
		}
	default:
		got = Quantity(j.Limit.Metric, j.Got)
	}
	return fmt.Sprintf("%s: %s: %s — %s", j.Fault, j.Limit.Text, got, verdict)
}
