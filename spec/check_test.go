package spec

import (
	"errors"
	"strings"
	"testing"
)

func TestParseCheckRule(t *testing.T) {
	for _, tt := range []struct {
		text string
		want CheckRule
		err  string
		col  int
	}{
		{text: "throughput<-5%", want: CheckRule{Metric: "throughput", Less: true, Pct: -0.05}},
		{text: "READ.p99>+10%", want: CheckRule{Op: "READ", Metric: "p99", Pct: 0.10}},
		{text: "READ-MODIFY-WRITE.mean >= 20 %", want: CheckRule{Op: "READ-MODIFY-WRITE", Metric: "mean", Pct: 0.20}},
		{text: "p99.9>10%", err: `unknown metric "9": expected one of throughput, errors, mean, p50, p95, p99, max`, col: 1},
		{text: "latency>10%", err: `unknown metric "latency": expected one of throughput`, col: 1},
		{text: "throughput-5%", err: "expected [OPERATION.]METRIC<PERCENT", col: 1},
		{text: "throughput<-5", err: `expected a change in percent of the baseline such as -5% or +10%, got "-5"`, col: 12},
		{text: "throughput< x%", err: `got "x%"`, col: 13},
		{text: "throughput<-100%", err: "cannot drop by -100% or more", col: 12},
		{text: ".p99>1%", err: "expected an operation before the dot", col: 1},
	} {
		got, err := ParseCheckRule(tt.text)
		if tt.err != "" {
			var re *CheckRuleError
			if !errors.As(err, &re) || !strings.Contains(err.Error(), tt.err) || re.Col != tt.col {
				t.Errorf("%q: error %v (col %v), want %q at column %d", tt.text, err, re, tt.err, tt.col)
			}
			continue
		}
		tt.want.Text = tt.text
		if err != nil || got != tt.want {
			t.Errorf("%q = %+v, %v; want %+v", tt.text, got, err, tt.want)
		}
	}
}

func TestParseBaseline(t *testing.T) {
	for text, want := range map[string]Baseline{"12": {ID: 12}, "tag:main": {Tag: "main"}, "history:5": {History: 5}} {
		if got, err := ParseBaseline(text); err != nil || got != want {
			t.Errorf("%q = %+v, %v; want %+v", text, got, err, want)
		}
	}
	for _, bad := range []string{"", "0", "-3", "tag:", "history:0", "history:x", "last"} {
		if _, err := ParseBaseline(bad); err == nil || !strings.Contains(err.Error(), "expected a run id, tag:NAME or history:N") {
			t.Errorf("%q: error %v", bad, err)
		}
	}
}

func TestExperimentCheck(t *testing.T) {
	base := "system: {driver: null}\nworkload: {files: [workloada]}\n"
	e, err := ParseExperiment("x.yaml", []byte(base+"check:\n  baseline: history:5\n  fail_on: [\"throughput<-5%\", READ.p99>+10%]\n  confidence: 99%\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	c := e[0].Check
	if c == nil || c.Baseline != "history:5" || c.Confidence != 0.99 || len(c.FailOn) != 2 {
		t.Fatalf("check = %+v", c)
	}
	if r := c.FailOn[0]; r.Metric != "throughput" || r.Pos.Line != 5 || r.Pos.Col != 14 || r.Path != "check.fail_on[0]" {
		t.Errorf("first rule %+v, want throughput at 5:14", r)
	}
	short, err := ParseExperiment("x.yaml", []byte(base+"check: [\"p99>+10%\"]\n"), nil)
	if err != nil || short[0].Check == nil || len(short[0].Check.FailOn) != 1 || short[0].Check.FailOn[0].Metric != "p99" {
		t.Fatalf("short form: %+v, %v", short, err)
	}

	for _, tt := range []struct{ text, want string }{
		{"check:\n  fail_on: [\"throughput<-5%\", \"READ.p98>+10%\"]\n", `x.yaml:4:32: check.fail_on[1]: "READ.p98>+10%": unknown metric "p98": expected one of throughput, errors, mean, p50, p95, p99, max`},
		{"check:\n  fail_on: [\"throughput<5\"]\n", `x.yaml:4:25: check.fail_on[0]: "throughput<5": expected a change in percent`},
		{"check:\n  baseline: yesterday\n", `x.yaml:4:13: check.baseline: "yesterday": expected a run id, tag:NAME or history:N`},
		{"check:\n  confidence: 2\n", `x.yaml:4:15: check.confidence: "2": expected a confidence level between 50% and 99.9%`},
		{"check:\n  fail: [\"p99>1%\"]\n", `x.yaml:4:3: check.fail: unknown key (expected one of baseline, confidence, fail_on)`},
		{"check: {fail_on: []}\n", `x.yaml:3:18: check.fail_on: expected a list of thresholds`},
	} {
		_, err := ParseExperiment("x.yaml", []byte(base+tt.text), nil)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: error %v\nwant it to contain %q", tt.text, err, tt.want)
		}
	}
}
