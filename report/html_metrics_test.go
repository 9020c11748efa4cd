package report_test

import (
	"context"
	"strings"
	"testing"

	"github.com/dbrig/dbrig/results"
	"github.com/dbrig/dbrig/web/webtest"
)

// TestHTMLHeadline: a run's headline metrics (TPC-C's tpmC) are shown above
// its summary table; a run without them has no such table.
func TestHTMLHeadline(t *testing.T) {
	s, _ := newStore(t)
	run := addRun(t, s, webtest.Default(t0))
	plain := addRun(t, s, webtest.Default(t0))
	if err := s.AddRunMetrics(context.Background(), run.ID, []results.RunMetric{
		{Name: "tpmc", Value: 4661.2, Unit: "txn/min", Doc: "New-Order transactions committed per minute"},
		{Name: "consistency_ok", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	_, doc := writeHTML(t, s, run.ID, plain.ID)
	tbl := byID(doc, "headline-"+itoa(run.ID))
	if tbl == nil {
		t.Fatal("no headline table")
	}
	got := text(tbl)
	if !strings.Contains(got, "tpmc") || !strings.Contains(got, "4,661 txn/min") || !strings.Contains(got, "passed") {
		t.Errorf("headline table %q, want tpmc 4,661 txn/min and consistency passed", got)
	}
	if byID(doc, "headline-"+itoa(plain.ID)) != nil {
		t.Error("a headline table for a run without headline metrics")
	}
}
