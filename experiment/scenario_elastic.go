package experiment

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/inject"
)

// Elasticity faults: add-node (target: the role of the node to add) and
// remove-node (target: the node(s) to take out, by name or role), on the
// recipes whose clusters can change size while they run (cluster.Elastic):
// the recipe's GrowRoles are what add-node can add (etcd: members; Redis: a
// replica of the primary, and a removed node is stopped).
// Both are instantaneous: the cluster keeps its new size for the rest of
// the run.

// elastic tells whether r's clusters can change size while they run.
func elastic(r cluster.Recipe) bool { _, ok := r.(cluster.Elastic); return ok }

func elasticFault(kind string) bool { return kind == "add-node" || kind == "remove-node" }

// checkElastic checks an add-node or remove-node entry.
func checkElastic(kind, target string, rec cluster.Recipe, hasFor bool, bad func(key, format string, args ...any) error) error {
	el, ok := rec.(cluster.Elastic)
	if !ok {
		return bad("fault", "the %s recipe cannot add or remove nodes while it runs (%s can)", rec.System(), strings.Join(recipesThat(elastic), ", "))
	}
	roles := el.GrowRoles()
	if hasFor {
		return bad("for", "%s is instantaneous: the cluster keeps its new size; leave for out", kind)
	}
	if kind == "add-node" {
		for _, r := range roles {
			if r == target {
				return nil
			}
		}
		return bad("target", "%q: add-node's target is the role of the node to add (%s can add: %s)", target, rec.System(), strings.Join(roles, ", "))
	}
	return nil
}

// clusterMembers is what a cluster that can change size offers (a
// *cluster.Cluster).
type clusterMembers interface {
	AddNode(ctx context.Context, role string) (cluster.Node, error)
	RemoveNode(ctx context.Context, name string) error
}

// membersOf adapts a cluster to inject.Membership: one change at a time
// (etcd takes one membership change at a time; an added member must be
// ready before the next), and a removed node's proxies are closed.
type membersOf struct {
	c   clusterMembers
	mu  *sync.Mutex
	net *network // nil: not routed
}

func (m membersOf) AddNode(ctx context.Context, role string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, err := m.c.AddNode(ctx, role)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s (pid %d)", n.Name, n.PID), nil
}

func (m membersOf) RemoveNode(ctx context.Context, name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.c.RemoveNode(ctx, name); err != nil {
		return err
	}
	if m.net != nil {
		m.net.forget(name)
	}
	return nil
}

// membership is the inject.Membership of the injector's cluster.
func (in *injector) membership() (inject.Membership, error) {
	c, ok := in.c.(clusterMembers)
	if !ok {
		return nil, inject.ErrNoMembership
	}
	return membersOf{c: c, mu: &in.memberMu, net: in.net}, nil
}
