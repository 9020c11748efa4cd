package scenario

import (
	"sort"
	"strings"

	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/spec"
)

// CheckLayout refuses targets the cluster's layout has no node for, and
// runs the overlap checks again with the cluster's
// layout, which tells the nodes of targets that are not node names: all,
// all-ROLE and a role only one node has (a static role the recipe gives,
// such as replica or sentinel). So "pause all-member" and "kill etcd2" at
// once are refused, as "pause etcd2" and "kill etcd2" are. Roles the
// system decides (leader, follower), one of several nodes of a role (the
// first live one when it fires), random and conditional targets stay
// unchecked: which node they hit is known only when they fire.
func CheckLayout(e spec.Experiment, plan []Injection, nodes []cluster.PlannedNode) error {
	if err := checkPlannedTargets(e, plan, nodes); err != nil {
		return err
	}
	if len(plan) < 2 || len(nodes) == 0 {
		return nil
	}
	byName := map[string]*entry{}
	for _, f := range e.Scenario {
		byName[f.Name] = &entry{f: f}
	}
	return checkOverlaps(e, plan, byName, plannedNodesOf(nodes))
}

// plannedNodesOf names the nodes a target hits, from the layout; nil when
// that is not known before the run.
func plannedNodesOf(nodes []cluster.PlannedNode) func(string) []string {
	return func(target string) []string {
		var names []string
		switch role, all := strings.CutPrefix(target, "all-"); {
		case target == "all":
			for _, n := range nodes {
				names = append(names, n.Name)
			}
		case all:
			for _, n := range nodes {
				if n.Role == role {
					names = append(names, n.Name)
				}
			}
		case knownTargets[target]:
			for _, n := range nodes {
				if n.Role == target {
					names = append(names, n.Name)
				}
			}
			if len(names) != 1 {
				return nil
			}
		default:
			return namedOnly(target)
		}
		sort.Strings(names)
		return names
	}
}
