package web_test

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/dbrig/dbrig/results"
	"github.com/dbrig/dbrig/web"
	"github.com/dbrig/dbrig/web/webtest"
)

// workersStore holds one distributed run of 3 workers, worker 2 of which
// did half its share with a 40 ms dispatch lag p99.
func workersStore(t *testing.T) (*results.Store, int64) {
	t.Helper()
	ctx := context.Background()
	s, err := results.Open(ctx, filepath.Join(t.TempDir(), "results.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	spec := webtest.Default(t0)
	spec.FaultTo = 0
	r, err := webtest.Add(ctx, s, spec)
	if err != nil {
		t.Fatal(err)
	}
	if err := webtest.AddWorkers(ctx, s, r, 3, 2); err != nil {
		t.Fatal(err)
	}
	return s, r.ID
}

// The run page of a distributed run has a workers section: the flag names
// the slow worker (and no other), its row is marked, and both worker
// charts are there.
func TestRunPageWorkers(t *testing.T) {
	s, id := workersStore(t)
	code, body := get(t, web.NewServer(s), "GET", fmt.Sprintf("/run/%d", id))
	if code != http.StatusOK {
		t.Fatalf("GET /run/%d: %d", id, code)
	}
	for _, want := range []string{
		fmt.Sprintf(`id="workers-%d"`, id),
		"worker 2 fell behind: it completed",
		"% of its share&#39;s target of 333 ops/s",
		"worker 2&#39;s dispatch lag p99 is 40.0ms",
		`<tr data-worker="2" class="behind">`,
		fmt.Sprintf(`id="chart-workers-throughput-%d"`, id),
		fmt.Sprintf(`id="chart-workers-p99-%d"`, id),
	} {
		if !strings.Contains(body, want) {
			t.Errorf("run page lacks %q", want)
		}
	}
	for _, other := range []string{"worker 0 fell", "worker 1 fell", `<tr data-worker="0" class="behind">`, `<tr data-worker="1" class="behind">`} {
		if strings.Contains(body, other) {
			t.Errorf("run page flags a worker that kept up: %q", other)
		}
	}
}

// In Chromium: the workers section renders, its two charts draw one line
// per worker beside the merged one, and the page logs no error.
func TestBrowserWorkers(t *testing.T) {
	b := newBrowser(t)
	s, id := workersStore(t)
	base := serve(t, web.NewServer(s))
	b.run(t, "open run", chromedp.Navigate(fmt.Sprintf("%s/run/%d", base, id)),
		chromedp.WaitVisible(fmt.Sprintf("#workers-table-%d", id)))
	chartsDrawn(t, b)
	var flags []string
	b.run(t, "flags", chromedp.Evaluate(`[...document.querySelectorAll('.worker-flag')].map(e => e.innerText)`, &flags))
	if len(flags) != 2 || !strings.HasPrefix(flags[0], "worker 2 fell behind") || !strings.HasPrefix(flags[1], "worker 2's dispatch lag") {
		t.Errorf("flags shown = %q, want worker 2's two", flags)
	}
	var series int
	b.run(t, "legend", chromedp.Evaluate(fmt.Sprintf(`document.querySelectorAll('#chart-workers-throughput-%d .u-legend .u-series').length`, id), &series))
	if series != 1+4 { // x, then all workers and 3 workers
		t.Errorf("throughput-by-worker legend has %d series, want 5 (x, merged, 3 workers)", series)
	}
	var visible bool
	b.run(t, "scroll", chromedp.ScrollIntoView(fmt.Sprintf("#chart-workers-p99-%d", id)),
		chromedp.Evaluate(fmt.Sprintf(`!!document.querySelector('#chart-workers-p99-%d canvas')`, id), &visible))
	if !visible {
		t.Error("the p99-by-worker chart has no canvas")
	}
	b.screenshot(t, "workers")
	if errs := b.takeErrors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
}
