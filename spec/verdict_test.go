package spec

import (
	"errors"
	"strings"
	"testing"
)

func TestParseVerdicts(t *testing.T) {
	base := "system: {driver: null}\nworkload: {files: [workloada]}\n"
	for _, tc := range []struct {
		text string
		want Verdict // Text and Pos not compared
	}{
		{`unavailable < 2s`, Verdict{Metric: "unavailable", Op: "<", Value: 2}},
		{`unavailable < 800ms`, Verdict{Metric: "unavailable", Op: "<", Value: 0.8}},
		{`recovery <= 1m30s if measured`, Verdict{Metric: "recovery", Op: "<=", Value: 90, IfMeasured: true}},
		{`2s > unavailable`, Verdict{Metric: "unavailable", Op: "<", Value: 2}}, // turned around
		{`-50 <= throughput_change_pct`, Verdict{Metric: "throughput_change_pct", Op: ">=", Value: -50}},
		{`p95_change_pct <= 250%`, Verdict{Metric: "p95_change_pct", Op: "<=", Value: 250}},
		{`errors = 0`, Verdict{Metric: "errors", Op: "=", Value: 0}},
	} {
		exps, err := ParseExperiment("x.yaml", []byte(base+"verdict: [\""+tc.text+"\"]\n"), nil)
		if err != nil {
			t.Errorf("%s: %v", tc.text, err)
			continue
		}
		got := exps[0].Verdicts[0]
		if got.Text != tc.text || got.Pos.Line != 3 {
			t.Errorf("%s: text %q at %v", tc.text, got.Text, got.Pos)
		}
		got.Text, got.Pos = "", Pos{}
		if got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.text, got, tc.want)
		}
	}
}

func TestParseVerdictErrors(t *testing.T) {
	base := "system: {driver: null}\nworkload: {files: [workloada]}\nverdict:\n  - recovery <= 15s\n  - "
	var names []string
	for _, m := range VerdictMetrics() {
		names = append(names, m.Name)
	}
	for _, tc := range []struct{ text, want string }{
		{"latency < 2s", `x.yaml:5:5: verdict[1]: "latency < 2s": unknown metric "latency" (expected one of ` + strings.Join(names, ", ") + ")"},
		{"unavailable << 2s", `x.yaml:5:5: verdict[1]: "unavailable << 2s": unknown comparison "<<"`},
		{"unavailable < 2", `x.yaml:5:5: verdict[1]: "unavailable < 2": unavailable is a duration`},
		{"p99_change_pct < 2s", "p99_change_pct is in percent"},
		{"errors < some", "errors is a count"},
		{"recovery < 2s if", "expected METRIC OP VALUE [if measured]"},
		{"recovery < 2s unless measured", "expected METRIC OP VALUE [if measured]"},
	} {
		_, err := ParseExperiment("x.yaml", []byte(base+tc.text+"\n"), nil)
		var fe *FileError
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.As(err, &fe) {
			t.Errorf("%s: error %v, want a FileError saying %q", tc.text, err, tc.want)
		}
	}
}
