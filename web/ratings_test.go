package web_test

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"

	"github.com/dbrig/dbrig/results"
	"github.com/dbrig/dbrig/web"
	"github.com/dbrig/dbrig/web/webtest"
)

// ratingStore holds a finished rating of three steps (one of them failed,
// each with its run) and a rating still running, without steps.
func ratingStore(t *testing.T) (*results.Store, int64, int64, int64) {
	t.Helper()
	ctx := context.Background()
	s, err := results.Open(ctx, filepath.Join(t.TempDir(), "results.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	run, err := webtest.Add(ctx, s, webtest.RunSpec{Name: "rating step", System: "sim", Workload: "ycsb/workloada", Start: t0, Measure: 2, BaseUS: 200, NoEvents: true})
	if err != nil {
		t.Fatal(err)
	}
	done, err := s.CreateRating(ctx, results.Rating{Name: "r", Start: t0, System: "sim", Workload: "workloada",
		SLA: "p99 < 10ms", By: "rate", Strategy: "reload", Precision: 0.05, SLADurationS: 30})
	if err != nil {
		t.Fatal(err)
	}
	term := func(ms float64, pass bool) []results.RatingTerm {
		return []results.RatingTerm{{Term: "p99 < 10ms", Measured: ms, Limit: 10, Unit: "ms", Pass: pass}}
	}
	for i, st := range []results.RatingStep{
		{Kind: "search", Target: 1000, Achieved: 998, Pass: true, RunID: run.ID, Reset: "load", Seconds: 30, Terms: term(2.5, true)},
		{Kind: "search", Target: 2000, Achieved: 1500, Pass: false, StoppedEarly: true, Reason: "p99 34ms over the limit", RunID: run.ID, Reset: "reload", ResetS: 1.25, Seconds: 12, Terms: term(34, false)},
		{Kind: "final", Target: 1000, Achieved: 1001, Pass: true, RunID: run.ID, Reset: "reload", ResetS: 1, Seconds: 30, Terms: term(3, true)},
	} {
		if err := s.AddRatingStep(ctx, done, i+1, st); err != nil {
			t.Fatal(err)
		}
	}
	answer, low, high, ivLow, ivHigh := 1000.0, 1000.0, 1200.0, 950.0, 1150.0
	if err := s.FinishRating(ctx, results.Rating{ID: done, Status: results.StatusDone, End: t0.Add(time.Minute), Answer: &answer, Confirmed: true,
		IntervalLow: &ivLow, IntervalHigh: &ivHigh, Precision: 0.1, Final: &results.RatingFinal{Mid: 1000, Low: 950, High: 1060, Scale: 0.04, Runs: 5, Passes: 3},
		FirstLoadS: 5, ResetCount: 2, ResetsS: 2.25, Experiments: 2, ExperimentsS: 42, FinalS: 30, TotalS: 79.25, SpreadLow: &low, SpreadHigh: &high}); err != nil {
		t.Fatal(err)
	}
	running, err := s.CreateRating(ctx, results.Rating{Name: "r2", Start: t0.Add(time.Hour), System: "redis", Workload: "workloadc",
		SLA: "p99 < 1ms", By: "clients", Strategy: "none", Precision: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	return s, done, running, run.ID
}

func TestRatingsPages(t *testing.T) {
	s, done, running, run := ratingStore(t)
	h := web.NewServer(s)
	rows := regexp.MustCompile(`<tr data-rating="(\d+)"`)
	steps := regexp.MustCompile(`<tr data-step="(\d+)" class="step-(\w+)">`)
	for _, tc := range []struct {
		name, path string
		code       int
		want       []string
		ratings    string // ids listed, in order ("-": not checked)
		steps      string // step:class listed ("-": not checked)
	}{
		{"list newest first", "/ratings", 200, []string{"<h1>Ratings</h1>", "1,000 ops/s", "20%", "<td>950 … 1,150 (21%) wider</td>", "79.250 s", `href="/ratings/` + itoa(done) + `"`}, itoa(running) + "," + itoa(done), "-"},
		{"a rating with its steps", "/ratings/" + itoa(done), 200, []string{
			"Rating " + itoa(done) + ": sim, workloada", "answer: <strong>1,000 ops/s</strong> (confirmed by the final runs)",
			"interval: <strong>950 ops/s … 1,150 ops/s (21%), WIDER than the precision",
			`<p id="final">final runs: 5 counted, 3 passed; pass point 1,000 ops/s, band 950 ops/s … 1,060 ops/s (12%)`,
			"spread: a run failed at 1,000 ops/s, one passed at 1,200 ops/s (20%, WIDER than the precision",
			`<th class="num">p99 &lt; 10ms</th>`, "34.0ms ✗", "FAIL", "p99 34ms over the limit", "stopped",
			`<a href="/run/` + itoa(run) + `">`, `src="data:image/png;base64,`, "2 resets", "79.250 s",
		}, "-", "1:pass,2:fail,3:pass"},
		{"a running rating", "/ratings/" + itoa(running), 200, []string{"no answer yet (running)", "No steps were stored."}, "-", ""},
		{"unknown rating", "/ratings/999", 404, []string{"rating 999: no such rating"}, "-", "-"},
		{"bad rating id", "/ratings/x", 400, []string{"rating id &#34;x&#34;: expected a positive whole number"}, "-", "-"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := get(t, h, "GET", tc.path)
			if code != tc.code {
				t.Fatalf("GET %s: %d, want %d\n%.800s", tc.path, code, tc.code, body)
			}
			for _, w := range tc.want {
				if !strings.Contains(body, w) {
					t.Errorf("GET %s: body lacks %q\n%s", tc.path, w, body)
				}
			}
			if tc.ratings != "-" {
				var got []string
				for _, m := range rows.FindAllStringSubmatch(body, -1) {
					got = append(got, m[1])
				}
				if strings.Join(got, ",") != tc.ratings {
					t.Errorf("ratings listed %v, want %s", got, tc.ratings)
				}
			}
			if tc.steps != "-" {
				var got []string
				for _, m := range steps.FindAllStringSubmatch(body, -1) {
					got = append(got, m[1]+":"+m[2])
				}
				if strings.Join(got, ",") != tc.steps {
					t.Errorf("steps %v, want %s", got, tc.steps)
				}
			}
		})
	}
	// Every page links the ratings.
	if _, body := get(t, h, "GET", "/"); !strings.Contains(body, `<a href="/ratings">ratings</a>`) {
		t.Error("the runs list has no link to the ratings")
	}
}

func TestRatingsEmpty(t *testing.T) {
	s, err := results.Open(context.Background(), filepath.Join(t.TempDir(), "results.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	code, body := get(t, web.NewServer(s), "GET", "/ratings")
	if code != 200 || !strings.Contains(body, `id="no-ratings"`) {
		t.Errorf("empty store: %d\n%s", code, body)
	}
}

func itoa(v int64) string { return ids(v) }

// In a browser the rating page shows its plot (a data: image the page's
// policy allows) and its steps, without console errors.
func TestBrowserRatings(t *testing.T) {
	b := newBrowser(t)
	s, done, _, _ := ratingStore(t)
	base := serve(t, web.NewServer(s))
	var rows []*cdp.Node
	b.run(t, "ratings list", chromedp.Navigate(base+"/ratings"), chromedp.WaitVisible("#ratings"),
		chromedp.Nodes("#ratings tr[data-rating]", &rows, chromedp.ByQueryAll))
	if len(rows) != 2 {
		t.Errorf("ratings list shows %d ratings, want 2", len(rows))
	}
	var width int
	b.run(t, "rating page", chromedp.Navigate(fmt.Sprintf("%s/ratings/%d", base, done)), chromedp.WaitVisible("#steps"),
		chromedp.Poll(`(() => { const i = document.querySelector('img'); return i && i.complete ? i.naturalWidth : 0; })()`, &width, chromedp.WithPollingTimeout(10*time.Second)))
	if width == 0 {
		t.Error("the rating's plot did not load")
	}
	b.run(t, "steps", chromedp.Nodes("#steps tr[data-step]", &rows, chromedp.ByQueryAll))
	if len(rows) != 3 {
		t.Errorf("rating page shows %d steps, want 3", len(rows))
	}
	if errs := b.takeErrors(); len(errs) > 0 {
		t.Errorf("console errors: %v", errs)
	}
	b.screenshot(t, "rating")
}
