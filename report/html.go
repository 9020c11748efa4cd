package report

import (
	"context"
	"embed"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/dbrig/dbrig/analysis"
	"github.com/dbrig/dbrig/format"
	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/results"
)

//go:embed assets/uPlot.iife.min.js assets/uPlot.min.css assets/uPlot.LICENSE assets/report.js assets/report.css assets/report.tmpl
var assetFS embed.FS

// Assets returns the files a report page needs (uPlot.iife.min.js,
// uPlot.min.css, report.js, report.css, uPlot.LICENSE), for a server that
// links them instead of inlining them (see RenderBody).
func Assets() fs.FS {
	sub, err := fs.Sub(assetFS, "assets")
	if err != nil {
		panic(err) // "assets" is embedded above: cannot fail
	}
	return sub
}

func asset(name string) string {
	b, err := assetFS.ReadFile("assets/" + name)
	if err != nil {
		panic(err) // embedded: cannot fail
	}
	return string(b)
}

// templates are parsed once; a parse error is a bug caught by every test.
var templates = template.Must(template.New("report").Funcs(template.FuncMap{
	"inc": func(i int) int { return i + 1 },
}).Parse(asset("report.tmpl")))

// Build reads the runs from the store and analyses them, for RenderHTML and
// RenderPNGs.
func Build(ctx context.Context, store *results.Store, ids []int64) (*analysis.Set, error) {
	set, err := analysis.Read(ctx, store, ids)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	return set, nil
}

// WriteHTML writes one self-contained HTML report of the runs: everything,
// uPlot included, is inlined, so the file works offline.
func WriteHTML(ctx context.Context, w io.Writer, store *results.Store, ids []int64) error {
	rep, err := Build(ctx, store, ids)
	if err != nil {
		return err
	}
	return RenderHTML(w, rep)
}

// RenderHTML writes the report as a complete, self-contained document.
func RenderHTML(w io.Writer, rep *analysis.Set) error {
	v := newView(rep)
	doc := struct {
		V                   *view
		UPlotJS, ReportJS   template.JS
		UPlotCSS, ReportCSS template.CSS
	}{v, template.JS(asset("uPlot.iife.min.js")), template.JS(asset("report.js")),
		template.CSS(asset("uPlot.min.css")), template.CSS(asset("report.css"))}
	if err := templates.ExecuteTemplate(w, "document", doc); err != nil {
		return fmt.Errorf("html report: %w", err)
	}
	return nil
}

// RenderBody writes the report as an HTML fragment (a div.dbrig-report) for a
// page that loads uPlot.iife.min.js, uPlot.min.css, report.css and report.js
// from Assets itself.
func RenderBody(w io.Writer, rep *analysis.Set) error {
	if err := templates.ExecuteTemplate(w, "body", newView(rep)); err != nil {
		return fmt.Errorf("html report: %w", err)
	}
	return nil
}

// view is what the template shows: strings formatted here, so the template
// holds only layout.
type view struct {
	Title   string
	Multi   bool
	Runs    []runView
	Context []row // one value per run
	Props   []row
	Delta   *deltaView
	Ops     []opCharts
	Errors  chartRef
	Nodes   []chartRef       // what the processes did (CPU, memory, I/O per node)
	Workers []workersView    // each distributed run's workers (workers.go)
	Charts  []analysis.Chart // the JSON block read by report.js
	Made    string
}

type row struct {
	Label  string
	Values []string
}

type runView struct {
	ID           int64
	Label        string
	Status       string
	Message      string
	SummaryTitle string
	SummaryNote  string
	Summary      []sumRow
	Errors       []measure.ErrorSample
	Events       []eventRow
	Intervals    int // seconds with data
	Spec         string
	Command      string
	Nodes        []results.Node
	Impacts      []impactRow
	Headline     []headlineRow // the workload's headline metrics (metrics.go)
	LoadPhase    string        // the load phase in one sentence; "" without one
	NodeMetrics  []nodeMetricRow
}

// impactRow is one fault's cost, formatted.
type impactRow struct {
	Fault, At, Detail, Outcome     string
	Before, During, After          string // p50 / p95 / p99 (Percentiles)
	TputBefore, TputDuring, Change string
	Unavailable, Recovery          string
	Shares                         string // client traffic by node (ShareLine)
	Lags                           string // replication lag (LagLine)
}

type sumRow struct {
	Op      string
	Overall bool
	Cells   []string // as sumColumns
}

// sumColumns are the columns of a summary table after the op name.
var sumColumns = []string{"count", "errors", "ops/s", "mean", "p50", "p90", "p95", "p99", "p99.9", "max", "service p99"}

type eventRow struct {
	At, Kind, Name, Detail, Outcome string
}

type opCharts struct {
	Op     string
	Charts []chartRef
}

type chartRef struct {
	Index int
	Chart analysis.Chart
}

type deltaView struct {
	Base  string
	Heads []string // for every other run: its value and the change
	Rows  []deltaRow
}

type deltaRow struct {
	Op, Metric string
	Base       string
	Cells      []deltaCell
}

type deltaCell struct {
	Value, Change, Class string
	// CI is the change's confidence interval, Title the test behind the
	// verdict in words (analysis.Significance).
	CI, Title string
}

func (v *view) SumColumns() []string { return sumColumns }

func newView(rep *analysis.Set) *view {
	v := &view{Multi: len(rep.Runs) > 1, Charts: rep.Charts, Made: time.Now().UTC().Format("2006-01-02 15:04:05 UTC")}
	var names []string
	for _, rd := range rep.Runs {
		rv := runViewOf(rd)
		v.Runs = append(v.Runs, rv)
		names = append(names, rv.Label)
	}
	v.Title = "dbrig report: " + strings.Join(names, ", ")
	v.Workers = workersViews(rep, names)
	if !v.Multi && len(rep.Runs) == 1 {
		d := rep.Runs[0].Detail
		v.Title = fmt.Sprintf("dbrig report: run %d — %s %s, %s", d.ID, d.System, d.ServerVersion, d.Workload)
	}
	v.Context = contextRows(rep.Runs)
	v.Props = propRows(rep.Runs)
	if v.Multi {
		v.Delta = deltaOf(rep)
	}
	index := map[string]int{}
	for i, c := range rep.Charts {
		index[c.ID] = i
	}
	for _, op := range rep.Ops {
		oc := opCharts{Op: op}
		for _, kind := range []string{analysis.KindThroughput, analysis.KindLatency, analysis.KindDistribution} {
			if i, ok := index[analysis.ChartID(kind, op)]; ok {
				oc.Charts = append(oc.Charts, chartRef{i, rep.Charts[i]})
			}
		}
		v.Ops = append(v.Ops, oc)
	}
	if i, ok := index[analysis.ErrorsChartID]; ok {
		v.Errors = chartRef{i, rep.Charts[i]}
	}
	for _, id := range analysis.NodeChartIDs() {
		if i, ok := index[id]; ok {
			v.Nodes = append(v.Nodes, chartRef{i, rep.Charts[i]})
		}
	}
	return v
}

func runViewOf(rd analysis.Run) runView {
	d := rd.Detail
	res := analysis.ResultOf(rd)
	rv := runView{ID: d.ID, Status: res.Status, Message: res.Message, SummaryNote: res.ShownNote,
		Spec: d.Info.Spec, Command: d.Info.Command, Nodes: rd.Nodes}
	for _, m := range res.Headline {
		rv.Headline = append(rv.Headline, headlineRow{Name: m.Name, Value: MetricValue(results.RunMetric{Name: m.Name, Value: m.Value, Unit: m.Unit}), Doc: m.Doc})
	}
	for _, im := range res.Impacts {
		rv.Impacts = append(rv.Impacts, impactRowOf(im))
	}
	rv.Label = fmt.Sprintf("#%d %s", d.ID, d.System)
	if d.Name != "" {
		rv.Label = fmt.Sprintf("#%d %s", d.ID, d.Name)
	}
	for _, iv := range rd.Intervals {
		if iv.Op == measure.OverallOp {
			rv.Intervals++
		}
	}
	if lp := res.LoadPhase; lp != nil {
		rv.LoadPhase = loadPhaseText(*lp)
	}
	if s := res.Shown; s != nil {
		rv.SummaryTitle = fmt.Sprintf("%s phase, %s", s.Phase, format.Elapsed(s.End.Sub(s.Start)))
		for _, o := range s.Ops {
			rv.Summary = append(rv.Summary, sumRowOf(o))
		}
		rv.Errors = s.Errors
	}
	for _, n := range res.Nodes {
		rv.NodeMetrics = append(rv.NodeMetrics, nodeMetricRowOf(n))
	}
	for _, e := range d.Events {
		rv.Events = append(rv.Events, eventRow{At: format.Seconds(e.Time.Sub(d.Start).Seconds()), Kind: e.Kind,
			Name: e.Name, Detail: e.Detail, Outcome: e.Outcome})
	}
	return rv
}

// impactRowOf formats one fault's cost.
func impactRowOf(im analysis.Impact) impactRow {
	if im.NotFired {
		return impactRow{Fault: im.Fault, At: format.Elapsed(im.Start), Detail: im.Detail, Outcome: im.Outcome,
			Before: "–", During: "–", After: "–", TputBefore: "–", TputDuring: "–", Change: "–", Unavailable: "–", Recovery: "did not fire"}
	}
	return impactRow{Fault: im.Fault, At: format.Elapsed(im.Start), Detail: im.Detail, Outcome: im.Outcome,
		Before: Percentiles(im.Baseline), During: Percentiles(im.During), After: Percentiles(im.After),
		TputBefore: format.Rate(im.Baseline.Throughput), TputDuring: format.Rate(im.During.Throughput),
		Change: fmt.Sprintf("%+.0f%%", im.ThroughputChangePct), Unavailable: unavailable(im), Recovery: RecoveryText(im), Shares: ShareLine(im), Lags: LagLine(im)}
}

// loadPhaseText is the load phase in one sentence.
func loadPhaseText(lp analysis.LoadPhase) string {
	s := fmt.Sprintf("load phase: %s records in %s, %s records/s; %s batches of %.1f records on average, per batch mean %s, p50 %s, p99 %s (%s per record)",
		format.Int(lp.Records), format.Elapsed(time.Duration(lp.DurationS*float64(time.Second))), format.Rate(lp.RecordsPerSec),
		format.Int(lp.Batches), lp.RecordsPerBatch, format.Micros(lp.BatchLatency.Mean), format.MicrosInt(lp.BatchLatency.P50),
		format.MicrosInt(lp.BatchLatency.P99), format.Micros(lp.MeanUSPerRecord))
	if lp.Partial {
		s += fmt.Sprintf("; partial: %s of %s records", format.Int(lp.Records), format.Int(lp.Wanted))
	}
	return s
}

// nodeMetricRow is what one process did over the run, formatted.
type nodeMetricRow struct {
	Node, Samples, CPUMean, CPUMax, RSSMax, Written, WritesPerS, CtxPerS string
}

func nodeMetricRowOf(n analysis.NodeSummary) nodeMetricRow {
	mib := func(b float64) string { return strconv.FormatFloat(b/(1<<20), 'f', 1, 64) + " MiB" }
	return nodeMetricRow{Node: n.Node, Samples: strconv.Itoa(n.Samples), CPUMean: fmt.Sprintf("%.1f%%", n.CPUMeanPct),
		CPUMax: fmt.Sprintf("%.1f%%", n.CPUMaxPct), RSSMax: mib(float64(n.RSSMaxBytes)), Written: mib(float64(n.WriteBytes)),
		WritesPerS: mib(n.MeanWriteBPS) + "/s", CtxPerS: format.Rate(n.MeanCtxSwitchPS)}
}

func sumRowOf(o analysis.OpResult) sumRow {
	r, s := o.Response, o.Service
	return sumRow{Op: o.Op, Overall: o.Overall, Cells: []string{
		format.Int(o.Count), format.Int(o.Errors), format.Rate(o.Throughput), format.Micros(r.Mean),
		format.MicrosInt(r.P50), format.MicrosInt(r.P90), format.MicrosInt(r.P95), format.MicrosInt(r.P99), format.MicrosInt(r.P999), format.MicrosInt(r.Max), format.MicrosInt(s.P99)}}
}

func contextRows(runs []analysis.Run) []row {
	type field struct {
		label string
		get   func(d *results.RunDetail) string
	}
	t := func(x time.Time) string {
		if x.IsZero() {
			return "—"
		}
		return x.UTC().Format("2006-01-02 15:04:05 UTC")
	}
	dur := func(x time.Duration) string {
		if x == 0 {
			return "—"
		}
		return x.String()
	}
	fields := []field{
		{"name", func(d *results.RunDetail) string { return d.Name }},
		{"status", func(d *results.RunDetail) string {
			if d.Message != "" {
				return d.DisplayStatus() + ": " + d.Message
			}
			return d.DisplayStatus()
		}},
		{"system", func(d *results.RunDetail) string { return strings.TrimSpace(d.System + " " + d.ServerVersion) }},
		{"driver", func(d *results.RunDetail) string { return d.Driver }},
		{"target", func(d *results.RunDetail) string { return d.Info.Target }},
		{"workload", func(d *results.RunDetail) string { return d.Workload }},
		{"load model", func(d *results.RunDetail) string { return format.LoadPhrase(d.Info.Load) }},
		{"warmup / duration", func(d *results.RunDetail) string {
			s := dur(d.Info.Load.Warmup) + " / " + dur(d.Info.Load.Duration)
			if n := d.Info.Load.Operations; n > 0 {
				s += fmt.Sprintf(" (%s operations)", format.Int(n))
			}
			return s
		}},
		{"seed", func(d *results.RunDetail) string { return strconv.FormatInt(d.Info.Load.Seed, 10) }},
		{"started", func(d *results.RunDetail) string { return t(d.Start) }},
		{"ended", func(d *results.RunDetail) string { return t(d.End) }},
		{"tags", func(d *results.RunDetail) string { return strings.Join(d.Tags, ", ") }},
		{"host", func(d *results.RunDetail) string {
			h := d.Info.Host
			return fmt.Sprintf("%s — %s, kernel %s", h.Hostname, h.OS, h.Kernel)
		}},
		{"cpu / memory", func(d *results.RunDetail) string {
			h := d.Info.Host
			return fmt.Sprintf("%s × %d / %.1f GiB", h.CPUModel, h.Cores, float64(h.MemoryBytes)/(1<<30))
		}},
		{"dbrig / go", func(d *results.RunDetail) string { return d.Info.DbrigVersion + " / " + d.Info.GoVersion }},
	}
	var out []row
	for _, f := range fields {
		r := row{Label: f.label}
		for _, rd := range runs {
			r.Values = append(r.Values, f.get(rd.Detail))
		}
		out = append(out, r)
	}
	return out
}

// propRows lists every property of any run; "—" where a run lacks it.
func propRows(runs []analysis.Run) []row {
	keys := map[string]bool{}
	for _, rd := range runs {
		for k := range rd.Detail.Info.Props {
			keys[k] = true
		}
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	var out []row
	for _, k := range sorted {
		r := row{Label: k}
		for _, rd := range runs {
			v, ok := rd.Detail.Info.Props[k]
			if !ok {
				v = "—"
			}
			r.Values = append(r.Values, v)
		}
		out = append(out, r)
	}
	return out
}

// deltaOf lays out the deltas of the set: every run against the first, op
// by op, with a change the per-second samples call significant and beyond
// analysis.Noise marked better or worse, and its confidence interval.
func deltaOf(set *analysis.Set) *deltaView {
	base := set.Runs[0]
	dv := &deltaView{Base: fmt.Sprintf("#%d (base)", base.Detail.ID)}
	for _, r := range set.Runs[1:] {
		dv.Heads = append(dv.Heads, fmt.Sprintf("#%d", r.Detail.ID))
	}
	if base.Summary == nil {
		return dv
	}
	metrics := []analysis.Metric{analysis.Throughput, analysis.Errors, analysis.Mean, analysis.P50,
		analysis.P99, analysis.P999, analysis.Max}
	for _, op := range set.Ops {
		bo, ok := analysis.OpOf(*base.Summary, op)
		if !ok {
			continue
		}
		for _, m := range metrics {
			dr := deltaRow{Op: op, Metric: m.String(), Base: fmtMetric(m, m.Of(bo))}
			for _, d := range set.Deltas {
				o, ok := d.Op(op)
				if !ok || !o.InB {
					dr.Cells = append(dr.Cells, deltaCell{Value: "—"})
					continue
				}
				ch := o.Change(m)
				c := deltaCell{Value: fmtMetric(m, ch.B)}
				if !math.IsNaN(ch.Rel) {
					c.Change = fmt.Sprintf("%+.1f%%", ch.Rel*100)
					c.Class = marker(ch.Verdict)
					if ch.Stat.Enough() {
						c.CI = ch.Stat.FormatCI()
					}
					c.Title = fmt.Sprintf("%s; p %s, %d vs %d seconds", ch.Stat.Say(m.HigherIsBetter()), ch.Stat.FormatP(), ch.Stat.NA, ch.Stat.NB)
				}
				dr.Cells = append(dr.Cells, c)
			}
			dv.Rows = append(dv.Rows, dr)
		}
	}
	return dv
}
