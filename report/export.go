package report

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dbrig/dbrig/analysis"
	"github.com/dbrig/dbrig/results"
)

// What `dbrig runs export` can write, and in which formats.
var (
	ExportFormats = []string{"csv", "json"}
	ExportWhats   = []string{"summaries", "intervals", "impacts", "steps"}
)

// ExportInput is what an export reads: runs (analysed) for summaries,
// intervals and impacts, ratings for steps.
type ExportInput struct {
	Runs    []analysis.Run
	Ratings []results.Rating
}

// ReadExport reads from store what Export writes for what: the ratings
// ids names for steps, else the runs (analysis.ReadRuns).
func ReadExport(ctx context.Context, store *results.Store, what string, ids []int64) (ExportInput, error) {
	var in ExportInput
	if what != "steps" {
		runs, err := analysis.ReadRuns(ctx, store, ids)
		in.Runs = runs
		return in, err
	}
	for _, id := range ids {
		r, err := store.GetRating(ctx, id)
		if err != nil {
			return in, err
		}
		in.Ratings = append(in.Ratings, r)
	}
	return in, nil
}

// CheckExport refuses a format or a what that Export does not know, naming
// the ones it does.
func CheckExport(format, what string) error {
	if !slices.Contains(ExportFormats, format) {
		return fmt.Errorf("--format %q: expected one of %s", format, strings.Join(ExportFormats, ", "))
	}
	if !slices.Contains(ExportWhats, what) {
		return fmt.Errorf("--what %q: expected one of %s", what, strings.Join(ExportWhats, ", "))
	}
	return nil
}

// exportTable is the rows of an export: CSV writes them under a header,
// JSON as one object per row with the same keys and values.
type exportTable struct {
	cols []string
	rows [][]any
}

func (t *exportTable) add(cells ...any) { t.rows = append(t.rows, cells) }

// Export writes what (one of ExportWhats) of in as format (one of
// ExportFormats). Every figure is analysis.ResultOf's (or the stored
// rating step's): nothing is computed here.
func Export(w io.Writer, in ExportInput, format, what string) error {
	if err := CheckExport(format, what); err != nil {
		return err
	}
	var t *exportTable
	switch what {
	case "summaries":
		t = exportSummaries(in.Runs)
	case "intervals":
		t = exportIntervals(in.Runs)
	case "impacts":
		t = exportImpacts(in.Runs)
	default:
		t = exportSteps(in.Ratings)
	}
	if format == "json" {
		return t.writeJSON(w, what)
	}
	return t.writeCSV(w)
}

// summaryCols are the columns of an export of summaries.
var summaryCols = []string{"run_id", "phase", "op", "duration_s", "count", "errors", "error_rate", "throughput",
	"mean_us", "p50_us", "p90_us", "p95_us", "p99_us", "p999_us", "max_us",
	"svc_mean_us", "svc_p50_us", "svc_p99_us", "dropped", "dispatch_lag_p99_us", "records", "records_per_s"}

// exportSummaries: every phase's operations and OVERALL, load phase first.
func exportSummaries(runs []analysis.Run) *exportTable {
	t := &exportTable{cols: summaryCols}
	for _, r := range runs {
		res := analysis.ResultOf(r)
		for _, p := range res.AllPhases {
			for _, o := range p.Ops {
				t.add(res.RunID, p.Phase, o.Op, p.DurationS, o.Count, o.Errors, o.ErrorRate, o.Throughput,
					o.Response.Mean, o.Response.P50, o.Response.P90, o.Response.P95, o.Response.P99, o.Response.P999, o.Response.Max,
					o.Service.Mean, o.Service.P50, o.Service.P99, p.Dropped, p.Lag.P99, p.Records, p.RecordsPerSec)
			}
		}
	}
	return t
}

var intervalCols = []string{"run_id", "phase", "t_s", "start", "length_s", "op", "count", "errors", "throughput", "errors_per_s",
	"mean_us", "p50_us", "p95_us", "p99_us", "max_us", "svc_p99_us", "dropped", "backlog", "target_rate", "dispatch_lag_p99_us"}

// exportIntervals: every stored second of every operation and OVERALL.
func exportIntervals(runs []analysis.Run) *exportTable {
	t := &exportTable{cols: intervalCols}
	for _, r := range runs {
		for _, iv := range analysis.IntervalsOf(r) {
			t.add(r.Detail.ID, iv.Phase, iv.T.Seconds(), iv.Start.UTC().Format(time.RFC3339Nano), iv.Length.Seconds(), iv.Op,
				iv.Count, iv.Errors, iv.Throughput, iv.ErrorsPerSec, iv.MeanUS, iv.P50US, iv.P95US, iv.P99US, iv.MaxUS, iv.SvcP99US,
				iv.Dropped, iv.Backlog, iv.TargetRate, iv.DispatchLagP99)
		}
	}
	return t
}

var impactCols = []string{"run_id", "fault", "target", "not_fired", "start_ms", "end_ms",
	"baseline_p50_us", "baseline_p95_us", "baseline_p99_us", "fault_p50_us", "fault_p95_us", "fault_p99_us",
	"after_p50_us", "after_p95_us", "after_p99_us", "baseline_throughput", "fault_throughput", "after_throughput",
	"throughput_change_pct", "errors", "unavailable_ms", "recovery_ms", "recovery_cut", "outcome"}

// exportImpacts: every fault of every run, as --json has them.
func exportImpacts(runs []analysis.Run) *exportTable {
	t := &exportTable{cols: impactCols}
	for _, r := range runs {
		res := analysis.ResultOf(r)
		for _, im := range res.Impacts {
			j := impactJSONOf(res.RunID, im)
			var rec any
			if j.RecoveryMS != nil {
				rec = *j.RecoveryMS
			}
			t.add(j.RunID, j.Fault, j.Target, j.NotFired, j.StartMS, j.EndMS,
				j.BaselineP50US, j.BaselineP95US, j.BaselineP99US, j.FaultP50US, j.FaultP95US, j.FaultP99US,
				j.AfterP50US, j.AfterP95US, j.AfterP99US, im.Baseline.Throughput, im.During.Throughput, im.After.Throughput,
				j.ThroughputChangePct, j.Errors, j.UnavailableMS, rec, j.RecoveryCut, im.Outcome)
		}
	}
	return t
}

var stepCols = []string{"rating_id", "step", "kind", "target", "achieved", "pass", "verdict", "inconclusive_why", "stopped_early", "reason", "run_id",
	"reset", "reset_s", "seconds", "terms", "drift", "drift_figure"}

// exportSteps: every step of every rating as stored, its SLA terms as
// "term measured/limit unit pass|fail" joined by "; ".
func exportSteps(ratings []results.Rating) *exportTable {
	t := &exportTable{cols: stepCols}
	for _, r := range ratings {
		for i, st := range r.Steps {
			var terms []string
			for _, tm := range st.Terms {
				verdict := "fail"
				if tm.Pass {
					verdict = "pass"
				}
				terms = append(terms, strings.TrimSpace(fmt.Sprintf("%s %s/%s %s", tm.Term, num(tm.Measured), num(tm.Limit), tm.Unit))+" "+verdict)
			}
			var run any
			if st.RunID != 0 {
				run = st.RunID
			}
			var drift any
			if st.Drift != nil {
				drift = *st.Drift
			}
			t.add(r.ID, i+1, st.Kind, st.Target, st.Achieved, st.Pass, st.Verdict, st.InconclusiveWhy, st.StoppedEarly, st.Reason, run,
				st.Reset, st.ResetS, st.Seconds, strings.Join(terms, "; "), drift, st.DriftFigure)
		}
	}
	return t
}

// cell is one value in CSV: numbers in full precision, nil empty.
func cell(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case uint64:
		return strconv.FormatUint(x, 10)
	case float64:
		return num(x)
	}
	return fmt.Sprint(v)
}

func num(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return ""
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

func (t *exportTable) writeCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(t.cols); err != nil {
		return err
	}
	rec := make([]string, len(t.cols))
	for _, r := range t.rows {
		for i, v := range r {
			rec[i] = cell(v)
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// exportJSON is `runs export --format json`.
type exportJSON struct {
	SchemaVersion int              `json:"schema_version"`
	What          string           `json:"what"`
	Columns       []string         `json:"columns"`
	Rows          []map[string]any `json:"rows"`
}

func (t *exportTable) writeJSON(w io.Writer, what string) error {
	doc := exportJSON{SchemaVersion: SchemaVersion, What: what, Columns: t.cols, Rows: make([]map[string]any, 0, len(t.rows))}
	for _, r := range t.rows {
		obj := make(map[string]any, len(r))
		for i, v := range r {
			if f, ok := v.(float64); ok && (math.IsNaN(f) || math.IsInf(f, 0)) {
				v = nil
			}
			obj[t.cols[i]] = v
		}
		doc.Rows = append(doc.Rows, obj)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}
