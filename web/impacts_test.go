package web_test

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/dbrig/dbrig/format"
	"github.com/dbrig/dbrig/results"
	"github.com/dbrig/dbrig/web"
	"github.com/dbrig/dbrig/web/webtest"
)

// A run with a fault and a per-operation timeline: the dashboard's impact
// table shows the unavailable time the timeline gives (every operation
// fails for the 2 s of the fault: 2001 ms), not the per-second figure
// (no second without a successful operation in the stored intervals: 0 s).
func TestRunPageUnavailableMS(t *testing.T) {
	ctx := context.Background()
	s, err := results.Open(ctx, filepath.Join(t.TempDir(), "results.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, withTimeline := range []bool{true, false} {
		spec := webtest.Default(t0)
		spec.Timeline = withTimeline
		r, err := webtest.Add(ctx, s, spec)
		if err != nil {
			t.Fatal(err)
		}
		code, body := get(t, web.NewServer(s), "GET", fmt.Sprintf("/run/%d", r.ID))
		if code != http.StatusOK {
			t.Fatalf("GET /run/%d: %d", r.ID, code)
		}
		row := regexp.MustCompile(`<table class="impacts"[^>]*>.*?</tr>\s*<tr>(.*?)</tr>`).FindStringSubmatch(body)
		if row == nil {
			t.Fatalf("no impact table in the run page")
		}
		cells := regexp.MustCompile(`<td[^>]*>(.*?)</td>`).FindAllStringSubmatch(row[1], -1)
		if len(cells) < 9 {
			t.Fatalf("impact row %q", row[1])
		}
		want := format.Millis(2001) // to the ms, as verdicts print it
		if !withTimeline {
			want = "0 s"
		}
		if got := cells[8][1]; got != want {
			t.Errorf("timeline %v: unavailable %q, want %q", withTimeline, got, want)
		}
	}
}
