package report_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/dbrig/dbrig/report"
	"github.com/dbrig/dbrig/web/webtest"
)

// TestWriteExample writes a sample report to $DBRIG_REPORT_SAMPLE, to look at
// by hand; without the variable it is skipped.
func TestWriteExample(t *testing.T) {
	out := os.Getenv("DBRIG_REPORT_SAMPLE")
	if out == "" {
		t.Skip("set DBRIG_REPORT_SAMPLE=FILE.html to write a sample report")
	}
	s, _ := newStore(t)
	a := addRun(t, s, webtest.Default(t0))
	spec := webtest.Default(t0.Add(time.Hour))
	spec.Version, spec.BaseUS, spec.FaultFrom, spec.FaultTo = "2.0", 150, 6, 7
	b := addRun(t, s, spec)
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ids := []int64{a.ID}
	if os.Getenv("DBRIG_REPORT_COMPARE") != "" {
		ids = append(ids, b.ID)
	}
	if err := report.WriteHTML(context.Background(), f, s, ids); err != nil {
		t.Fatal(err)
	}
	if _, err := report.WritePNGs(context.Background(), out+".png", s, ids); err != nil {
		t.Fatal(err)
	}
}
