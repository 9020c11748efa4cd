package web

import (
	"bytes"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dbrig/dbrig/analysis"
	"github.com/dbrig/dbrig/format"
	"github.com/dbrig/dbrig/report"
	"github.com/dbrig/dbrig/results"
)

// pageSize is how many runs the list shows at once.
const pageSize = 100

// statuses are the stored statuses a filter may ask for.
var statuses = []string{results.StatusRunning, results.StatusDone, results.StatusFailed, results.StatusInterrupted, results.StatusStopped, results.StatusAbandoned}

type column struct {
	Label, Href, Arrow string
	Num                bool
}

type runView struct {
	results.RunRow
	Started, Status, Tags, P99, HistoryHref string
}

type runsData struct {
	System, Workload, Tag, Status, Since, Until string
	Values                                      results.FilterValues
	Statuses                                    []string
	Columns                                     []column
	Runs                                        []runView
	Total, From, To                             int
	Prev, Next                                  string
	Ratings                                     bool // the experiments of ratings are listed too
}

// runs is the runs list: filters, sorting by any column, pages of pageSize,
// and checkboxes that open the compare page.
func (s *Server) runs(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	d := runsData{System: q.Get("system"), Workload: q.Get("workload"), Tag: q.Get("tag"), Status: q.Get("status"),
		Since: q.Get("since"), Until: q.Get("until"), Statuses: statuses}
	// A rating's experiments fill a list; they are shown when asked for
	// (ratings=1) or by tag (tag=rating:3), as dbrig runs list does.
	d.Ratings = q.Get("ratings") == "1"
	rq := results.RunQuery{Filter: results.Filter{System: d.System, Workload: d.Workload, Tag: d.Tag, Status: d.Status, Limit: pageSize,
		NoRatingSteps: !d.Ratings && d.Tag == ""}}
	if d.Status != "" && !slices.Contains(statuses, d.Status) {
		s.fail(w, r, http.StatusBadRequest, fmt.Errorf("status %q: expected one of %s", d.Status, strings.Join(statuses, ", ")))
		return
	}
	var err error
	if rq.Since, err = parseDate("since", d.Since); err != nil {
		s.fail(w, r, http.StatusBadRequest, err)
		return
	}
	if rq.Until, err = parseDate("until", d.Until); err != nil {
		s.fail(w, r, http.StatusBadRequest, err)
		return
	}
	if !rq.Until.IsZero() {
		rq.Until = rq.Until.AddDate(0, 0, 1) // "until" is inclusive of its day
	}
	rq.Sort = q.Get("sort")
	if rq.Sort != "" && !slices.Contains(results.RunSortKeys(), rq.Sort) {
		s.fail(w, r, http.StatusBadRequest, fmt.Errorf("sort %q: expected one of %s", rq.Sort, strings.Join(results.RunSortKeys(), ", ")))
		return
	}
	switch q.Get("order") {
	case "", "desc":
	case "asc":
		rq.Asc = true
	default:
		s.fail(w, r, http.StatusBadRequest, fmt.Errorf("order %q: expected asc or desc", q.Get("order")))
		return
	}
	pageNo := 1
	if p := q.Get("page"); p != "" {
		if pageNo, err = strconv.Atoi(p); err != nil || pageNo < 1 {
			s.fail(w, r, http.StatusBadRequest, fmt.Errorf("page %q: expected a whole number from 1", p))
			return
		}
	}
	rq.Offset = (pageNo - 1) * pageSize

	rows, total, err := s.store.QueryRuns(r.Context(), rq)
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	if d.Values, err = s.store.Values(r.Context()); err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	d.Total = total
	if len(rows) > 0 {
		d.From, d.To = rq.Offset+1, rq.Offset+len(rows)
	}
	with := func(changes ...string) string {
		v := url.Values{}
		for k, vals := range q {
			v[k] = vals
		}
		for i := 0; i+1 < len(changes); i += 2 {
			if changes[i+1] == "" {
				v.Del(changes[i])
			} else {
				v.Set(changes[i], changes[i+1])
			}
		}
		if len(v) == 0 {
			return "/"
		}
		return "/?" + v.Encode()
	}
	if pageNo > 1 {
		d.Prev = with("page", strconv.Itoa(pageNo-1))
	}
	if d.To < total {
		d.Next = with("page", strconv.Itoa(pageNo+1))
	}
	cur := rq.Sort
	if cur == "" {
		cur = "started"
	}
	for _, c := range []struct {
		label, key string
		num        bool
	}{{"id", "id", true}, {"started", "started", false}, {"name", "name", false}, {"status", "status", false},
		{"system", "system", false}, {"version", "version", false}, {"workload", "workload", false},
		{"clients", "clients", true}, {"ops/s", "throughput", true}, {"p99", "p99", true}, {"errors", "errors", true}} {
		col := column{Label: c.label, Num: c.num, Href: with("sort", c.key, "order", "", "page", "")}
		if c.key == cur {
			if rq.Asc {
				col.Arrow = "▲"
			} else {
				col.Arrow = "▼"
				col.Href = with("sort", c.key, "order", "asc", "page", "")
			}
		}
		d.Columns = append(d.Columns, col)
	}
	for _, row := range rows {
		d.Runs = append(d.Runs, runView{RunRow: row, Started: row.Start.UTC().Format("2006-01-02 15:04:05"),
			Status: row.DisplayStatus(), Tags: strings.Join(row.Tags, ", "), P99: format.MicrosInt(row.P99US),
			HistoryHref: historyHref(row.System, row.Workload, analysis.LoadKey(row))})
	}
	s.render(w, r, "runs", page{Title: "dbrig runs", Nav: "runs", Data: d})
}

// historyHref links the history of a workload on a system under a load
// model (analysis.LoadKey; "": the newest run's).
func historyHref(system, workload, load string) string {
	v := url.Values{"system": {system}, "workload": {workload}}
	if load != "" {
		v.Set("load", load)
	}
	return "/history?" + v.Encode()
}

// parseDate reads a filter date, YYYY-MM-DD in UTC; "" is no bound.
func parseDate(name, v string) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse("2006-01-02", v)
	if err != nil {
		return time.Time{}, fmt.Errorf("%s %q: expected a date like 2025-03-01", name, v)
	}
	return t, nil
}

// parseID reads a run id from a URL.
func parseID(v string) (int64, error) {
	id, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || id <= 0 {
		return 0, fmt.Errorf("run id %q: expected a positive whole number", v)
	}
	return id, nil
}

type reportData struct {
	Body    template.HTML
	IDs     []int64
	History string // link to the history of the (first) run's workload
}

// run shows one run: the report's content, interactive.
func (s *Server) run(w http.ResponseWriter, r *http.Request) {
	id, err := parseID(r.PathValue("id"))
	if err != nil {
		s.fail(w, r, http.StatusBadRequest, err)
		return
	}
	s.report(w, r, []int64{id}, fmt.Sprintf("run %d", id), "runs")
}

func (s *Server) report(w http.ResponseWriter, r *http.Request, ids []int64, title, nav string) {
	rep, err := analysis.Read(r.Context(), s.store, ids)
	if err != nil {
		s.fail(w, r, errStatus(err), err)
		return
	}
	var b bytes.Buffer
	if err := report.RenderBody(&b, rep); err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	d := rep.Runs[0].Detail
	s.render(w, r, "report", page{Title: title, Nav: nav, Data: reportData{
		Body: template.HTML(b.String()), IDs: ids, History: historyHref(d.System, d.Workload, analysis.LoadKey(d.RunRow))}})
}

type pickData struct {
	Message string
	Runs    []pickRow
}

type pickRow struct {
	runView
	Checked bool
}

// compare overlays the runs given as id=1&id=2 (or ids=1,2), the lowest id
// as the base; with fewer than two it offers the latest runs to pick from.
func (s *Server) compare(w http.ResponseWriter, r *http.Request) {
	raw := slices.Clone(r.URL.Query()["id"])
	if v := r.URL.Query().Get("ids"); v != "" {
		raw = append(raw, strings.Split(v, ",")...)
	}
	var ids []int64
	for _, v := range raw {
		id, err := parseID(v)
		if err != nil {
			s.fail(w, r, http.StatusBadRequest, err)
			return
		}
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	// The oldest run is the base of the comparison, whatever the order given.
	slices.Sort(ids)
	if len(ids) >= 2 {
		names := make([]string, len(ids))
		for i, id := range ids {
			names[i] = strconv.FormatInt(id, 10)
		}
		s.report(w, r, ids, "compare runs "+strings.Join(names, ", "), "compare")
		return
	}
	rows, _, err := s.store.QueryRuns(r.Context(), results.RunQuery{Filter: results.Filter{Limit: 200}})
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	d := pickData{Message: "Pick two or more runs to compare."}
	if len(ids) == 1 {
		d.Message = fmt.Sprintf("Run %d is picked; pick at least one more to compare it with.", ids[0])
	}
	for _, row := range rows {
		d.Runs = append(d.Runs, pickRow{runView: runView{RunRow: row, Started: row.Start.UTC().Format("2006-01-02 15:04:05"),
			Status: row.DisplayStatus(), P99: format.MicrosInt(row.P99US)}, Checked: slices.Contains(ids, row.ID)})
	}
	s.render(w, r, "pick", page{Title: "compare runs", Nav: "compare", Data: d})
}

// historyMaxRuns bounds the runs a history page reads.
const historyMaxRuns = 500

type historyRow struct {
	runView
	Faults     bool
	Regression string // why this run stands out, "" if it does not
}

// historyLoad is a load model the history has runs of: a link to its page.
type historyLoad struct {
	Load, Href string
	Runs       int
	Current    bool
}

type historyData struct {
	System, Workload, Load string
	Loads                  []historyLoad // every load model with runs, the shown one Current
	Rows                   []historyRow  // newest first
	Charts                 []analysis.Chart
	Regressions            int
}

// history shows the finished runs of one workload on one system under one
// load model over time (load=…, default: the newest run's), with the runs
// that regressed against their predecessors marked; the other load models
// are links. Runs with faults are shown, never judged.
func (s *Server) history(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	d := historyData{System: q.Get("system"), Workload: q.Get("workload"), Load: q.Get("load")}
	if d.System == "" || d.Workload == "" {
		s.fail(w, r, http.StatusBadRequest, fmt.Errorf("history needs a system and a workload, e.g. /history?system=redis&workload=ycsb/workloada"))
		return
	}
	rows, _, err := s.store.QueryRuns(r.Context(), results.RunQuery{
		Filter: results.Filter{System: d.System, Workload: d.Workload, Status: results.StatusDone, Limit: historyMaxRuns}})
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	faults, err := s.store.FaultRuns(r.Context(), d.System, d.Workload)
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	slices.Reverse(rows) // oldest first
	entries := make([]analysis.HistoryEntry, len(rows))
	for i, row := range rows {
		entries[i] = analysis.HistoryEntry{RunRow: row, Faults: faults[row.ID]}
	}
	hs := analysis.Histories(entries)
	var h analysis.History
	for i, g := range hs {
		if d.Load == "" && i == 0 || g.Load == d.Load {
			h = g
		}
	}
	if d.Load != "" && h.Load == "" && len(hs) > 0 {
		var loads []string
		for _, g := range hs {
			loads = append(loads, g.Load)
		}
		s.fail(w, r, http.StatusNotFound, fmt.Errorf("no finished runs of %s on %s under the load %q (its runs are under: %s)", d.Workload, d.System, d.Load, strings.Join(loads, "; ")))
		return
	}
	d.Load = h.Load
	for _, g := range hs {
		d.Loads = append(d.Loads, historyLoad{Load: g.Load, Runs: len(g.Runs), Current: g.Load == h.Load,
			Href: historyHref(d.System, d.Workload, g.Load)})
	}
	d.Charts, d.Regressions = h.Charts, h.Regressions
	for _, hr := range slices.Backward(h.Runs) {
		row := hr.RunRow
		d.Rows = append(d.Rows, historyRow{runView: runView{RunRow: row, Started: row.Start.UTC().Format("2006-01-02 15:04:05"),
			Status: row.DisplayStatus(), Tags: strings.Join(row.Tags, ", "), P99: format.MicrosInt(row.P99US)},
			Faults: hr.Faults, Regression: regressionText(hr.Regression)})
	}
	title := "history of " + d.Workload + " on " + d.System
	if d.Load != "" {
		title += ", " + d.Load
	}
	s.render(w, r, "history", page{Title: title, Nav: "history", Data: d})
}

// regressionText says how a run is worse than the median of the runs before it.
func regressionText(reg *analysis.Regression) string {
	if reg == nil {
		return ""
	}
	var why []string
	if reg.ThroughputDrop {
		why = append(why, fmt.Sprintf("throughput %.0f%% of the median of the %d runs before", 100*reg.Throughput, reg.Window))
	}
	if reg.P99Rise {
		why = append(why, fmt.Sprintf("p99 %.0f%% of the median of the %d runs before", 100*reg.P99, reg.Window))
	}
	return strings.Join(why, "; ")
}
