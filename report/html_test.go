package report_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/dbrig/dbrig/analysis"
	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/report"
	"github.com/dbrig/dbrig/results"
	"github.com/dbrig/dbrig/web/webtest"
)

var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

func newStore(t testing.TB) (*results.Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "results.db")
	s, err := results.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, path
}

func addRun(t testing.TB, s *results.Store, spec webtest.RunSpec) webtest.Run {
	t.Helper()
	r, err := webtest.Add(context.Background(), s, spec)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func writeHTML(t *testing.T, s *results.Store, ids ...int64) (string, *html.Node) {
	t.Helper()
	var b bytes.Buffer
	if err := report.WriteHTML(context.Background(), &b, s, ids); err != nil {
		t.Fatalf("WriteHTML(%v): %v", ids, err)
	}
	doc, err := html.Parse(strings.NewReader(b.String()))
	if err != nil {
		t.Fatalf("report is not HTML: %v", err)
	}
	return b.String(), doc
}

// find returns the elements for which match is true, in document order.
func find(n *html.Node, match func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && match(n) {
			out = append(out, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return out
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func byID(doc *html.Node, id string) *html.Node {
	nodes := find(doc, func(n *html.Node) bool { return attr(n, "id") == id })
	if len(nodes) == 0 {
		return nil
	}
	return nodes[0]
}

func text(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return strings.TrimSpace(b.String())
}

// cells returns the text of the cells of the row with data-op=op in table.
func cells(t *testing.T, table *html.Node, op string) []string {
	t.Helper()
	rows := find(table, func(n *html.Node) bool { return n.Data == "tr" && attr(n, "data-op") == op })
	if len(rows) == 0 {
		t.Fatalf("table %s has no row for %s", attr(table, "id"), op)
	}
	var out []string
	for _, c := range find(rows[0], func(n *html.Node) bool { return n.Data == "td" }) {
		out = append(out, text(c))
	}
	return out
}

func charts(t *testing.T, doc *html.Node) map[string]analysis.Chart {
	t.Helper()
	blocks := find(doc, func(n *html.Node) bool { return n.Data == "script" && attr(n, "class") == "dbrig-charts" })
	if len(blocks) != 1 {
		t.Fatalf("expected one chart data block, found %d", len(blocks))
	}
	var list []analysis.Chart
	if err := json.Unmarshal([]byte(text(blocks[0])), &list); err != nil {
		t.Fatalf("chart data: %v", err)
	}
	m := map[string]analysis.Chart{}
	for _, c := range list {
		m[c.ID] = c
	}
	return m
}

func line(t *testing.T, c analysis.Chart, label string) []analysis.Num {
	t.Helper()
	for _, l := range c.Lines {
		if l.Label == label {
			if len(l.Y) != len(c.X) {
				t.Fatalf("chart %s line %q: %d values for %d x", c.ID, label, len(l.Y), len(c.X))
			}
			return l.Y
		}
	}
	t.Fatalf("chart %s has no line %q", c.ID, label)
	return nil
}

func opOf(iv measure.Interval, op string) measure.OpInterval {
	for _, o := range iv.Ops {
		if o.Op == op {
			return o
		}
	}
	return measure.OpInterval{}
}

func TestHTMLOneRun(t *testing.T) {
	s, _ := newStore(t)
	run := addRun(t, s, webtest.Default(t0))
	out, doc := writeHTML(t, s, run.ID)

	// Self-contained: no external scripts, styles or images.
	for _, n := range find(doc, func(n *html.Node) bool { return attr(n, "src") != "" || n.Data == "link" }) {
		t.Errorf("report loads an external resource: <%s src=%q href=%q>", n.Data, attr(n, "src"), attr(n, "href"))
	}
	if !strings.Contains(out, "uPlot") || !strings.Contains(out, "dbrig report charts") {
		t.Error("uPlot or report.js is not inlined")
	}

	ctxTable := byID(doc, "context")
	if ctxTable == nil {
		t.Fatal("no context table")
	}
	for _, want := range []string{"sim 1.0", "ycsb/workloada", "open, 8 clients, target 1,000 ops/s, poisson arrivals", "testhost", "done", "7"} {
		if !strings.Contains(text(ctxTable), want) {
			t.Errorf("context table lacks %q:\n%s", want, text(ctxTable))
		}
	}
	if props := byID(doc, "props"); props == nil || !strings.Contains(text(props), "readproportion") {
		t.Error("properties table missing or without readproportion")
	}

	// Summary: the stored measure phase, op by op.
	sum := byID(doc, "summary-"+itoa(run.ID))
	if sum == nil {
		t.Fatal("no summary table")
	}
	for _, o := range append(run.Measure.Ops, run.Measure.Overall) {
		c := cells(t, sum, o.Op)
		if c[0] != o.Op {
			t.Errorf("row %s starts with %q", o.Op, c[0])
		}
		if got, want := c[1], commas(o.Count); got != want {
			t.Errorf("%s count = %s, want %s", o.Op, got, want)
		}
		if got, want := c[2], commas(o.Errors); got != want {
			t.Errorf("%s errors = %s, want %s", o.Op, got, want)
		}
	}
	if len(run.Measure.Overall.Classes) == 0 {
		t.Fatal("fixture: the fault should have produced errors")
	}

	// Series: one x per stored interval, values from the intervals.
	ch := charts(t, doc)
	tp := ch["throughput-READ"]
	if len(tp.X) != len(run.Intervals) {
		t.Fatalf("throughput-READ has %d points, the run stored %d intervals", len(tp.X), len(run.Intervals))
	}
	y := line(t, tp, "ops/s")
	lat := ch["latency-READ"]
	p99 := line(t, lat, "p99")
	svc := line(t, lat, "service p99")
	for i, iv := range run.Intervals {
		o := opOf(iv, "READ")
		wantX := iv.End.Sub(t0).Seconds()
		if math.Abs(float64(tp.X[i])-wantX) > 0.001 {
			t.Errorf("x[%d] = %v, want %v", i, tp.X[i], wantX)
		}
		if want := float64(o.Count) / iv.End.Sub(iv.Start).Seconds(); math.Abs(float64(y[i])-want) > 1e-9 {
			t.Errorf("READ ops/s[%d] = %v, want %v", i, y[i], want)
		}
		if want := float64(measure.Percentile(o.Response, 99)) / 1000; float64(p99[i]) != want {
			t.Errorf("READ p99[%d] = %v ms, want %v", i, p99[i], want)
		}
		if want := float64(measure.Percentile(o.Service, 99)) / 1000; float64(svc[i]) != want {
			t.Errorf("READ service p99[%d] = %v ms, want %v", i, svc[i], want)
		}
	}
	// The fault: a band where the fixture put it, and response ≫ service there.
	if len(tp.Bands) != 1 || !strings.Contains(tp.Bands[0].Label, "kill node2") {
		t.Fatalf("bands = %+v, want one fault window", tp.Bands)
	}
	wantFrom := run.Intervals[run.Spec.Warmup+run.Spec.FaultFrom].Start.Sub(t0).Seconds()
	wantTo := run.Intervals[run.Spec.Warmup+run.Spec.FaultTo].Start.Sub(t0).Seconds()
	if b := tp.Bands[0]; math.Abs(b.From-wantFrom) > 0.001 || math.Abs(b.To-wantTo) > 0.001 {
		t.Errorf("band %v..%v, want %v..%v", b.From, b.To, wantFrom, wantTo)
	}
	var labels []string
	for _, m := range tp.Marks {
		labels = append(labels, m.Label)
	}
	if got := strings.Join(labels, ","); got != "warmup,measure,compaction" {
		t.Errorf("marks = %s, want warmup,measure,compaction", got)
	}

	dist := ch["distribution-OVERALL"]
	resp, svcD := line(t, dist, "response time"), line(t, dist, "service time")
	last := len(dist.X) - 1
	if float64(dist.X[0]) != 1 || float64(dist.X[last]) > float64(run.Measure.Overall.Count) {
		t.Errorf("distribution x from %v to %v, want 1 to at most the count %d", dist.X[0], dist.X[last], run.Measure.Overall.Count)
	}
	if want := float64(measure.Percentile(run.Measure.Overall.ResponseHist, 90)) / 1000; float64(resp[40]) != want {
		t.Errorf("response at x=10 (p90) = %v, want %v", resp[40], want)
	}
	if resp[last] <= svcD[last] {
		t.Errorf("tail: response %v ms should exceed service %v ms (queueing in the fault)", resp[last], svcD[last])
	}

	errs := ch["errors"]
	to := line(t, errs, "timeout")
	var total float64
	for _, v := range to {
		total += float64(v)
	}
	if want := float64(run.Measure.Overall.Errors); math.Abs(total-want) > 1e-6 {
		t.Errorf("timeouts over time add up to %v, want %v", total, want)
	}
	if byID(doc, "errors-"+itoa(run.ID)) == nil || byID(doc, "events-"+itoa(run.ID)) == nil {
		t.Error("error messages or events table missing")
	}
	if byID(doc, "delta") != nil {
		t.Error("a one-run report has a comparison table")
	}
}

func TestHTMLCompare(t *testing.T) {
	s, _ := newStore(t)
	a := addRun(t, s, webtest.Default(t0))
	spec := webtest.Default(t0.Add(time.Hour))
	spec.Version, spec.BaseUS, spec.FaultTo, spec.Measure = "2.0", 100, 0, 8
	b := addRun(t, s, spec)
	_, doc := writeHTML(t, s, a.ID, b.ID)

	delta := byID(doc, "delta")
	if delta == nil {
		t.Fatal("no comparison table")
	}
	rows := find(delta, func(n *html.Node) bool {
		return n.Data == "tr" && attr(n, "data-op") == "READ" && attr(n, "data-metric") == "p50"
	})
	if len(rows) != 1 {
		t.Fatalf("comparison: %d READ p50 rows", len(rows))
	}
	c := find(rows[0], func(n *html.Node) bool { return n.Data == "td" })
	// p50 halves (BaseUS 200 → 100): −50% and better.
	if got := text(c[4]); !strings.HasPrefix(got, "-5") || attr(c[4], "class") != "num better" {
		t.Errorf("READ p50 change = %q (class %q), want about -50%% marked better", got, attr(c[4], "class"))
	}
	for _, id := range []int64{a.ID, b.ID} {
		if byID(doc, "summary-"+itoa(id)) == nil {
			t.Errorf("no summary table for run %d", id)
		}
	}
	ch := charts(t, doc)
	tp := ch["throughput-OVERALL"]
	// Both runs have their intervals at the same offsets: x is the longer run's.
	if len(tp.X) != len(a.Intervals) {
		t.Errorf("overlay x has %d points, want %d", len(tp.X), len(a.Intervals))
	}
	for _, id := range []int64{a.ID, b.ID} {
		y := line(t, tp, "#"+itoa(id)+" ops/s")
		n := 0
		for _, v := range y {
			if !math.IsNaN(float64(v)) {
				n++
			}
		}
		want := len(a.Intervals)
		if id == b.ID {
			want = len(b.Intervals)
		}
		if n != want {
			t.Errorf("run %d: %d values, want %d", id, n, want)
		}
	}
	if !tp.SpanGaps {
		t.Error("overlaid lines should span the other run's x")
	}
}

func TestHTMLRunWithoutIntervals(t *testing.T) {
	s, _ := newStore(t)
	spec := webtest.Default(t0)
	spec.Warmup, spec.Measure, spec.Status = 0, 0, results.StatusInterrupted
	run := addRun(t, s, spec)
	out, doc := writeHTML(t, s, run.ID)
	if !strings.Contains(out, "No phase summary was stored") {
		t.Error("no message about the missing summary")
	}
	if !strings.Contains(out, "no per-second intervals were stored") {
		t.Error("no message about the missing intervals")
	}
	if n := len(find(doc, func(n *html.Node) bool { return attr(n, "class") == "dbrig-chart" })); n != 0 {
		t.Errorf("%d charts drawn for a run without data", n)
	}
	if !strings.Contains(text(byID(doc, "context")), "interrupted: interrupted by signal") {
		t.Error("status and message not shown")
	}
}

func TestHTMLBadInput(t *testing.T) {
	s, _ := newStore(t)
	run := addRun(t, s, webtest.Default(t0))
	for _, tc := range []struct {
		name string
		ids  []int64
		want string
	}{
		{"unknown", []int64{run.ID, 999}, "run 999: no such run"},
		{"none", nil, "no run ids"},
		{"twice", []int64{run.ID, run.ID}, "given twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			err := report.WriteHTML(context.Background(), &b, s, tc.ids)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one containing %q", err, tc.want)
			}
			if tc.name == "unknown" && !errors.Is(err, results.ErrNoRun) {
				t.Errorf("err %v does not wrap ErrNoRun", err)
			}
			if b.Len() != 0 {
				t.Errorf("wrote %d bytes despite the error", b.Len())
			}
		})
	}
}

func itoa(i int64) string { return strconv.FormatInt(i, 10) }

// commas formats a count as the report does: 1,234.
func commas(n int64) string {
	s := strconv.FormatInt(n, 10)
	var out []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}
