package report

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/dbrig/dbrig/analysis"
	"github.com/dbrig/dbrig/gate"
	"github.com/dbrig/dbrig/spec"
)

func TestCheckTable(t *testing.T) {
	nan := math.NaN()
	rule := func(text string) spec.CheckRule {
		r, err := spec.ParseCheckRule(text)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	rep := gate.Report{Confidence: 0.95, Z: 3, Notes: []string{"baseline run 1 is another configuration"}, Results: []gate.Result{
		{Group: "sim w closed/4", NewRuns: []int64{7}, BaseRuns: []int64{4, 5, 6}, Rule: rule("throughput<-5%"), Op: "OVERALL",
			Metric: analysis.Throughput, Base: 1000, New: 800, Z: -6.25, Status: gate.Regressed, Reason: "-20.0% beyond -5%",
			Stat: analysis.Significance{NA: 30, NB: 10, Rel: -0.2, Lo: -0.22, Hi: -0.18, P: 0.0001, Conf: 0.95}},
		{Group: "sim w closed/4", NewRuns: []int64{7}, BaseRuns: []int64{4, 5, 6}, Rule: rule("READ.p99>+10%"), Op: "READ",
			Metric: analysis.P99, Base: 2000, New: 2100, Z: 0.4, Status: gate.NoChange, Reason: "no significant change",
			Stat: analysis.Significance{NA: 30, NB: 10, Rel: 0.05, Lo: -0.02, Hi: 0.11, P: 0.21, Conf: 0.95}},
		{Group: "sim w open/8", NewRuns: []int64{8, 9}, Rule: rule("p99>+10%"), Op: "OVERALL", Metric: analysis.P99,
			Base: nan, New: 1500, Z: nan, Status: gate.NoBaseline, Reason: "no comparable baseline run",
			Stat: analysis.Significance{NB: 20, Rel: nan, Lo: nan, Hi: nan, P: nan}},
	}}
	var buf bytes.Buffer
	if err := CheckTable(&buf, rep); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for prefix, want := range map[string]string{
		"note:":          "note: baseline run 1 is another configuration",
		"sim w closed/4": "sim w closed/4: run 7 against runs 4, 5, 6",
		"rule":           "rule op baseline new change 95% CI p z verdict",
		"throughput<-5%": "throughput<-5% OVERALL 1,000 800 -20.0% [-22.0%, -18.0%] <0.001 -6.2 REGRESSED: -20.0% beyond -5%",
		"READ.p99>+10%":  "READ.p99>+10% READ 2.00ms 2.10ms +5.0% [-2.0%, +11.0%] 0.210 +0.4 no-significant-change",
		"sim w open/8":   "sim w open/8: runs 8, 9 against no baseline",
		"p99>+10%":       "p99>+10% OVERALL — 1.50ms — — — — no-baseline",
		"check":          "check failed: 1 of 3 rules regressed",
	} {
		if got := strings.Join(fieldsOf(t, out, prefix), " "); got != want {
			t.Errorf("%s:\n got %q\nwant %q", prefix, got, want)
		}
	}
	buf.Reset()
	rep.Results = rep.Results[1:]
	if err := CheckTable(&buf, rep); err != nil || !strings.Contains(buf.String(), "check passed: no significant regression beyond a threshold (2 rules)") {
		t.Errorf("passing check:\n%s", buf.String())
	}
}
