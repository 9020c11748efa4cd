package report

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/dbrig/dbrig/analysis"
	"github.com/dbrig/dbrig/experiment"
	"github.com/dbrig/dbrig/run"
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
