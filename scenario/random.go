package scenario

import (
	"context"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"

	"github.com/dbrig/dbrig/cluster"
)

// A target "random-N-ROLE" (or "random-ROLE", N = 1) hits N nodes of a
// role, chosen when the fault fires among the live nodes that hold the
// role then (a role the system decides, such as follower, is asked at that
// moment), by a random generator seeded with the run's seed and the
// injection's name: the same run seed (a --replay) picks the same nodes
// from the same live nodes. ROLE "any" picks among every live node. The
// plan stores the target as written; the fault's event names the nodes.

// maxRandom bounds N: more is a mistake, not a cluster dbrig starts.
const maxRandom = 99

// randomTarget parses a random target; ok is false when t is not one.
// An error is a random target written wrong.
func randomTarget(t string) (n int, role string, ok bool, err error) {
	rest, ok := strings.CutPrefix(t, "random-")
	if !ok {
		return 0, "", false, nil
	}
	n = 1
	if num, r, found := strings.Cut(rest, "-"); found {
		if v, perr := strconv.Atoi(num); perr == nil {
			if v < 1 || v > maxRandom {
				return 0, "", true, fmt.Errorf("%q: N must be 1 to %d", t, maxRandom)
			}
			n, rest = v, r
		}
	}
	if !knownTargets[rest] {
		return 0, "", true, fmt.Errorf("%q: expected random-N-ROLE or random-ROLE with a role (%s)", t, strings.Join(sortedKeys(knownTargets), ", "))
	}
	return n, rest, true, nil
}

// pickRandom chooses n of the nodes, seeded by seed and name, in name
// order; the nodes are sorted by name first, so the choice does not hang
// on the order the cluster listed them in.
func pickRandom(nodes []cluster.Node, n int, seed int64, name string) []cluster.Node {
	nodes = append([]cluster.Node(nil), nodes...)
	sort.Slice(nodes, func(i, j int) bool { return nodes[i].Name < nodes[j].Name })
	h := fnv.New64a()
	h.Write([]byte(name))
	r := rand.New(rand.NewPCG(uint64(seed), h.Sum64()))
	r.Shuffle(len(nodes), func(i, j int) { nodes[i], nodes[j] = nodes[j], nodes[i] })
	out := nodes[:min(n, len(nodes))]
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// resolveRandom is the nodes a random target hits now.
func resolveRandom(ctx context.Context, c Nodes, n int, role string, seed int64, name string) ([]cluster.Node, error) {
	all := "all-" + role
	if role == "any" {
		all = "all"
	}
	live, err := c.Resolve(ctx, all)
	if err != nil {
		return nil, err
	}
	if len(live) < n {
		return nil, fmt.Errorf("%w: random-%d-%s: only %d live %s node(s) now", cluster.ErrNoTarget, n, role, len(live), role)
	}
	return pickRandom(live, n, seed, name), nil
}
