package inject

import (
	"context"
	"errors"
	"fmt"
)

// Membership changes who is in a running cluster: what the elasticity
// faults act on (dbrig's local clusters, through package experiment).
type Membership interface {
	// AddNode starts one more node of a role, joined to the cluster, and
	// returns once it is ready: its name.
	AddNode(ctx context.Context, role string) (string, error)
	// RemoveNode takes a node out of the cluster (etcd: member remove)
	// and stops it.
	RemoveNode(ctx context.Context, name string) error
}

// ErrNoMembership is returned when a target has no cluster whose
// membership dbrig can change.
var ErrNoMembership = errors.New("the cluster cannot add or remove nodes")

// AddNode adds a node of Role to the cluster (etcd: member add, then the
// new member starts with the cluster's state; Redis: a replica of the
// primary). It is instantaneous: the cluster keeps its new size.
type AddNode struct{ Role string }

// Name implements Fault.
func (AddNode) Name() string { return "add-node" }

// Inject implements Fault.
func (a AddNode) Inject(ctx context.Context, t Target) error {
	if t.Members == nil {
		return ErrNoMembership
	}
	name, err := t.Members.AddNode(ctx, a.Role)
	if err != nil {
		return fmt.Errorf("add a %s: %w", a.Role, err)
	}
	t.note("added " + name)
	return nil
}

// Heal implements Fault: the added node stays.
func (AddNode) Heal(context.Context, Target) error { return ErrNoHeal }

// RemoveNode takes the target nodes out of the cluster and stops them.
type RemoveNode struct{}

// Name implements Fault.
func (RemoveNode) Name() string { return "remove-node" }

// Inject implements Fault.
func (RemoveNode) Inject(ctx context.Context, t Target) error {
	if t.Members == nil {
		return ErrNoMembership
	}
	var errs []error
	for _, n := range t.Nodes {
		if err := t.Members.RemoveNode(ctx, n); err != nil {
			errs = append(errs, fmt.Errorf("remove %s: %w", n, err))
		}
	}
	return errors.Join(errs...)
}

// Heal implements Fault: a removed node stays out.
func (RemoveNode) Heal(context.Context, Target) error { return ErrNoHeal }

// note reports what a fault did beyond its target (the name of an added
// node), when the caller asked.
func (t Target) note(s string) {
	if t.Note != nil {
		t.Note(s)
	}
}
