package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/dbrig/dbrig/analysis"
	"github.com/dbrig/dbrig/results"
)

// One fault, its figures computed from a per-operation timeline (an
// operation every 10 ms; all fail from the fault at 10 s until 10.86 s,
// whose operation completes at 10.861 s): the impact table and the
// verdicts show the same 861 ms, and judge by it.
func TestVerdictsAgreeWithTheImpactTable(t *testing.T) {
	var ops []results.TimedOp
	for at := time.Duration(0); at < 22*time.Second; at += 10 * time.Millisecond {
		ok := at < 10*time.Second || at >= 10860*time.Millisecond
		ops = append(ops, results.TimedOp{StartUS: at.Microseconds(), LatencyUS: 1000, OK: ok})
	}
	im := analysis.Precise([]analysis.Impact{{Fault: "kill", Detail: "kill n1", Outcome: "injected", Start: 10 * time.Second, End: 10 * time.Second,
		Baseline: analysis.Window{To: 10 * time.Second, Secs: 10, Ops: 1000, P50: 1000, P95: 1000, P99: 1000},
		During:   analysis.Window{From: 10 * time.Second, To: 11 * time.Second, Secs: 1, Ops: 100, P50: 1000, P95: 2000, P99: 2000},
		After:    analysis.Window{From: 11 * time.Second, To: 22 * time.Second, Secs: 11, Ops: 1100, P50: 1000, P95: 1000, P99: 1000}}}, ops)
	var b bytes.Buffer
	if err := Impacts(&b, im); err != nil {
		t.Fatal(err)
	}
	table := b.String()
	var row []string
	for _, line := range strings.Split(table, "\n") {
		if f := strings.Fields(line); len(f) > 0 && f[0] == "kill" {
			row = f
		}
	}
	if row == nil || !strings.Contains(table, "p50/p95/p99 before") || !strings.Contains(table, "1.00ms / 2.00ms / 2.00ms") {
		t.Fatalf("impact table:\n%s", table)
	}
	const cell = "861ms"
	if !strings.Contains(strings.Join(row, " "), " "+cell+" ") {
		t.Fatalf("impact row %q: no unavailable %s", row, cell)
	}
	for _, tc := range []struct {
		limit analysis.Limit
		want  string
	}{
		{analysis.Limit{Metric: "unavailable", Op: "<", Value: 2, Text: "unavailable < 2s"}, "kill: unavailable < 2s: " + cell + " — pass"},
		{analysis.Limit{Metric: "unavailable", Op: "<", Value: 0.8, Text: "unavailable < 800ms"}, "kill: unavailable < 800ms: " + cell + " — FAIL"},
		{analysis.Limit{Metric: "unavailable", Op: "<", Value: 0.861, Text: "unavailable < 861ms"}, "kill: unavailable < 861ms: " + cell + " — FAIL"},
		{analysis.Limit{Metric: "unavailable", Op: "<", Value: 0.862, Text: "unavailable < 862ms"}, "kill: unavailable < 862ms: " + cell + " — pass"},
	} {
		if got := analysis.Judge(im, []analysis.Limit{tc.limit})[0].String(); got != tc.want {
			t.Errorf("verdict %q, want %q", got, tc.want)
		}
	}
}

func TestRecoveryText(t *testing.T) {
	rec := 2345 * time.Millisecond
	for _, tc := range []struct {
		im   analysis.Impact
		want string
	}{
		{analysis.Impact{Recovery: &rec}, "2.345s"},
		{analysis.Impact{RecoveryCut: analysis.RecoveryCutEndOfRun, RecoveryAtLeast: 7 * time.Second}, "not recovered in 7.0s (end of run)"},
		{analysis.Impact{RecoveryCut: analysis.RecoveryCutNextFault}, "not recovered (next fault)"},
		{analysis.Impact{RecoveryCut: analysis.RecoveryCutNeverCalm}, "not recovered (never calm)"},
	} {
		if got := RecoveryText(tc.im); got != tc.want {
			t.Errorf("RecoveryText = %q, want %q", got, tc.want)
		}
		var b bytes.Buffer
		tc.im.Fault = "f"
		if err := Impacts(&b, []analysis.Impact{tc.im}); err != nil || !strings.Contains(b.String(), tc.want) {
			t.Errorf("impact table without %q:\n%s", tc.want, b.String())
		}
	}
}
