package gate

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/dbrig/dbrig/analysis"
	"github.com/dbrig/dbrig/measure"
)

// jsonReport is the --json document (docs/reference/check.md).
type jsonReport struct {
	Passed     bool         `json:"passed"`
	Failed     int          `json:"failed"`
	Confidence float64      `json:"confidence"`
	Z          float64      `json:"z_threshold"`
	Notes      []string     `json:"notes,omitempty"`
	Results    []jsonResult `json:"results"`
}

type jsonResult struct {
	Group     string   `json:"group"`
	NewRuns   []int64  `json:"new_runs"`
	BaseRuns  []int64  `json:"baseline_runs"`
	Rule      string   `json:"rule"`
	Op        string   `json:"op"`
	Metric    string   `json:"metric"`
	Unit      string   `json:"unit"`
	Threshold float64  `json:"threshold_pct"`
	Base      *float64 `json:"baseline"`
	New       *float64 `json:"new"`
	Change    *float64 `json:"change_pct"` // of the per-second medians
	Low       *float64 `json:"ci_low_pct"`
	High      *float64 `json:"ci_high_pct"`
	P         *float64 `json:"p_value"`
	Z         *float64 `json:"z"`
	NBase     int      `json:"seconds_baseline"`
	NNew      int      `json:"seconds_new"`
	Status    Status   `json:"status"`
	Fail      bool     `json:"fail"`
	Reason    string   `json:"reason"`
}

// num is a JSON number, null for NaN and ±Inf.
func num(f float64) *float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	return &f
}

// Unit is the unit of a metric's values: ops/s, errors/s or µs.
func Unit(m analysis.Metric) string {
	switch {
	case m == analysis.Throughput:
		return "ops/s"
	case m == analysis.Errors:
		return "errors/s"
	}
	return "µs"
}

// WriteJSON writes the report as one JSON document.
func WriteJSON(w io.Writer, rep Report) error {
	out := jsonReport{Passed: rep.Failed() == 0, Failed: rep.Failed(), Confidence: rep.Confidence, Z: rep.Z,
		Notes: rep.Notes, Results: []jsonResult{}}
	for _, r := range rep.Results {
		s := r.Stat
		out.Results = append(out.Results, jsonResult{Group: r.Group, NewRuns: r.NewRuns, BaseRuns: r.BaseRuns,
			Rule: r.Rule.Text, Op: r.Op, Metric: r.Rule.Metric, Unit: Unit(r.Metric), Threshold: thresholdPct(r.Rule),
			Base: num(r.Base), New: num(r.New), Change: num(s.Rel * 100), Low: num(s.Lo * 100), High: num(s.Hi * 100),
			P: num(s.P), Z: num(r.Z), NBase: s.NA, NNew: s.NB, Status: r.Status, Fail: r.Status.Fails(), Reason: r.Reason})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // rules hold < and >
	return enc.Encode(out)
}

// JUnitMark is in every JUnit file dbrig check writes: package outfile
// recognises the file as dbrig's own and replaces it without --force.
const JUnitMark = `<testsuites name="dbrig check"`

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	ClassName string        `xml:"classname,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	Skipped   *junitFailure `xml:"skipped,omitempty"`
	Output    string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes the report as JUnit XML: a test suite per
// configuration, a test case per rule; a failing rule is a failure, one
// without a baseline or enough seconds is skipped.
func WriteJUnit(w io.Writer, rep Report) error {
	doc := junitSuites{Name: "dbrig check"}
	for _, r := range rep.Results {
		i := slices.IndexFunc(doc.Suites, func(s junitSuite) bool { return s.Name == r.Group })
		if i < 0 {
			doc.Suites = append(doc.Suites, junitSuite{Name: r.Group})
			i = len(doc.Suites) - 1
		}
		s := &doc.Suites[i]
		c := junitCase{Name: r.Rule.Text, ClassName: r.Group,
			Output: fmt.Sprintf("runs %v against %v: %s (%s)", r.NewRuns, r.BaseRuns, r.Status, r.Reason)}
		switch {
		case r.Status.Fails():
			c.Failure = &junitFailure{Message: r.Reason, Type: string(r.Status), Text: c.Output}
			s.Failures++
			doc.Failures++
		case r.Status == NoBaseline || r.Status == Inconclusive:
			c.Skipped = &junitFailure{Message: r.Reason}
			s.Skipped++
		}
		s.Tests++
		doc.Tests++
		s.Cases = append(s.Cases, c)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// bmfMetric is one measure of Bencher Metric Format.
type bmfMetric struct {
	Value float64  `json:"value"`
	Low   *float64 `json:"lower_value,omitempty"`
	High  *float64 `json:"upper_value,omitempty"`
}

// WriteBMF writes the new runs' figures in Bencher Metric Format: a
// benchmark per configuration and operation ("GROUP OP"), with the
// measures throughput (ops/s; bounds: the slowest and fastest second) and
// latency, latency-p50, latency-p95, latency-p99 (nanoseconds, Bencher's
// unit; latency is the mean). Repeats give the mean of their figures.
func WriteBMF(w io.Writer, groups []Group) error {
	out := map[string]map[string]bmfMetric{}
	for _, g := range groups {
		for _, op := range opsOf(g.New) {
			ms := map[string]bmfMetric{}
			vals, samples := side(g.New, op, analysis.Throughput)
			if len(vals) == 0 {
				continue
			}
			tp := bmfMetric{Value: mean(vals)}
			if len(samples) > 0 {
				tp.Low, tp.High = num(slices.Min(samples)), num(slices.Max(samples))
			}
			ms["throughput"] = tp
			for name, m := range map[string]analysis.Metric{"latency": analysis.Mean, "latency-p50": analysis.P50,
				"latency-p95": analysis.P95, "latency-p99": analysis.P99} {
				v, _ := side(g.New, op, m)
				ms[name] = bmfMetric{Value: mean(v) * 1000}
			}
			out[g.Key.String()+" "+op] = ms
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // rules hold < and >
	return enc.Encode(out)
}

// opsOf is OVERALL and the operations of the runs' summaries.
func opsOf(runs []analysis.Run) []string {
	ops := []string{measure.OverallOp}
	for _, r := range runs {
		if r.Summary == nil {
			continue
		}
		for _, o := range r.Summary.Ops {
			if !slices.Contains(ops, o.Op) {
				ops = append(ops, o.Op)
			}
		}
	}
	return ops
}
