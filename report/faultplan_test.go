package report

import (
	"strings"
	"testing"
	"time"

	"github.com/dbrig/dbrig/experiment"
	"github.com/dbrig/dbrig/inject"
	"github.com/dbrig/dbrig/scenario"
	"github.com/dbrig/dbrig/spec"
)

// --dry-run shows each run's resolved fault plan: what, where, when, for
// how long and after what; a run with the previous run's plan says so.
func TestFaultPlans(t *testing.T) {
	sec := time.Second
	entries := []spec.Fault{{Name: "slow"}, {Name: "cut", FaultNet: spec.FaultNet{After: "slow", Wait: 5 * sec}},
		{Name: "kill"}, {Name: "calm", FaultNet: spec.FaultNet{When: "stable"}}}
	faults := []scenario.Injection{
		{Name: "slow", Fault: inject.Delay{Delay: 100 * time.Millisecond, Jitter: 10 * time.Millisecond}, Target: "etcd1", Link: "client", At: 5 * sec, For: 5 * sec},
		{Name: "cut", Fault: inject.Partition{}, Target: "all", Link: "peer", Groups: [][]string{{"etcd1"}, {"etcd2", "etcd3"}}, At: 15 * sec, For: 3 * sec},
		{Name: "kill#2", Fault: inject.Restart{Kill: true}, Target: "leader", At: 20 * sec},
		{Name: "calm", Fault: inject.Partition{}, Target: "leader", Link: "peer", At: 2 * sec, For: sec, Stable: 10 * sec},
	}
	run := func(f []scenario.Injection) experiment.BenchRun {
		return experiment.BenchRun{Exp: spec.Experiment{Scenario: entries}, Plan: &experiment.Plan{Options: experiment.Options{Faults: f}}}
	}
	b := &experiment.Bench{Runs: []experiment.BenchRun{run(faults), run(faults), run(nil), run(faults[:1])}}
	var out strings.Builder
	FaultPlans(&out, b)
	want := []string{
		"run 1 fault plan (times from the measure phase's start):",
		"  slow    delay 100ms ±10ms  etcd1, client link                  at 5s                                   5s       -\n",
		"  cut     partition          [etcd1] | [etcd2 etcd3], peer link  at 15s                                  3s       after slow ends, +5s\n",
		"  kill#2  restart (kill)     leader                              at 20s                                  instant  -\n",
		"  calm    partition          leader, peer link                   armed at 2s, fires once stable for 10s  1s       -\n",
		"run 2 fault plan: as run 1's",
		"run 4 fault plan (times",
	}
	for _, w := range want {
		if !strings.Contains(out.String(), w) {
			t.Errorf("missing %q in\n%s", w, out.String())
		}
	}
	if strings.Contains(out.String(), "run 3") {
		t.Errorf("a run without faults has a plan:\n%s", out.String())
	}
}
