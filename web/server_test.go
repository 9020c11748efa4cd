package web_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dbrig/dbrig/loadmodel"
	"github.com/dbrig/dbrig/results"
	"github.com/dbrig/dbrig/web"
	"github.com/dbrig/dbrig/web/webtest"
)

var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// fixture is a store with: two sim runs of workloada (the second faster),
// a redis run tagged "canary", and an interrupted run without data.
type fixture struct {
	store                   *results.Store
	simA, simB, redis, none int64
}

func newFixture(t testing.TB) fixture {
	t.Helper()
	ctx := context.Background()
	s, err := results.Open(ctx, filepath.Join(t.TempDir(), "results.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	add := func(spec webtest.RunSpec) int64 {
		t.Helper()
		r, err := webtest.Add(ctx, s, spec)
		if err != nil {
			t.Fatal(err)
		}
		return r.ID
	}
	f := fixture{store: s}
	f.simA = add(webtest.Default(t0))
	b := webtest.Default(t0.Add(24 * time.Hour))
	b.Name, b.Version, b.BaseUS, b.FaultTo = "faster", "2.0", 100, 0
	f.simB = add(b)
	r := webtest.Default(t0.Add(48 * time.Hour))
	r.Name, r.System, r.Tags, r.Warmup, r.Measure, r.FaultTo = "redis run", "redis", []string{"canary"}, 0, 3, 0
	f.redis = add(r)
	n := webtest.Default(t0.Add(72 * time.Hour))
	n.Name, n.Warmup, n.Measure, n.Status = "stopped at once", 0, 0, results.StatusInterrupted
	f.none = add(n)
	return f
}

func get(t *testing.T, h http.Handler, method, path string) (int, string) {
	t.Helper()
	req := httptest.NewRequest(method, path, nil)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	body, _ := io.ReadAll(rec.Result().Body)
	return rec.Code, string(body)
}

var runRow = regexp.MustCompile(`<tr data-run="(\d+)"`)

// listed returns the run ids of the table rows of a page, in order.
func listed(body string) []string {
	var ids []string
	for _, m := range runRow.FindAllStringSubmatch(body, -1) {
		ids = append(ids, m[1])
	}
	return ids
}

func ids(v ...int64) string {
	s := make([]string, len(v))
	for i, id := range v {
		s[i] = strconv.FormatInt(id, 10)
	}
	return strings.Join(s, ",")
}

func TestPages(t *testing.T) {
	f := newFixture(t)
	h := web.NewServer(f.store)
	for _, tc := range []struct {
		name, method, path string
		code               int
		want               []string // substrings of the body
		rows               string   // run ids listed, in order ("-": do not check)
	}{
		{"list newest first", "GET", "/", 200, []string{"Runs 1–4 of 4", "Compare selected"}, ids(f.none, f.redis, f.simB, f.simA)},
		{"filter system", "GET", "/?system=redis", 200, []string{"Runs 1–1 of 1"}, ids(f.redis)},
		{"filter tag", "GET", "/?tag=canary", 200, nil, ids(f.redis)},
		{"filter status", "GET", "/?status=interrupted", 200, nil, ids(f.none)},
		{"filter dates", "GET", "/?since=2025-03-02&until=2025-03-03", 200, nil, ids(f.redis, f.simB)},
		{"filter workload and system", "GET", "/?system=sim&workload=ycsb%2Fworkloada&status=done", 200, nil, ids(f.simB, f.simA)},
		{"no match", "GET", "/?system=mysql", 200, []string{"No runs match these filters"}, ""},
		// p99: none has no data (0); simB is fast; redis has simA's latency without its fault.
		{"sort p99 ascending", "GET", "/?sort=p99&order=asc", 200, nil, ids(f.none, f.simB, f.redis, f.simA)},
		{"sort throughput", "GET", "/?sort=throughput", 200, nil, "-"},
		{"bad sort", "GET", "/?sort=p99%20DESC%2C1", 400, []string{"sort &#34;p99 DESC,1&#34;: expected one of"}, ""},
		{"semicolon", "GET", "/?sort=1;DROP%20TABLE%20runs", 400, []string{"invalid semicolon separator"}, ""},
		{"bad order", "GET", "/?order=up", 400, []string{"expected asc or desc"}, ""},
		{"bad date", "GET", "/?since=yesterday", 400, []string{"since &#34;yesterday&#34;: expected a date like 2025-03-01"}, ""},
		{"bad status", "GET", "/?status=weird", 400, []string{"status &#34;weird&#34;: expected one of running, done"}, ""},
		{"bad page", "GET", "/?page=0", 400, []string{"expected a whole number from 1"}, ""},
		{"run", "GET", "/run/" + ids(f.simA), 200, []string{`id="summary-` + ids(f.simA) + `"`, "kill node2", `class="dbrig-chart"`, "/assets/uPlot.iife.min.js"}, "-"},
		{"run without data", "GET", "/run/" + ids(f.none), 200, []string{"No phase summary was stored", "no per-second intervals were stored", "interrupted by signal"}, "-"},
		{"unknown run", "GET", "/run/999", 404, []string{"run 999: no such run"}, ""},
		{"bad run id", "GET", "/run/abc", 400, []string{"run id &#34;abc&#34;: expected a positive whole number"}, ""},
		{"compare", "GET", "/compare?id=" + ids(f.simA) + "&id=" + ids(f.simB), 200, []string{`id="delta"`, "#" + ids(f.simB)}, "-"},
		{"compare ids list", "GET", "/compare?ids=" + ids(f.simA, f.redis), 200, []string{`id="delta"`}, "-"},
		{"compare picker", "GET", "/compare", 200, []string{"Pick two or more runs"}, ids(f.none, f.redis, f.simB, f.simA)},
		{"compare one", "GET", "/compare?id=" + ids(f.simA), 200, []string{"pick at least one more",
			`value="` + ids(f.simA) + `" aria-label="select run ` + ids(f.simA) + `" checked>`}, "-"},
		{"compare unknown", "GET", "/compare?ids=" + ids(f.simA) + ",77", 404, []string{"run 77: no such run"}, ""},
		{"compare bad id", "GET", "/compare?id=1&id=x", 400, []string{"run id &#34;x&#34;"}, ""},
		{"history", "GET", "/history?system=sim&workload=ycsb%2Fworkloada", 200, []string{"History: ycsb/workloada on sim", `id="chart-history-p99"`}, ids(f.simB, f.simA)},
		{"history empty", "GET", "/history?system=nope&workload=x", 200, []string{"No finished runs of x on nope"}, ""},
		{"history bad", "GET", "/history?system=sim", 400, []string{"history needs a system and a workload"}, ""},
		{"post refused", "POST", "/", 405, []string{"read-only"}, ""},
		{"delete refused", "DELETE", "/run/1", 405, []string{"read-only"}, ""},
		{"no such page", "GET", "/admin", 404, []string{"no page /admin here"}, ""},
		{"asset", "GET", "/assets/uPlot.iife.min.js", 200, []string{"uPlot"}, ""},
		{"no asset listing", "GET", "/assets/", 404, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := get(t, h, tc.method, tc.path)
			if code != tc.code {
				t.Errorf("%s %s: status %d, want %d\n%.600s", tc.method, tc.path, code, tc.code, body)
			}
			for _, w := range tc.want {
				if !strings.Contains(body, w) {
					t.Errorf("%s %s: body lacks %q\n%.1500s", tc.method, tc.path, w, body)
				}
			}
			if strings.Contains(body, "goroutine ") || strings.Contains(body, ".go:") {
				t.Errorf("%s %s: body shows a stack trace or source position", tc.method, tc.path)
			}
			if tc.rows != "-" {
				if got := strings.Join(listed(body), ","); got != tc.rows {
					t.Errorf("%s %s: runs listed %q, want %q", tc.method, tc.path, got, tc.rows)
				}
			}
		})
	}
	// The store is unchanged by all of the above.
	runs, err := f.store.ListRuns(context.Background(), results.Filter{})
	if err != nil || len(runs) != 4 {
		t.Errorf("after the requests the store has %d runs (%v), want 4", len(runs), err)
	}
}

// The assets folder is not listed: only its files are served.
func TestAssetsAreNotListed(t *testing.T) {
	h := web.NewServer(nil)
	for _, path := range []string{"/assets/", "/assets"} {
		code, body := get(t, h, "GET", path)
		if code == 200 || strings.Contains(body, "uPlot.iife.min.js") {
			t.Errorf("GET %s: %d, lists the files:\n%.300s", path, code, body)
		}
	}
}

func TestRunsPaging(t *testing.T) {
	ctx := context.Background()
	s, err := results.Open(ctx, filepath.Join(t.TempDir(), "results.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := webtest.Many(ctx, s, 105, t0); err != nil {
		t.Fatal(err)
	}
	h := web.NewServer(s)
	_, body := get(t, h, "GET", "/?sort=id&order=asc")
	if got := listed(body); len(got) != 100 || got[0] != "1" || got[99] != "100" {
		t.Fatalf("first page: %d runs, %v … ", len(got), got[:min(3, len(got))])
	}
	if !strings.Contains(body, "Runs 1–100 of 105") || !strings.Contains(body, `href="/?order=asc&amp;page=2&amp;sort=id"`) {
		t.Errorf("first page lacks the count or the next link:\n%s", body[:min(len(body), 3000)])
	}
	_, body = get(t, h, "GET", "/?sort=id&order=asc&page=2")
	if got := strings.Join(listed(body), ","); got != "101,102,103,104,105" {
		t.Errorf("second page lists %s", got)
	}
}

func TestHistoryRegression(t *testing.T) {
	ctx := context.Background()
	s, err := results.Open(ctx, filepath.Join(t.TempDir(), "results.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var slow int64
	for i, base := range []int64{100, 105, 98, 102, 300, 101} {
		spec := webtest.RunSpec{Name: "nightly", System: "redis", Version: "7", Workload: "ycsb/workloadb",
			Start: t0.Add(time.Duration(i) * 24 * time.Hour), Measure: 2, BaseUS: base, NoEvents: true}
		r, err := webtest.Add(ctx, s, spec)
		if err != nil {
			t.Fatal(err)
		}
		if base == 300 {
			slow = r.ID
		}
	}
	_, body := get(t, web.NewServer(s), "GET", "/history?system=redis&workload=ycsb/workloadb")
	flagged := regexp.MustCompile(`<tr data-run="(\d+)" class="regression">`).FindAllStringSubmatch(body, -1)
	if len(flagged) != 1 || flagged[0][1] != strconv.FormatInt(slow, 10) {
		t.Fatalf("regressions flagged: %v, want only run %d\n%s", flagged, slow, body)
	}
	if !strings.Contains(body, "1 run(s) regressed") || !strings.Contains(body, "p99 ") {
		t.Error("the regression is not explained")
	}
}

// A history shows one load model at a time, links the others, and never
// flags a fixed-rate run with faults, however slow its p99.
func TestHistoryLoadModels(t *testing.T) {
	ctx := context.Background()
	s, err := results.Open(ctx, filepath.Join(t.TempDir(), "results.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	closed16 := loadmodel.Load{Model: "closed", Clients: 16}
	open1000 := loadmodel.Load{Model: "open", Clients: 8, Rate: 1000, Arrival: "poisson"}
	var closedIDs, openIDs []int64
	var faulty int64
	for i, r := range []struct {
		load   loadmodel.Load
		baseUS int64
		fault  bool
	}{
		{closed16, 2000, false}, {open1000, 100, false}, {closed16, 2100, false}, {open1000, 105, false},
		{open1000, 98, true}, {open1000, 102, false}, {closed16, 1900, false},
	} {
		spec := webtest.RunSpec{Name: "nightly", System: "redis", Version: "7", Workload: "ycsb/workloadb",
			Start: t0.Add(time.Duration(i) * 24 * time.Hour), Measure: 4, BaseUS: r.baseUS, Load: r.load}
		if r.fault {
			spec.FaultFrom, spec.FaultTo = 1, 3
		}
		run, err := webtest.Add(ctx, s, spec)
		if err != nil {
			t.Fatal(err)
		}
		if r.load.Model == "closed" {
			closedIDs = append([]int64{run.ID}, closedIDs...) // newest first, as listed
		} else {
			openIDs = append([]int64{run.ID}, openIDs...)
		}
		if r.fault {
			faulty = run.ID
		}
	}
	h := web.NewServer(s)
	base := "/history?system=redis&workload=ycsb%2Fworkloadb"
	for _, tc := range []struct {
		name, path string
		code       int
		rows       string
		want       []string
	}{
		// The newest run is closed with 16 clients: its load model first.
		{"default: the newest run's load model", base, 200, ids(closedIDs...),
			[]string{"History: ycsb/workloadb on redis, closed 16", `<strong aria-current="page">closed 16 (3)</strong>`, `<a href="/history?load=open&#43;8&#43;%401%2C000%2Fs&amp;system=redis&amp;workload=ycsb%2Fworkloadb">open 8 @1,000/s (4)</a>`, "No regressions."}},
		{"another load model", base + "&load=open+8+%401%2C000%2Fs", 200, ids(openIDs...),
			[]string{"History: ycsb/workloadb on redis, open 8 @1,000/s", `<tr data-run="` + ids(faulty) + `" class="faults">`, "faults: not judged", "No regressions."}},
		{"a load model without runs", base + "&load=closed+2", 404, "", []string{`under the load &#34;closed 2&#34; (its runs are under: closed 16; open 8 @1,000/s)`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := get(t, h, "GET", tc.path)
			if code != tc.code {
				t.Fatalf("%d, want %d\n%s", code, tc.code, body)
			}
			if got := strings.Join(listed(body), ","); got != tc.rows {
				t.Errorf("runs %s, want %s", got, tc.rows)
			}
			for _, w := range tc.want {
				if !strings.Contains(body, w) {
					t.Errorf("body lacks %q\n%s", w, body)
				}
			}
			if strings.Contains(body, `class="regression"`) {
				t.Errorf("a run is flagged as regressed:\n%s", body)
			}
		})
	}
	// The runs list links each run's history under its own load model.
	_, body := get(t, h, "GET", "/")
	if !strings.Contains(body, `href="/history?load=closed&#43;16&amp;system=redis&amp;workload=ycsb%2Fworkloadb"`) {
		t.Errorf("the runs list does not link the history of the run's load model:\n%.3000s", body)
	}
}

// A rating's experiments do not fill the runs list: they are listed when
// asked for (ratings=1) or by their tag, as dbrig runs list does.
func TestRunsListLeavesOutRatingExperiments(t *testing.T) {
	f := newFixture(t)
	step := webtest.Default(t0.Add(96 * time.Hour))
	step.Name, step.Tags = "rating step", []string{"rating:7"}
	r, err := webtest.Add(context.Background(), f.store, step)
	if err != nil {
		t.Fatal(err)
	}
	h := web.NewServer(f.store)
	for _, tc := range []struct {
		path string
		want bool
	}{
		{"/", false},
		{"/?ratings=1", true},
		{"/?tag=rating:7", true},
	} {
		code, body := get(t, h, "GET", tc.path)
		got := strings.Contains(","+strings.Join(listed(body), ",")+",", ","+ids(r.ID)+",")
		if code != 200 || got != tc.want {
			t.Errorf("%s: status %d, lists the rating's run: %v, want %v", tc.path, code, got, tc.want)
		}
	}
	if _, body := get(t, h, "GET", "/"); !strings.Contains(body, `href="/?ratings=1"`) {
		t.Error("the list does not say where the rating experiments are")
	}
}
