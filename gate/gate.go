// Package gate is dbrig's regression gate for CI (dbrig check): it pairs
// runs with a baseline of the same configuration (one run, the runs of a
// tag, or the last N comparable runs), tests every threshold rule on the
// runs' per-second samples (analysis.CompareSamples) and, over a history of
// runs, on a z-score as Conbench does, and says which rules a run fails.
// It writes the outcome as JSON, JUnit XML and Bencher Metric Format; the
// terminal table is package report's.
package gate

import (
	"fmt"
	"math"
	"strings"

	"github.com/dbrig/dbrig/analysis"
	"github.com/dbrig/dbrig/measure"
	"github.com/dbrig/dbrig/spec"
)

// DefaultRules are checked when neither --fail-on nor the file gives any.
var DefaultRules = []string{"throughput<-5%", "p99>+10%"}

// DefaultZ is how many standard deviations of the baseline runs' figures a
// run must stand away from their mean to regress, when there are at least
// MinHistory baseline runs (Conbench's z-score; its default is 5, with more
// runs than a CI history usually has).
const DefaultZ = 3

// MinHistory is the fewest baseline runs a z-score is computed over.
const MinHistory = 3

// Options are the rules and the confidence of a check.
type Options struct {
	Rules      []spec.CheckRule // none: DefaultRules
	Confidence float64          // 0: analysis.Confidence
	Z          float64          // 0: DefaultZ
}

// InputError is bad input found before anything is decided: a rule that
// names an operation no run has, a selector that matches no run.
type InputError struct{ Msg string }

func (e *InputError) Error() string { return e.Msg }

// Status is what a rule found for a group of runs.
type Status string

// The statuses; Regressed and Missing fail the gate.
const (
	Regressed    Status = "regressed"             // significant and beyond the threshold
	Missing      Status = "missing"               // the baseline has the operation, the new runs do not
	HistoryNoise Status = "within-history-noise"  // beyond the threshold, but the baseline runs vary as much
	WithinLimit  Status = "within-threshold"      // significant, the bad way, but not beyond the threshold
	Improved     Status = "improved"              // significant, the good way
	NoChange     Status = "no-significant-change" // the seconds' noise is larger than the change
	Inconclusive Status = "inconclusive"          // too few seconds to tell
	NoBaseline   Status = "no-baseline"           // nothing comparable to check against
)

// Fails tells whether the status fails the gate.
func (s Status) Fails() bool { return s == Regressed || s == Missing }

// Result is one rule checked on one group of runs.
type Result struct {
	Group     string  // the configuration (Key.String)
	NewRuns   []int64 // the runs checked
	BaseRuns  []int64 // their baseline
	Rule      spec.CheckRule
	Op        string          // the operation (OVERALL when the rule names none)
	Metric    analysis.Metric // the rule's metric
	Base, New float64         // the mean of each side's runs' phase figures (NaN: none)
	Stat      analysis.Significance
	Z         float64 // of New over the baseline runs' figures; NaN below MinHistory runs
	Status    Status
	Reason    string // the status in a sentence
}

// Report is the outcome of a check.
type Report struct {
	Confidence float64
	Z          float64
	Results    []Result
	Notes      []string // e.g. a baseline of another configuration
}

// Failed counts the results that fail the gate.
func (r Report) Failed() int {
	n := 0
	for _, res := range r.Results {
		if res.Status.Fails() {
			n++
		}
	}
	return n
}

// Rules parses texts (--fail-on values); a bad one is an *InputError that
// lists the valid metrics.
func Rules(texts []string) ([]spec.CheckRule, error) {
	var out []spec.CheckRule
	for _, t := range texts {
		r, err := spec.ParseCheckRule(t)
		if err != nil {
			return nil, &InputError{Msg: "--fail-on " + err.Error()}
		}
		out = append(out, r)
	}
	return out, nil
}

// MetricOf maps a rule's metric name to analysis's metric.
func MetricOf(name string) (analysis.Metric, bool) {
	for _, m := range []analysis.Metric{analysis.Throughput, analysis.Errors, analysis.Mean, analysis.P50,
		analysis.P95, analysis.P99, analysis.Max} {
		if ruleName(m) == name {
			return m, true
		}
	}
	return 0, false
}

// ruleName is the metric's name in rules: throughput, errors, mean, p50 …
func ruleName(m analysis.Metric) string {
	if m == analysis.Throughput {
		return "throughput"
	}
	return m.String()
}

// Decide checks every rule on every group. A rule naming an operation that
// no run of any group has is an *InputError listing the operations.
func Decide(groups []Group, o Options) (Report, error) {
	if o.Confidence == 0 {
		o.Confidence = analysis.Confidence
	}
	if o.Z == 0 {
		o.Z = DefaultZ
	}
	rules := o.Rules
	if len(rules) == 0 {
		var err error
		if rules, err = Rules(DefaultRules); err != nil {
			return Report{}, err
		}
	}
	if err := checkOps(groups, rules); err != nil {
		return Report{}, err
	}
	rep := Report{Confidence: o.Confidence, Z: o.Z}
	for _, g := range groups {
		if g.Note != "" {
			rep.Notes = append(rep.Notes, g.Note)
		}
		for _, r := range rules {
			rep.Results = append(rep.Results, decide(g, r, o))
		}
	}
	return rep, nil
}

// checkOps refuses a rule whose operation is in no run at all.
func checkOps(groups []Group, rules []spec.CheckRule) error {
	ops := map[string]bool{measure.OverallOp: true}
	var names []string
	for _, g := range groups {
		for _, r := range append(append([]analysis.Run(nil), g.New...), g.Baseline...) {
			if r.Summary == nil {
				continue
			}
			for _, o := range r.Summary.Ops {
				if !ops[o.Op] {
					ops[o.Op] = true
					names = append(names, o.Op)
				}
			}
		}
	}
	for _, r := range rules {
		if r.Op != "" && !ops[r.Op] {
			return &InputError{Msg: fmt.Sprintf("%q: no run has an operation %q: expected one of %s (or no operation for the whole run)",
				r.Text, r.Op, strings.Join(append([]string{measure.OverallOp}, names...), ", "))}
		}
	}
	return nil
}

// decide checks one rule on one group.
func decide(g Group, r spec.CheckRule, o Options) Result {
	m, _ := MetricOf(r.Metric) // spec.ParseCheckRule knows only these names
	res := Result{Group: g.Key.String(), NewRuns: ids(g.New), BaseRuns: ids(g.Baseline), Rule: r, Op: r.Op, Metric: m, Z: math.NaN()}
	if res.Op == "" {
		res.Op = measure.OverallOp
	}
	baseVals, baseSamples := side(g.Baseline, res.Op, m)
	newVals, newSamples := side(g.New, res.Op, m)
	res.Base, res.New = mean(baseVals), mean(newVals)
	res.Stat = analysis.CompareSamples(baseSamples, newSamples, o.Confidence)
	if len(baseVals) >= MinHistory && len(newVals) > 0 {
		res.Z = zScore(baseVals, res.New)
	}
	bad := func(x float64) bool { return r.Less && x < 0 || !r.Less && x > 0 }
	crossed := func(x float64) bool { return r.Less && x < r.Pct || !r.Less && x > r.Pct }
	st := res.Stat
	switch {
	case len(g.Baseline) == 0:
		res.Status, res.Reason = NoBaseline, "no comparable baseline run"
	case len(baseVals) == 0:
		res.Status, res.Reason = NoBaseline, fmt.Sprintf("the baseline has no %s", res.Op)
	case len(newVals) == 0:
		res.Status, res.Reason = Missing, fmt.Sprintf("the baseline has %s, the new runs do not", res.Op)
	case !st.Enough():
		res.Status, res.Reason = Inconclusive, st.Say(m.HigherIsBetter())
	case math.IsNaN(st.Rel):
		res.Status, res.Reason = Inconclusive, "the baseline's median is 0: no relative change"
	case !st.Significant():
		res.Status, res.Reason = NoChange, fmt.Sprintf("no significant change at %s confidence (p %s)", pct(o.Confidence), st.FormatP())
	case crossed(st.Rel) && !math.IsNaN(res.Z) && !(r.Less && res.Z <= -o.Z || !r.Less && res.Z >= o.Z):
		res.Status, res.Reason = HistoryNoise, fmt.Sprintf("beyond %+g%%, but within %g standard deviations of the baseline runs (z %+.1f)", thresholdPct(r), o.Z, res.Z)
	case crossed(st.Rel):
		res.Status, res.Reason = Regressed, fmt.Sprintf("%+.1f%% %s, beyond %+g%%, significant at %s confidence (p %s)", st.Rel*100, st.FormatCI(), thresholdPct(r), pct(o.Confidence), st.FormatP())
	case bad(st.Rel):
		res.Status, res.Reason = WithinLimit, fmt.Sprintf("%+.1f%%: significant, within %+g%%", st.Rel*100, thresholdPct(r))
	default:
		res.Status, res.Reason = Improved, fmt.Sprintf("%+.1f%%: significant, the better way", st.Rel*100)
	}
	return res
}

// side is the runs' phase figures of the metric (one per run that has the
// operation) and their pooled per-second samples.
func side(runs []analysis.Run, op string, m analysis.Metric) (vals, samples []float64) {
	for _, r := range runs {
		if r.Summary == nil {
			continue
		}
		o, ok := analysis.OpOf(*r.Summary, op)
		if !ok {
			continue
		}
		vals = append(vals, m.Of(o))
		samples = append(samples, analysis.Samples(r.Intervals, op, m)...)
	}
	return vals, samples
}

// zScore is how many sample standard deviations v is from the mean of vals;
// ±Inf when they do not vary and v differs, 0 when it does not.
func zScore(vals []float64, v float64) float64 {
	mu := mean(vals)
	var ss float64
	for _, x := range vals {
		ss += (x - mu) * (x - mu)
	}
	sd := math.Sqrt(ss / float64(len(vals)-1))
	switch {
	case sd > 0:
		return (v - mu) / sd
	case v == mu:
		return 0
	}
	return math.Inf(int(math.Copysign(1, v-mu)))
}

func mean(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	var s float64
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

func ids(runs []analysis.Run) []int64 {
	out := make([]int64, 0, len(runs))
	for _, r := range runs {
		out = append(out, r.Detail.ID)
	}
	return out
}

func pct(f float64) string { return fmt.Sprintf("%g%%", math.Round(f*1000)/10) }

// thresholdPct is the rule's threshold in percent as written (-5, not
// -5.000000000000001 from the fraction it is kept as).
func thresholdPct(r spec.CheckRule) float64 { return math.Round(r.Pct*1e8) / 1e6 }
