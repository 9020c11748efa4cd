package report

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/dbrig/dbrig/analysis"
	"github.com/dbrig/dbrig/experiment"
	"github.com/dbrig/dbrig/run"
	"github.com/dbrig/dbrig/spec"
)

// bench --json says which fault did not fire, so a script does not read its
// zero figures as an impact.
func TestBenchJSONNotFired(t *testing.T) {
	b := &experiment.Bench{Name: "x", File: "x.yaml", Runs: []experiment.BenchRun{{Plan: &experiment.Plan{Options: experiment.Options{Name: "x"}}}}}
	out := &experiment.Outcome{RunID: 1, Status: "done",
		Faults:  []run.Event{{Kind: experiment.EventFault, Name: "kill-a"}, {Kind: experiment.EventFault, Name: "kill-b"}},
		Impacts: []analysis.Impact{{Fault: "kill-a", NotFired: true, Outcome: "failed: no node etcd9"}, {Fault: "kill-b"}}}
	var buf bytes.Buffer
	if err := BenchJSON(&buf, b, []experiment.BenchOutcome{{Run: b.Runs[0], Outcome: out}}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Impacts []map[string]any `json:"impacts"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Impacts) != 2 || doc.Impacts[0]["not_fired"] != true || doc.Impacts[1]["not_fired"] != nil {
		t.Errorf("impacts: %v; want not_fired on kill-a only", doc.Impacts)
	}
}

// bench --json's verdicts judge the figures its impacts carry: an
// unavailable verdict reads unavailable_ms to the millisecond, in seconds,
// and a fault without a baseline is not measured (and fails), never 0.
func TestBenchJSONVerdicts(t *testing.T) {
	exp := spec.Experiment{Verdicts: []spec.Verdict{
		{Metric: "unavailable", Op: "<", Value: 2, Text: "unavailable < 2s"},
		{Metric: "unavailable", Op: "<", Value: 0.8, Text: "unavailable < 800ms"},
		{Metric: "p99_change_pct", Op: "<=", Value: 300, Text: "p99_change_pct <= 300"},
	}}
	b := &experiment.Bench{Name: "x", File: "x.yaml", Runs: []experiment.BenchRun{{Plan: &experiment.Plan{Options: experiment.Options{Name: "x"}}, Exp: exp}}}
	im := analysis.Impact{Fault: "kill", UnavailableMS: 861}
	im.During.Secs, im.During.Ops = 3, 10
	out := &experiment.Outcome{RunID: 1, Status: "done", Faults: []run.Event{{Kind: experiment.EventFault, Name: "kill"}}, Impacts: []analysis.Impact{im}}
	var buf bytes.Buffer
	if err := BenchJSON(&buf, b, []experiment.BenchOutcome{{Run: b.Runs[0], Outcome: out}}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Runs []struct {
			Impacts []struct {
				UnavailableMS int64 `json:"unavailable_ms"`
			} `json:"impacts"`
			Verdicts []verdictJSON `json:"verdicts"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Runs) != 1 || len(doc.Runs[0].Verdicts) != 3 || len(doc.Runs[0].Impacts) != 1 {
		t.Fatalf("runs %+v: want one run with one impact and 3 verdicts", doc.Runs)
	}
	r := doc.Runs[0]
	for i, want := range []struct {
		value  float64
		shown  string
		result string
	}{
		{float64(r.Impacts[0].UnavailableMS) / 1000, "861ms", "pass"},
		{float64(r.Impacts[0].UnavailableMS) / 1000, "861ms", "fail"},
		{-1, "not measured: no baseline: nothing was measured before the first fault", "fail"},
	} {
		v := r.Verdicts[i]
		if v.Shown != want.shown || v.Result != want.result {
			t.Errorf("verdict %q: shown %q, %s; want %q, %s", v.Verdict, v.Shown, v.Result, want.shown, want.result)
		}
		switch {
		case want.value < 0 && v.Value != nil:
			t.Errorf("verdict %q: value %v, want null (not measured)", v.Verdict, *v.Value)
		case want.value >= 0 && (v.Value == nil || *v.Value != want.value):
			t.Errorf("verdict %q: value %v, want %v (the impact's unavailable_ms in seconds)", v.Verdict, v.Value, want.value)
		}
	}
}
