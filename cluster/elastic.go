package cluster

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"time"
)

// Elastic is implemented by recipes whose clusters can take a node more or
// a node less while they run: the add-node and remove-node faults. etcd
// adds and removes voting members; Redis adds replicas of the primary and
// removes a replica by stopping it.
type Elastic interface {
	// GrowRoles are the roles Grow can add.
	GrowRoles() []string
	// Grow lays out one more node of role, named name, joining the live
	// nodes: ports from l; its Setup joins it to the cluster (etcd: member
	// add) before it starts.
	Grow(l *Layout, live []Node, role, name string) (*NodeSpec, error)
	// Shrink takes n out of the cluster before it is stopped (etcd: member
	// remove); stopping alone suffices where it returns nil.
	Shrink(ctx context.Context, live []Node, n Node) error
}

// ErrNotElastic is wrapped when a cluster's recipe cannot add or remove
// nodes.
var ErrNotElastic = errors.New("the recipe cannot add or remove nodes")

var trailingNumber = regexp.MustCompile(`^(.*?)([0-9]+)$`)

// nextName is the name of a new node of role: the recipe's prefix for it
// (from the nodes of that role: etcd1 → etcd, redis-replica1 →
// redis-replica; SYSTEM-ROLE when there is none) with a number no node ever had (a removed node's data dir
// is not reused).
func (c *Cluster) nextName(role string) string {
	all := append(append([]*proc(nil), c.procs...), c.removed...)
	prefix, top := c.system+"-"+role, 0
	for _, p := range all {
		if m := trailingNumber.FindStringSubmatch(p.spec.Name); m != nil && p.spec.Role == role {
			prefix = m[1]
			break
		}
	}
	for _, p := range all {
		if m := trailingNumber.FindStringSubmatch(p.spec.Name); m != nil && m[1] == prefix {
			n, _ := strconv.Atoi(m[2])
			top = max(top, n)
		}
	}
	return prefix + strconv.Itoa(top+1)
}

// AddNode starts one more node of role in the running cluster, joined to
// it, and returns it once ready. It is stopped by Down like the others.
func (c *Cluster) AddNode(ctx context.Context, role string) (Node, error) {
	el, ok := c.recipe.(Elastic)
	if !ok {
		return Node{}, fmt.Errorf("%w (%s)", ErrNotElastic, c.system)
	}
	c.mu.Lock()
	name := c.nextName(role)
	stage := 0
	found := false
	for _, p := range c.procs {
		if p.spec.Role == role && !found {
			stage, found = p.stage, true
		}
		if !found {
			stage = max(stage, p.stage)
		}
	}
	serial := false
	for _, p := range c.procs {
		if p.stage == stage {
			serial = p.serial
		}
	}
	live := c.liveLocked()
	c.mu.Unlock()
	l := newLayout(c.dir, nil)
	ns, err := el.Grow(l, live, role, name)
	l.release()
	if err != nil {
		return Node{}, fmt.Errorf("cluster: add a %s to %s: %w", role, c.system, err)
	}
	st := Stage{Name: "add " + name, StopOneByOne: serial}
	if err := c.spawnNode(ctx, stage, st, ns, true); err != nil {
		return Node{}, err
	}
	c.mu.Lock()
	p := c.procs[len(c.procs)-1]
	c.mu.Unlock()
	rctx, cancel := context.WithTimeout(ctx, c.opts.readyTimeout(st))
	defer cancel()
	if err := waitReady(rctx, p, st.Name, ns.Ready); err != nil {
		return p.node, err
	}
	return p.node, nil
}

// RemoveNode takes a node out of the running cluster (the recipe's Shrink)
// and stops it. Its data dir goes with the cluster's at Down.
func (c *Cluster) RemoveNode(ctx context.Context, name string) error {
	el, ok := c.recipe.(Elastic)
	if !ok {
		return fmt.Errorf("%w (%s)", ErrNotElastic, c.system)
	}
	c.mu.Lock()
	var p *proc
	for _, q := range c.procs {
		if q.spec.Name == name {
			p = q
		}
	}
	live := c.liveLocked()
	c.mu.Unlock()
	if p == nil {
		return fmt.Errorf("%w %q", ErrNoTarget, name)
	}
	var others []Node
	for _, n := range live {
		if n.Name != name {
			others = append(others, n)
		}
	}
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := el.Shrink(sctx, others, p.node); err != nil {
		return fmt.Errorf("cluster: remove %s: %w", name, err)
	}
	if err := c.stopProc(ctx, p); err != nil {
		return err
	}
	c.mu.Lock()
	for i, q := range c.procs {
		if q == p {
			c.procs = append(c.procs[:i], c.procs[i+1:]...)
			break
		}
	}
	c.removed = append(c.removed, p)
	c.mu.Unlock()
	return nil
}

// liveLocked are the nodes whose process runs; c.mu is held.
func (c *Cluster) liveLocked() []Node {
	var out []Node
	for _, n := range c.nodesLocked() {
		if n.Alive() {
			out = append(out, n)
		}
	}
	return out
}
