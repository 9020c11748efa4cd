package experiment

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/spec"
)

// cycle_targets: true with repeat: N moves every fault that names a member
// node (etcd2, hz1) to the next member each repetition — repetition k hits
// member (n + k − 1) mod members — so N runs spread the same fault over the
// nodes, and the median and spread of each impact figure say how much the
// node mattered (analysis.Spreads). Roles (leader) are not moved: the
// system decides them.

// memberName is a member name: a prefix and a 1-based number.
var memberName = regexp.MustCompile(`^(.*?)([0-9]+)$`)

// members is the name prefix and number of the numbered members of the
// file's cluster (cluster.Numbered; 0: the recipe has none).
func members(e spec.Experiment) (prefix string, n int) {
	cp, err := clusterRecipe(e)
	if err != nil || cp == nil {
		return "", 0
	}
	if nr, ok := cp.Recipe.(cluster.Numbered); ok {
		return nr.Numbered()
	}
	return "", 0
}

// hasMembers tells whether r's nodes are numbered members.
func hasMembers(r cluster.Recipe) bool { _, ok := r.(cluster.Numbered); return ok }

// cycleTargets moves plan's member targets for repetition rep (1-based).
func cycleTargets(e spec.Experiment, plan []Injection, rep int) ([]Injection, error) {
	if !e.CycleTargets || len(plan) == 0 {
		return plan, nil
	}
	prefix, n := members(e)
	if n == 0 {
		return nil, e.Errorf("cycle_targets", "the %s cluster has no numbered members to cycle through (%s do)", e.System.Driver, strings.Join(recipesThat(hasMembers), " and "))
	}
	if e.Repeat < 2 {
		return nil, e.Errorf("cycle_targets", "cycle_targets moves the fault each repetition: give repeat: 2 or more")
	}
	out := make([]Injection, len(plan))
	moved := false
	for i, in := range plan {
		out[i] = in
		m := memberName.FindStringSubmatch(in.Target)
		if m == nil || m[1] != prefix {
			continue
		}
		k, _ := strconv.Atoi(m[2])
		if k < 1 || k > n {
			return nil, e.Errorf("cycle_targets", "fault %s targets %s, but the cluster has %d members", in.Name, in.Target, n)
		}
		out[i].Target = fmt.Sprintf("%s%d", m[1], (k-1+rep-1)%n+1)
		moved = true
	}
	if !moved {
		return nil, e.Errorf("cycle_targets", "no fault names a member node (etcd1, hz2): roles such as leader are chosen by the system, not cycled")
	}
	return out, nil
}
