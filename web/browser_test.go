package web_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/dbrig/dbrig/internal/testenv"
	"github.com/dbrig/dbrig/web"
)

// browser is a headless Chromium driven through the DevTools protocol, with
// the console errors and uncaught exceptions of its pages collected.
type browser struct {
	ctx    context.Context
	mu     sync.Mutex
	errors []string
}

func newBrowser(t *testing.T) *browser {
	t.Helper()
	bin := testenv.Need(t, "DBRIG_CHROMIUM")
	// Not t.TempDir: Chromium's helpers may still write there while the
	// test's own cleanup removes it; stopBrowser removes it after they end.
	dataDir, err := os.MkdirTemp("", "dbrig-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(bin),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		// Without these Chromium phones home, and this closed network refuses it.
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(dataDir),
		chromedp.WindowSize(1280, 1000),
		// Its own process group, so that the renderer and helper processes
		// it forks are stopped with it (by the group id, its PID).
		chromedp.ModifyCmdFunc(func(cmd *exec.Cmd) {
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		}),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
	b := &browser{ctx: ctx}
	if err := chromedp.Run(ctx); err != nil { // starts the browser
		cancelTimeout()
		cancelCtx()
		cancelAlloc()
		os.RemoveAll(dataDir)
		t.Fatalf("start %s: %v", bin, err)
	}
	pid := chromedp.FromContext(ctx).Browser.Process().Pid
	t.Cleanup(func() {
		cancelTimeout()
		cancelCtx()
		cancelAlloc() // kills the browser and waits for it
		syscall.Kill(-pid, syscall.SIGKILL)
		for i := 0; i < 100 && syscall.Kill(-pid, 0) == nil; i++ {
			time.Sleep(50 * time.Millisecond)
		}
		if err := syscall.Kill(-pid, 0); err == nil {
			t.Errorf("chromium process group %d still runs", pid)
		}
		os.RemoveAll(dataDir)
	})
	chromedp.ListenTarget(ctx, func(ev any) {
		var msg string
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.APITypeError || e.Type == runtime.APITypeAssert {
				var args []string
				for _, a := range e.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				msg = "console." + string(e.Type) + ": " + strings.Join(args, " ")
			}
		case *runtime.EventExceptionThrown:
			msg = "exception: " + e.ExceptionDetails.Text
			if e.ExceptionDetails.Exception != nil {
				msg += " " + e.ExceptionDetails.Exception.Description
			}
		case *cdplog.EventEntryAdded:
			if e.Entry.Level == cdplog.LevelError {
				msg = "log: " + e.Entry.Text + " " + e.Entry.URL
			}
		}
		if msg != "" {
			b.mu.Lock()
			b.errors = append(b.errors, msg)
			b.mu.Unlock()
		}
	})
	if err := chromedp.Run(ctx, cdplog.Enable()); err != nil {
		t.Fatal(err)
	}
	return b
}

func (b *browser) run(t *testing.T, what string, actions ...chromedp.Action) {
	t.Helper()
	if err := chromedp.Run(b.ctx, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// takeErrors returns and forgets the console errors seen so far.
func (b *browser) takeErrors() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	e := b.errors
	b.errors = nil
	return e
}

// screenshot saves the whole page as NAME.png in $DBRIG_SCREENSHOTS (to look
// at) or the test's temporary directory, and checks it is not blank.
func (b *browser) screenshot(t *testing.T, name string) {
	t.Helper()
	var png []byte
	b.run(t, "screenshot "+name, chromedp.FullScreenshot(&png, 100))
	if len(png) < 5_000 {
		t.Errorf("screenshot %s is only %d bytes: a blank page?", name, len(png))
	}
	dir := os.Getenv("DBRIG_SCREENSHOTS")
	if dir == "" {
		dir = t.TempDir()
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// serve starts the dashboard on 127.0.0.1 and returns its URL.
func serve(t *testing.T, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String()
}

// chartsDrawn waits until every chart placeholder of the page holds a canvas
// and returns how many there are.
func chartsDrawn(t *testing.T, b *browser) int {
	t.Helper()
	var n int
	b.run(t, "charts drawn", chromedp.Poll(`(() => {
		const all = document.querySelectorAll('.dbrig-chart').length;
		const drawn = document.querySelectorAll('.dbrig-chart canvas').length;
		return all > 0 && all === drawn ? all : 0;
	})()`, &n, chromedp.WithPollingTimeout(20*time.Second)))
	return n
}

func TestBrowser(t *testing.T) {
	b := newBrowser(t)
	f := newFixture(t)
	base := serve(t, web.NewServer(f.store))

	// Runs list.
	var rows []*cdp.Node
	b.run(t, "runs list", chromedp.Navigate(base+"/"), chromedp.WaitVisible("#runs"),
		chromedp.Nodes("#runs tr[data-run]", &rows, chromedp.ByQueryAll))
	if len(rows) != 4 {
		t.Fatalf("runs list shows %d runs, want 4", len(rows))
	}
	var count string
	b.run(t, "count", chromedp.Text("#count", &count))
	if !strings.Contains(count, "Runs 1–4 of 4") {
		t.Errorf("count line = %q", count)
	}
	b.screenshot(t, "runs")

	// Filter through the form: only redis.
	b.run(t, "filter", chromedp.SetValue(`select[name=system]`, "redis"), chromedp.Submit(`#filters`),
		chromedp.WaitVisible(fmt.Sprintf(`#runs tr[data-run="%d"]`, f.redis)),
		chromedp.Nodes("#runs tr[data-run]", &rows, chromedp.ByQueryAll))
	if len(rows) != 1 {
		t.Errorf("filtered list shows %d runs, want 1", len(rows))
	}

	// A run page: tables and every chart drawn.
	b.run(t, "open run", chromedp.Navigate(base+"/"),
		chromedp.Click(fmt.Sprintf(`#runs tr[data-run="%d"] td:nth-child(2) a`, f.simA)),
		chromedp.WaitVisible(fmt.Sprintf("#summary-%d", f.simA)))
	if n := chartsDrawn(t, b); n != 10 {
		t.Errorf("run page drew %d charts, want 10 (3 per op for OVERALL, READ, UPDATE, and errors)", n)
	}
	var overall string
	b.run(t, "summary", chromedp.Text(fmt.Sprintf(`#summary-%d tr[data-op=OVERALL]`, f.simA), &overall))
	if !strings.Contains(overall, "10,360") {
		t.Errorf("OVERALL row = %q, want the count 10,360", overall)
	}

	// Hover: the legend shows the values under the cursor.
	const over = `#chart-latency-READ .u-over`
	var box []float64
	b.run(t, "plot area", chromedp.Evaluate(`(() => { const r = document.querySelector('`+over+`').getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; })()`, &box))
	var legend string
	b.run(t, "hover", chromedp.ScrollIntoView(over),
		chromedp.Evaluate(`(() => { const r = document.querySelector('`+over+`').getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; })()`, &box))
	x, y := box[0]+box[2]*0.6, box[1]+box[3]*0.5
	b.run(t, "hover", chromedp.MouseEvent("mouseMoved", x, y),
		chromedp.Sleep(100*time.Millisecond),
		chromedp.Text(`#chart-latency-READ .u-legend .u-series:nth-child(4) .u-value`, &legend))
	if legend == "" || legend == "–" {
		t.Errorf("p99 legend under the cursor = %q, want a value", legend)
	}

	// Zoom: a drag on one time chart narrows the x range of all of them.
	var ranges []float64
	b.run(t, "zoom", chromedp.MouseEvent("mousePressed", box[0]+box[2]*0.3, y, chromedp.ButtonLeft),
		chromedp.MouseEvent("mouseMoved", box[0]+box[2]*0.5, y, chromedp.ButtonLeft),
		chromedp.MouseEvent("mouseReleased", box[0]+box[2]*0.6, y, chromedp.ButtonLeft),
		chromedp.Sleep(200*time.Millisecond),
		chromedp.Evaluate(`(() => { const a = document.querySelector('#chart-latency-READ').dbrigPlot.scales.x,
			b = document.querySelector('#chart-throughput-OVERALL').dbrigPlot.scales.x; return [a.min, a.max, b.min, b.max]; })()`, &ranges))
	if ranges[1]-ranges[0] > 6 || ranges[0] <= 0 || ranges[0] != ranges[2] || ranges[1] != ranges[3] {
		t.Errorf("after zooming the x ranges are %v, want a narrower range shared by the charts", ranges)
	}
	b.screenshot(t, "run")
	if errs := b.takeErrors(); len(errs) > 0 {
		t.Errorf("console errors: %v", errs)
	}

	// Compare: pick two runs on the compare page.
	b.run(t, "compare", chromedp.Navigate(base+"/compare"), chromedp.WaitVisible("#pick-form"),
		chromedp.Click(fmt.Sprintf(`input[name=id][value="%d"]`, f.simA)),
		chromedp.Click(fmt.Sprintf(`input[name=id][value="%d"]`, f.simB)),
		chromedp.Submit(`#pick-form`), chromedp.WaitVisible("#delta"))
	var deltaRows []*cdp.Node
	b.run(t, "delta", chromedp.Nodes("#delta tr[data-op]", &deltaRows, chromedp.ByQueryAll))
	if len(deltaRows) != 3*7 {
		t.Errorf("comparison has %d rows, want 21 (3 ops × 7 metrics)", len(deltaRows))
	}
	if n := chartsDrawn(t, b); n != 10 {
		t.Errorf("compare page drew %d charts, want 10", n)
	}
	var better int
	b.run(t, "better", chromedp.Evaluate(`document.querySelectorAll('#delta td.better').length`, &better))
	if better == 0 {
		t.Error("the faster run is nowhere marked better")
	}
	b.screenshot(t, "compare")

	// History of the workload on sim.
	b.run(t, "history", chromedp.Navigate(base+"/history?system=sim&workload=ycsb/workloada"), chromedp.WaitVisible("#history"))
	if n := chartsDrawn(t, b); n != 2 {
		t.Errorf("history drew %d charts, want 2", n)
	}
	b.screenshot(t, "history")

	// The run without data still renders, without charts and without errors.
	b.run(t, "empty run", chromedp.Navigate(fmt.Sprintf("%s/run/%d", base, f.none)), chromedp.WaitVisible(fmt.Sprintf("#context")))
	var empties int
	b.run(t, "empty charts", chromedp.Evaluate(`document.querySelectorAll('.chart-empty').length`, &empties))
	if empties == 0 {
		t.Error("the run without intervals shows no 'no data' notes")
	}
	if errs := b.takeErrors(); len(errs) > 0 {
		t.Errorf("console errors: %v", errs)
	}

	// An unknown run: a clear message (the 404 itself is logged by Chromium).
	var msg string
	b.run(t, "unknown run", chromedp.Navigate(base+"/run/999"), chromedp.Text("#error-message", &msg))
	if !strings.Contains(msg, "run 999: no such run") {
		t.Errorf("error page says %q", msg)
	}
	b.screenshot(t, "error")
}
