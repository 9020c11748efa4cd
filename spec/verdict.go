package spec

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Verdict is one limit on what a fault may cost, e.g. "recovery <= 15s":
// every fault of the run must meet it, or the run fails its verdict.
type Verdict struct {
	Metric string  // one of VerdictMetrics
	Op     string  // <=, <, >=, >, =
	Value  float64 // in the metric's unit; durations in seconds (exact to the nanosecond written)
	Text   string  // as written
	// IfMeasured: a fault whose figure could not be measured passes this
	// verdict (written "… if measured"); by default it fails it.
	IfMeasured bool
	Pos        Pos
}

// Units of verdict metrics.
const (
	UnitDuration = "duration" // written as a Go duration (800ms, 2s), compared in seconds
	UnitPercent  = "percent"  // a number of percent; negative is a drop
	UnitCount    = "count"    // a whole number of operations
)

// VerdictMetric is a figure of a fault's impact that a verdict may bound.
type VerdictMetric struct {
	Name, Unit string
}

// VerdictMetrics are the figures a verdict may bound, in the order the
// documentation (docs/reference/verdicts.md) lists them.
func VerdictMetrics() []VerdictMetric {
	return []VerdictMetric{
		{"recovery", UnitDuration}, {"unavailable", UnitDuration},
		{"p50_change_pct", UnitPercent}, {"p95_change_pct", UnitPercent}, {"p99_change_pct", UnitPercent},
		{"throughput_change_pct", UnitPercent}, {"errors", UnitCount},
	}
}

// VerdictUnit is the unit of a verdict metric; "" for an unknown one.
func VerdictUnit(metric string) string {
	for _, m := range VerdictMetrics() {
		if m.Name == metric {
			return m.Unit
		}
	}
	return ""
}

// flip is the comparison that holds with its sides swapped; "" for an
// unknown one.
func flip(op string) string {
	switch op {
	case "<=":
		return ">="
	case "<":
		return ">"
	case ">=":
		return "<="
	case ">":
		return "<"
	case "=":
		return "="
	}
	return ""
}

// parseVerdict reads "METRIC OP VALUE [if measured]"; "VALUE OP METRIC"
// (e.g. "2s > unavailable") is read as the same limit turned around.
func parseVerdict(text string, p Pos, path string) (Verdict, error) {
	f := strings.Fields(text)
	bad := func(format string, args ...any) error {
		return &FileError{Pos: p, Path: path, Msg: fmt.Sprintf(format, args...)}
	}
	v := Verdict{Text: text, Pos: p}
	if len(f) == 5 && f[3] == "if" && f[4] == "measured" {
		v.IfMeasured, f = true, f[:3]
	}
	if len(f) != 3 {
		return v, bad("%q: expected METRIC OP VALUE [if measured], e.g. \"recovery <= 15s\" or \"p99_change_pct <= 300 if measured\"", text)
	}
	if flip(f[1]) == "" {
		return v, bad("%q: unknown comparison %q (expected <=, <, >=, > or =)", text, f[1])
	}
	value := f[2]
	v.Metric, v.Op = f[0], f[1]
	if VerdictUnit(f[0]) == "" && VerdictUnit(f[2]) != "" {
		v.Metric, v.Op, value = f[2], flip(f[1]), f[0]
	}
	unit := VerdictUnit(v.Metric)
	if unit == "" {
		names := make([]string, 0, len(VerdictMetrics()))
		for _, m := range VerdictMetrics() {
			names = append(names, m.Name)
		}
		return v, bad("%q: unknown metric %q (expected one of %s)", text, v.Metric, strings.Join(names, ", "))
	}
	switch unit {
	case UnitDuration:
		d, err := time.ParseDuration(value)
		if err != nil {
			return v, bad("%q: %s is a duration: expected a value such as 800ms or 2s", text, v.Metric)
		}
		v.Value = d.Seconds()
	case UnitPercent:
		x, err := strconv.ParseFloat(strings.TrimSuffix(value, "%"), 64)
		if err != nil {
			return v, bad("%q: %s is in percent: expected a number such as 300 or -50", text, v.Metric)
		}
		v.Value = x
	default:
		x, err := strconv.ParseFloat(value, 64)
		if err != nil {
			return v, bad("%q: %s is a count: expected a number such as 0", text, v.Metric)
		}
		v.Value = x
	}
	return v, nil
}
