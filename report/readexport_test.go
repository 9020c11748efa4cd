package report_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/dbrig/dbrig/report"
	"github.com/dbrig/dbrig/results"
	"github.com/dbrig/dbrig/web/webtest"
)

// ReadExport reads the runs for every what but steps, which exports
// ratings: a run id is no rating id.
func TestReadExport(t *testing.T) {
	s, _ := newStore(t)
	a := addRun(t, s, webtest.Default(t0))
	b := addRun(t, s, webtest.Default(t0.Add(time.Hour)))
	ctx := context.Background()
	in, err := report.ReadExport(ctx, s, "summaries", []int64{a.ID, b.ID})
	if err != nil || len(in.Runs) != 2 || in.Runs[1].Detail.ID != b.ID || len(in.Ratings) != 0 {
		t.Fatalf("summaries: %d runs, %d ratings, %v", len(in.Runs), len(in.Ratings), err)
	}
	if _, err := report.ReadExport(ctx, s, "steps", []int64{a.ID}); !errors.Is(err, results.ErrNoRating) {
		t.Errorf("steps of a run id: %v, want results.ErrNoRating", err)
	}
}
