package analysis

import (
	"fmt"
	"math"
)

// Limit bounds one figure of every fault's impact (a verdict of the
// experiment, after CockroachDB's perturbation tests).
type Limit struct {
	Metric string  // recovery, unavailable (seconds), p99_change_pct, throughput_change_pct, errors
	Op     string  // <=, <, >=, >, =
	Value  float64 // seconds for recovery and unavailable
	Text   string  // as the user wrote it
}

// Judgement is one limit applied to one fault.
type Judgement struct {
	Limit Limit
	Fault string
	Got   float64 // +Inf: never recovered
	Pass  bool
}

// Judge applies every limit to every fault. A fault that never recovered
// fails any recovery limit; one that did not fire fails every limit.
func Judge(ims []Impact, limits []Limit) []Judgement {
	var out []Judgement
	for _, im := range ims {
		for _, l := range limits {
			if im.NotFired {
				out = append(out, Judgement{Limit: l, Fault: im.Fault, Got: math.NaN()})
				continue
			}
			got := figure(im, l.Metric)
			out = append(out, Judgement{Limit: l, Fault: im.Fault, Got: got, Pass: holds(got, l.Op, l.Value)})
		}
	}
	return out
}

func figure(im Impact, metric string) float64 {
	switch metric {
	case "recovery":
		if im.Recovery == nil {
			return math.Inf(1)
		}
		return im.Recovery.Seconds()
	case "unavailable":
		return float64(im.UnavailableS)
	case "p99_change_pct":
		return im.P99ChangePct
	case "throughput_change_pct":
		return im.ThroughputChangePct
	case "errors":
		return float64(im.During.Errors + im.After.Errors)
	}
	return math.NaN()
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

// String says what was judged, e.g. "kill-leader: recovery <= 15s: 2.0 — pass".
func (j Judgement) String() string {
	verdict := "pass"
	if !j.Pass {
		verdict = "FAIL"
	}
	got := fmt.Sprintf("%.1f", j.Got)
	if math.IsInf(j.Got, 1) {
		got = "never"
	}
	if math.IsNaN(j.Got) {
		got = "the fault did not fire"
	}
	return fmt.Sprintf("%s: %s: %s — %s", j.Fault, j.Limit.Text, got, verdict)
}
