// Package sla parses service-level agreements such as `p95<100ms`,
// `READ.p99.9<1s`, `errors<0.1%` or `dropped=0` and evaluates them against a
// measured summary: per term, the measured value, the limit and pass or fail.
// It also tells, while an experiment runs, when its outcome is already
// certain (Doomed), so a rating can stop it early.
package sla

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Metric is what a term limits.
type Metric int

// Metrics a term can limit.
const (
	Latency       Metric = iota // a response-time percentile
	Errors                      // operations that returned an error
	Dropped                     // open model: operations never started
	Unpredictable               // stale reads (needs data integrity checks)
)

func (m Metric) String() string {
	switch m {
	case Latency:
		return "latency"
	case Errors:
		return "errors"
	case Dropped:
		return "dropped"
	case Unpredictable:
		return "unpredictable"
	}
	return fmt.Sprintf("Metric(%d)", int(m))
}

// Cmp is a term's comparison.
type Cmp int

// Comparisons.
const (
	Less      Cmp = iota // <
	LessEqual            // <=
	Equal                // =
)

func (c Cmp) String() string {
	switch c {
	case Less:
		return "<"
	case LessEqual:
		return "<="
	}
	return "="
}

// Term is one condition of an SLA.
type Term struct {
	Op         string  // operation type ("READ"), "" for all operations
	Metric     Metric  //
	Percentile float64 // Latency: 0 < q < 100, e.g. 95, 99.9
	Cmp        Cmp
	// Limit is a duration for Latency; for the others a count, or a fraction
	// of operations when Percent is set (0.001 for 0.1%).
	Limit   float64
	Percent bool
	Text    string // the term as written, trimmed
}

// LatencyLimit is a latency term's limit.
func (t Term) LatencyLimit() time.Duration { return time.Duration(t.Limit) }

// String renders the term canonically (READ.p99<10ms, errors<0.1%).
func (t Term) String() string {
	var b strings.Builder
	if t.Op != "" {
		b.WriteString(t.Op + ".")
	}
	switch t.Metric {
	case Latency:
		b.WriteString("p" + strconv.FormatFloat(t.Percentile, 'f', -1, 64))
	default:
		b.WriteString(t.Metric.String())
	}
	b.WriteString(t.Cmp.String())
	switch {
	case t.Metric == Latency:
		b.WriteString(t.LatencyLimit().String())
	case t.Percent:
		b.WriteString(strconv.FormatFloat(t.Limit*100, 'f', -1, 64) + "%")
	default:
		b.WriteString(strconv.FormatFloat(t.Limit, 'f', -1, 64))
	}
	return b.String()
}

// SLA is a set of terms that must all hold.
type SLA struct {
	Terms []Term
}

// String joins the terms with commas (it parses back to the same SLA).
func (s SLA) String() string {
	parts := make([]string, len(s.Terms))
	for i, t := range s.Terms {
		parts[i] = t.String()
	}
	return strings.Join(parts, ",")
}

// ParseError is an SLA expression that cannot be parsed: where, and what
// was expected there.
type ParseError struct {
	Expr   string
	Column int // 1-based, in bytes
	Msg    string
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("SLA %q, column %d: %s", e.Expr, e.Column, e.Msg)
}

// ErrEmpty is an SLA without any term.
var ErrEmpty = errors.New("empty SLA: expected terms such as p95<100ms, READ.p99<10ms, errors<0.1%, dropped=0")

// Parse parses one or more expressions, each a comma-separated list of
// terms (flags may repeat: --sla p95<100ms --sla errors<0.1%).
func Parse(exprs ...string) (SLA, error) {
	var s SLA
	for _, e := range exprs {
		off := 0
		for _, part := range strings.Split(e, ",") {
			t, err := parseTerm(e, part, off)
			off += len(part) + 1
			if err != nil {
				return SLA{}, err
			}
			s.Terms = append(s.Terms, t)
		}
	}
	if len(s.Terms) == 0 {
		return SLA{}, ErrEmpty
	}
	return s, nil
}

// parseTerm parses part, which starts at byte off of expr.
func parseTerm(expr, part string, off int) (Term, error) {
	fail := func(at int, format string, args ...any) (Term, error) {
		return Term{}, &ParseError{Expr: expr, Column: off + at + 1, Msg: fmt.Sprintf(format, args...)}
	}
	lead := len(part) - len(strings.TrimLeft(part, " \t"))
	text := strings.TrimSpace(part)
	if text == "" {
		return fail(lead, "expected a term such as p95<100ms, READ.p99<10ms, errors<0.1%% or dropped=0")
	}
	t := Term{Text: text}
	// The comparison splits the term into a left side and a limit.
	ci := strings.IndexAny(text, "<=")
	if ci < 0 {
		return fail(lead+len(text), "expected a comparison (< , <= or =) after %q", text)
	}
	left, rest := strings.TrimSpace(text[:ci]), text[ci:]
	switch {
	case strings.HasPrefix(rest, "<="):
		t.Cmp, rest = LessEqual, rest[2:]
	case strings.HasPrefix(rest, "<"):
		t.Cmp, rest = Less, rest[1:]
	default:
		t.Cmp, rest = Equal, rest[1:]
	}
	limitAt := lead + len(text) - len(rest)
	limitText := strings.TrimLeft(rest, " \t")
	limitAt += len(rest) - len(limitText)
	limitText = strings.TrimRight(limitText, " \t")
	if left == "" {
		return fail(lead, "expected a metric (p95, p99.9, errors, dropped, unpredictable, or OP.p99) before %q", t.Cmp.String())
	}
	// left: [OP.]metric. The metric is the last dot-separated part, except
	// that a percentile has a dot of its own (p99.9).
	metric := left
	if i := strings.Index(left, "."); i >= 0 && !isPercentile(left) {
		t.Op, metric = left[:i], left[i+1:]
		if !validOp(t.Op) {
			return fail(lead, "operation %q: expected letters, digits, - or _ (such as READ or READ-MODIFY-WRITE)", t.Op)
		}
	}
	metricAt := lead + len(left) - len(metric)
	switch lower := strings.ToLower(metric); {
	case isPercentile(lower):
		q, err := strconv.ParseFloat(lower[1:], 64)
		if err != nil || !(q > 0 && q < 100) || math.IsNaN(q) {
			return fail(metricAt, "percentile %q: expected p followed by a number above 0 and below 100 (p95, p99.9)", metric)
		}
		t.Metric, t.Percentile = Latency, q
	case lower == "errors" || lower == "error":
		t.Metric = Errors
	case lower == "dropped":
		t.Metric = Dropped
	case lower == "unpredictable" || lower == "stale":
		t.Metric = Unpredictable
	default:
		return fail(metricAt, "unknown metric %q: expected p95, p99.9 (latency percentiles), errors, dropped or unpredictable", metric)
	}
	if t.Op != "" && t.Metric != Latency && t.Metric != Errors {
		return fail(lead, "%s is counted over all operations: drop the %q prefix", t.Metric, t.Op+".")
	}
	if limitText == "" {
		return fail(limitAt, "expected a limit after %q", t.Cmp.String())
	}
	if t.Metric == Latency {
		if t.Cmp == Equal {
			return fail(limitAt-1, "a latency term takes < or <=, not =")
		}
		d, err := time.ParseDuration(limitText)
		if err != nil || d <= 0 {
			return fail(limitAt, "latency limit %q: expected a positive duration such as 100ms, 1.5s or 500us", limitText)
		}
		t.Limit = float64(d)
		return t, nil
	}
	num := limitText
	if strings.HasSuffix(num, "%") {
		t.Percent, num = true, strings.TrimSpace(strings.TrimSuffix(num, "%"))
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || v < 0 || math.IsNaN(v) || math.IsInf(v, 0) || (t.Percent && v > 100) {
		return fail(limitAt, "%s limit %q: expected a count (0, 10) or a percentage of operations (0.1%%)", t.Metric, limitText)
	}
	if t.Percent {
		v /= 100
	}
	if !t.Percent && v != math.Trunc(v) {
		return fail(limitAt, "%s limit %q: a count is a whole number (or write a percentage: %s%%)", t.Metric, limitText, num)
	}
	if t.Cmp == Less && v == 0 {
		return fail(limitAt, "%s<0 can never hold: did you mean %s=0?", t.Metric, t.Metric)
	}
	t.Limit = v
	return t, nil
}

// isPercentile: p followed by a digit (p95, p99.9).
func isPercentile(s string) bool {
	return len(s) >= 2 && (s[0] == 'p' || s[0] == 'P') && s[1] >= '0' && s[1] <= '9'
}

func validOp(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// HasUnpredictable tells whether a term limits unpredictable (stale) reads:
// the experiment must then count them (version stamps on every write).
func (s SLA) HasUnpredictable() bool {
	for _, t := range s.Terms {
		if t.Metric == Unpredictable {
			return true
		}
	}
	return false
}

// Check tells whether the SLA can be evaluated for a workload with these
// operation types: every named operation exists, and nothing asked for is
// left unmeasured. It is for before anything runs.
func (s SLA) Check(ops []string) error {
	for _, t := range s.Terms {
		if t.Op == "" {
			continue
		}
		found := false
		for _, o := range ops {
			if strings.EqualFold(o, t.Op) {
				found = true
			}
		}
		if !found {
			return fmt.Errorf("SLA term %s: the workload has no operation %q (it has %s)", t.Text, t.Op, strings.Join(ops, ", "))
		}
	}
	return nil
}
