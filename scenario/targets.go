package scenario

import (
	"sort"
	"strings"

	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/spec"
)

// checkPlannedTargets refuses, before the run, a fault whose target (or a
// partition group's node) names a node the cluster's layout does not have:
// such a fault would fail when it fires and leave a run with nothing to
// measure. Roles and random targets are resolved when they fire; a plan
// that adds nodes (add-node) may name them, so its names are not checked.
// With cycle_targets, Cycle checks the names it cycles through.
func checkPlannedTargets(e spec.Experiment, plan []Injection, nodes []cluster.PlannedNode) error {
	if len(nodes) == 0 || e.CycleTargets {
		return nil // Cycle checks its own (cycle.go)
	}
	have := map[string]bool{}
	var names []string
	for _, n := range nodes {
		have[n.Name] = true
		names = append(names, n.Name)
	}
	sort.Strings(names)
	for _, in := range plan {
		if in.Fault != nil && in.Fault.Name() == "add-node" {
			return nil
		}
	}
	byName := map[string]spec.Fault{}
	for _, f := range e.Scenario {
		byName[f.Name] = f
	}
	for _, in := range plan {
		name, _, _ := strings.Cut(in.Name, "#")
		f, ok := byName[name]
		if !ok {
			continue
		}
		for _, target := range namedOnly(in.Target) {
			if !have[target] {
				return faultErr(e, f, "target", "%q: the %s cluster has no such node (its nodes: %s; or a role: leader, follower, primary, replica, member, any)",
					target, e.System.Cluster.Recipe, strings.Join(names, ", "))
			}
		}
		for _, g := range in.Groups {
			for _, n := range g {
				if !have[n] {
					return faultErr(e, f, "groups", "%q: the %s cluster has no such node (its nodes: %s)", n, e.System.Cluster.Recipe, strings.Join(names, ", "))
				}
			}
		}
	}
	return nil
}
