package experiment

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbrig/dbrig/driver/hazelcast"
)

func TestScenarioElasticBadInput(t *testing.T) {
	for _, tc := range []struct {
		name, scenario, where, msg string
	}{
		{"add a replica to etcd", `
  - {fault: add-node, target: replica, at: 1s}`, ":9:", "add-node's target is the role of the node to add (etcd can add: member)"},
		{"add-node for a while", `
  - {fault: add-node, target: member, at: 1s, for: 2s}`, ":9:", "add-node is instantaneous"},
		{"fault on a removed node", `
  - {fault: remove-node, target: etcd2, at: 1s}
  - {fault: pause, target: etcd2, at: 5s, for: 1s}`, ":10:", "down for the rest of the run"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, path := scenarioFile(t, tc.scenario)
			_, err := scenarioPlan(e, 30*time.Second)
			if err == nil || !strings.Contains(err.Error(), filepath.Base(path)+tc.where) || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error %v\nwant position %s and %q", err, tc.where, tc.msg)
			}
		})
	}
	e, _ := scenarioFile(t, `
  - {fault: add-node, target: member, at: 1s}
  - {fault: remove-node, target: random-follower, at: 8s}`)
	plan, err := scenarioPlan(e, 30*time.Second)
	if err != nil || len(plan) != 2 || plan[0].Fault.Name() != "add-node" {
		t.Fatalf("plan %+v, %v", plan, err)
	}
	// Only recipes whose clusters change size take them.
	bad := func(key, format string, args ...any) error { return fmt.Errorf(key+": "+format, args...) }
	if err := checkElastic("remove-node", "hz2", hazelcast.Cluster{}, false, bad); err == nil || !strings.HasPrefix(err.Error(), "fault: the hazelcast recipe cannot") {
		t.Errorf("hazelcast remove-node: %v", err)
	}
}

// add-node, remove-node and random targets go into the stored plan and come
// back from it as they were (a --replay runs them again; a random target
// picks the same nodes with the same seed).
func TestElasticRandomPlanRoundTrip(t *testing.T) {
	e, _ := scenarioFile(t, `
  - {name: grow, fault: add-node, target: member, at: 1s}
  - {name: shrink, fault: remove-node, target: random-follower, at: 8s}
  - {name: nap, fault: pause, target: random-2-member, at: 12s, for: 1s}`)
	plan, err := scenarioPlan(e, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	back, err := planOf(storedPlan(plan), plan)
	if err != nil {
		t.Fatal(err)
	}
	for i := range plan {
		a, b := plan[i], back[i]
		if a.Name != b.Name || a.Target != b.Target || a.At != b.At || a.For != b.For || a.Fault != b.Fault {
			t.Errorf("%d: stored and read back %+v, want %+v", i, b, a)
		}
	}
}
