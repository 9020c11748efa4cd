package analysis

import (
	"testing"
	"time"
)

func TestJudge(t *testing.T) {
	two := 2 * time.Second
	ims := []Impact{
		{Fault: "kill", Recovery: &two, UnavailableS: 1, P99ChangePct: 250, ThroughputChangePct: -40},
		{Fault: "pause", Recovery: nil, P99ChangePct: 900},
	}
	limits := []Limit{
		{Metric: "recovery", Op: "<=", Value: 15, Text: "recovery <= 15s"},
		{Metric: "p99_change_pct", Op: "<=", Value: 300, Text: "p99_change_pct <= 300"},
	}
	got := Judge(ims, limits)
	want := []bool{true, true, false, false} // the pause never recovered and tripled its p99 ×3
	if len(got) != len(want) {
		t.Fatalf("%d judgements", len(got))
	}
	for i, j := range got {
		if j.Pass != want[i] {
			t.Errorf("%s: pass %v, want %v", j, j.Pass, want[i])
		}
	}
	if s := got[2].String(); s != "pause: recovery <= 15s: never — FAIL" {
		t.Errorf("String() = %q", s)
	}
}
