package cluster

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// RoleResolver is implemented by recipes whose nodes take roles the system
// decides while it runs (the etcd leader): Roles names them, and Resolve
// asks the system, at that moment, which nodes hold one.
type RoleResolver interface {
	Roles() []string
	Resolve(ctx context.Context, nodes []Node, role string) ([]Node, error)
}

// ErrNoTarget is wrapped when a fault's target names no node.
var ErrNoTarget = errors.New("no such node or role")

// Targets lists what a fault may target on this cluster: node names, the
// roles its recipe gives nodes, its dynamic roles, and "any".
func (c *Cluster) Targets() []string {
	seen := map[string]bool{"any": true, "all": true}
	for _, n := range c.Nodes() {
		seen[n.Name], seen[n.Role] = true, true
	}
	if rr, ok := c.recipe.(RoleResolver); ok {
		for _, r := range rr.Roles() {
			seen[r] = true
		}
	}
	out := make([]string, 0, len(seen))
	for t := range seen {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// Resolve returns the live nodes a fault's target names now: a node by
// name; one node of a role (static, such as replica, or asked from the
// system, such as leader or follower: the first by name); every live node
// of a role with "all-" in front (all-follower); or "any" (the first live
// node). One node by default: two followers of three paused is a lost
// quorum, a different experiment from one follower paused.
func (c *Cluster) Resolve(ctx context.Context, target string) ([]Node, error) {
	if role, ok := strings.CutPrefix(target, "all-"); ok {
		return c.resolve(ctx, role)
	}
	nodes, err := c.resolve(ctx, target)
	if err != nil || len(nodes) <= 1 {
		return nodes, err
	}
	return nodes[:1], nil
}

func (c *Cluster) resolve(ctx context.Context, target string) ([]Node, error) {
	var live []Node
	for _, n := range c.Nodes() {
		if n.Alive() {
			live = append(live, n)
		}
	}
	if rr, ok := c.recipe.(RoleResolver); ok {
		for _, r := range rr.Roles() {
			if r == target {
				return rr.Resolve(ctx, live, target)
			}
		}
	}
	var out []Node
	for _, n := range live {
		if n.Name == target || n.Role == target || target == "any" || target == "all" {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w %q among the live nodes (targets: %s)", ErrNoTarget, target, strings.Join(c.Targets(), ", "))
	}
	return out, nil
}
