package sla

import (
	"fmt"
	"math"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbrig/dbrig/measure"
)

// TermResult is one term evaluated: what was measured, the limit, whether
// it held. Latencies are in milliseconds, percentages as fractions.
type TermResult struct {
	Term     string  `json:"term"`
	Measured float64 `json:"measured"`
	Limit    float64 `json:"limit"`
	Unit     string  `json:"unit"` // "ms", "%" (a fraction) or "ops"
	Pass     bool    `json:"pass"`
}

// String renders the result: "p95<50ms: 12.3ms pass".
func (r TermResult) String() string {
	verdict := "FAIL"
	if r.Pass {
		verdict = "pass"
	}
	return fmt.Sprintf("%s: %s %s", r.Term, FormatValue(r.Measured, r.Unit), verdict)
}

// FormatValue shows a measured value in its unit.
func FormatValue(v float64, unit string) string {
	switch unit {
	case "ms":
		return fmt.Sprintf("%.3gms", v)
	case "%":
		return fmt.Sprintf("%.3g%%", v*100)
	}
	return fmt.Sprintf("%.0f", v)
}

// Result is an SLA evaluated against one measured phase.
type Result struct {
	Terms []TermResult `json:"terms"`
	Pass  bool         `json:"pass"`
}

// Failed lists the terms that did not hold.
func (r Result) Failed() string {
	var out []string
	for _, t := range r.Terms {
		if !t.Pass {
			out = append(out, t.String())
		}
	}
	return strings.Join(out, "; ")
}

// Reads is what a stale-read check counted (experiment.StaleReads): reads
// that returned a record, and of them the unpredictable ones. Counted false:
// nothing was counted, and an unpredictable term cannot pass.
type Reads struct {
	Counted       bool
	Total         int64
	Unpredictable int64
}

// Evaluate checks every term against a measured summary. A phase without
// any completed operation meets no latency term: nothing was served. An
// unpredictable term needs EvaluateReads.
func (s SLA) Evaluate(sum measure.Summary) Result { return s.EvaluateReads(sum, Reads{}) }

// EvaluateReads is Evaluate with the counts of a stale-read check for the
// unpredictable term (a fraction of the reads, or a count).
func (s SLA) EvaluateReads(sum measure.Summary, reads Reads) Result {
	res := Result{Pass: true}
	for _, t := range s.Terms {
		r := TermResult{Term: t.String()}
		op := opOf(sum, t.Op)
		switch t.Metric {
		case Latency:
			r.Unit, r.Limit = "ms", ms(t.Limit)
			if op.ResponseHist == nil || op.ResponseHist.TotalCount() == 0 {
				break // nothing was served: no latency, and a failure
			}
			us := measure.Percentile(op.ResponseHist, t.Percentile)
			r.Measured = float64(us) / 1000
			r.Pass = holds(float64(us)*1000, t.Cmp, t.Limit)
		case Errors:
			r.Pass, r.Measured, r.Limit, r.Unit = countTerm(t, op.Errors, op.Count)
		case Dropped:
			r.Pass, r.Measured, r.Limit, r.Unit = countTerm(t, sum.Dropped, sum.Overall.Count+sum.Dropped)
		case Unpredictable:
			if !reads.Counted {
				r.Unit = "ops" // not measured: never passes
				break
			}
			r.Pass, r.Measured, r.Limit, r.Unit = countTerm(t, reads.Unpredictable, reads.Total)
		}
		res.Terms = append(res.Terms, r)
		res.Pass = res.Pass && r.Pass
	}
	return res
}

func ms(ns float64) float64 { return ns / float64(time.Millisecond) }

// countTerm evaluates a count or a percentage of total.
func countTerm(t Term, n, total int64) (pass bool, measured, limit float64, unit string) {
	if !t.Percent {
		return holds(float64(n), t.Cmp, t.Limit), float64(n), t.Limit, "ops"
	}
	frac := 0.0
	if total > 0 {
		frac = float64(n) / float64(total)
	}
	return holds(frac, t.Cmp, t.Limit), frac, t.Limit, "%"
}

func holds(v float64, c Cmp, limit float64) bool {
	switch c {
	case Less:
		return v < limit
	case LessEqual:
		return v <= limit
	}
	return v == limit
}

// opOf returns the summary of one operation type, or the overall one.
func opOf(sum measure.Summary, op string) measure.OpSummary {
	if op == "" {
		return sum.Overall
	}
	for _, o := range sum.Ops {
		if strings.EqualFold(o.Op, op) {
			return o
		}
	}
	return measure.OpSummary{Op: op}
}

// Doomed tells whether an experiment under way can no longer meet the SLA,
// whatever its remaining operations do: so far is what was measured until
// now, expected how many operations the whole experiment will complete (at
// least so far's). It returns the reason, or "" when the outcome is open.
//
// A latency term pQ<L fails for good once more than (100−Q)% of the
// expected operations are already at or above L: the nearest-rank Q-th
// percentile is then one of them. For a per-operation term the operation's
// share of the expected operations is taken from its share so far.
func (s SLA) Doomed(sofar measure.Summary, expected int64) string {
	total := sofar.Overall.Count
	if expected < total {
		expected = total
	}
	for _, t := range s.Terms {
		op := opOf(sofar, t.Op)
		switch t.Metric {
		case Latency:
			if op.Count == 0 || op.ResponseHist == nil {
				continue
			}
			n := expected
			if t.Op != "" && total > 0 {
				n = int64(math.Ceil(float64(expected) * float64(op.Count) / float64(total)))
			}
			if n < op.Count {
				n = op.Count
			}
			rank := int64(math.Ceil(t.Percentile / 100 * float64(n) * (1 - 1e-13)))
			slow := slowCount(op.ResponseHist, t)
			if slow >= n-rank+1 {
				return fmt.Sprintf("%s cannot hold: %d of about %d operations are already at or above %v", t, slow, n, t.LatencyLimit())
			}
		case Errors:
			if countDoomed(t, op.Errors, expected) {
				return fmt.Sprintf("%s cannot hold: %d errors of about %d operations", t, op.Errors, expected)
			}
		case Dropped:
			if countDoomed(t, sofar.Dropped, expected+sofar.Dropped) {
				return fmt.Sprintf("%s cannot hold: %d operations dropped already", t, sofar.Dropped)
			}
		}
	}
	return ""
}

// countDoomed: n can only grow, so once it breaks the limit over the whole
// expected total, the term fails.
func countDoomed(t Term, n, expected int64) bool {
	limit := t.Limit
	if t.Percent {
		limit *= float64(expected)
	}
	return !holds(float64(n), t.Cmp, limit)
}

// slowCount counts the recorded values (µs) that break a latency term, as
// Evaluate compares them: by their highest equivalent value.
func slowCount(h *hdr.Histogram, t Term) int64 {
	limitUS := t.Limit / float64(time.Microsecond)
	var n int64
	for _, b := range h.Distribution() {
		if b.Count > 0 && !holds(float64(b.To), t.Cmp, limitUS) {
			n += b.Count
		}
	}
	return n
}
