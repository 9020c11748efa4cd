package report

import (
	"io"
	"strconv"

	"github.com/dbrig/dbrig/analysis"
	"github.com/dbrig/dbrig/format"
	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/results"
)

// Headline writes a run's headline metrics (a workload's, such as TPC-C's
// tpmC), one per line, before the latency table is read: nothing when the
// workload has none.
func Headline(w io.Writer, ms []results.RunMetric) error {
	ew := &errWriter{w: w}
	width := 0
	for _, m := range ms {
		width = max(width, len(m.Name))
	}
	for _, m := range ms {
		ew.printf("%-*s  %s\n", width, m.Name, MetricValue(m))
	}
	return ew.err
}

// MetricValue renders a metric's value with its unit: rates and counts with
// digit groups, a consistency result as passed or FAILED.
func MetricValue(m results.RunMetric) string {
	switch {
	case m.Name == "consistency_ok" && m.Value == 1:
		return "passed"
	case m.Name == "consistency_ok":
		return "FAILED"
	case m.Unit == "txn/min":
		return format.Int(int64(m.Value+0.5)) + " " + m.Unit
	case m.Value == float64(int64(m.Value)):
		return format.Int(int64(m.Value)) + unit(m.Unit)
	}
	return strconv.FormatFloat(m.Value, 'f', 2, 64) + unit(m.Unit)
}

func unit(u string) string {
	if u == "" {
		return ""
	}
	return " " + u
}

// JSONRun writes the result as JSON does, plus each headline metric as a
// top-level number under its name ("tpmc", "tpm_total", ...).
func JSONRun(w io.Writer, runID int64, status string, sums []measure.Summary, ms []results.RunMetric) error {
	return JSONRunWorkers(w, runID, status, sums, ms, nil)
}

// JSONRunWorkers is JSONRun with, for a distributed run (ws not nil),
// "workers": each worker's figures and the sentences that flag the ones
// that fell behind, as `dbrig runs show ID --json` prints them.
func JSONRunWorkers(w io.Writer, runID int64, status string, sums []measure.Summary, ms []results.RunMetric, ws *analysis.Workers) error {
	res := analysis.ResultOf(MemoryRun(runID, status, sums, ms))
	res.Workers = ws
	return WriteResultJSON(w, res)
}

// LoadLine writes the load phase of a run that also measured (the
// measure table leaves it out): records inserted and the rate, and the
// batches' latency with the mean it comes to per record (writeLoadPhase).
func LoadLine(w io.Writer, sums []measure.Summary) error {
	ew := &errWriter{w: w}
	if _, ok := measure.Measured(sums); !ok {
		return nil // a load-only run: its own summary shows the load
	}
	for _, s := range sums {
		if s.Phase != measure.PhaseLoad || s.Records == 0 || !s.End.After(s.Start) {
			continue
		}
		writeLoadPhase(ew, analysis.LoadPhaseOf(s))
	}
	return ew.err
}

// headlineRow is one headline metric in the HTML report.
type headlineRow struct {
	Name, Value, Doc string
}
