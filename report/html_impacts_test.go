package report_test

import (
	"strings"
	"testing"

	"github.com/dbrig/dbrig/analysis"
	"github.com/dbrig/dbrig/report"
	"github.com/dbrig/dbrig/web/webtest"
)

// The HTML impact table shows what the terminal's does for the same stored
// run: p50/p95/p99 before, during and after, and the recovery cell — here
// "not recovered" with its reason, the fault (4–6 s of a 10 s measure
// phase) leaving too little of the run for 5 calm seconds.
func TestHTMLImpacts(t *testing.T) {
	s, _ := newStore(t)
	spec := webtest.Default(t0)
	spec.Timeline = true
	run := addRun(t, s, spec)
	_, doc := writeHTML(t, s, run.ID)
	table := byID(doc, "impacts-"+itoa(run.ID))
	if table == nil {
		t.Fatal("no impact table")
	}
	runs, err := analysis.ReadRuns(t.Context(), s, []int64{run.ID})
	if err != nil {
		t.Fatal(err)
	}
	ims := analysis.RunImpacts(runs[0])
	if len(ims) != 1 || ims[0].RecoveryCut != analysis.RecoveryCutEndOfRun {
		t.Fatalf("impacts %+v, want one cut by the end of the run", ims)
	}
	got := text(table)
	for _, want := range []string{"p50 / p95 / p99 before", report.Percentiles(ims[0].Baseline), report.Percentiles(ims[0].During),
		report.Percentiles(ims[0].After), report.RecoveryText(ims[0]), "(end of run)"} {
		if !strings.Contains(got, want) {
			t.Errorf("impact table lacks %q:\n%s", want, got)
		}
	}
}
