package experiment

import (
	"context"
	"fmt"

	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/inject"
	"github.com/dbrig/dbrig/scenario"
	"github.com/dbrig/dbrig/spec"
)

// routed tells whether a plan's faults need the network routed through
// proxies.
func routed(faults []scenario.Injection) bool {
	for _, f := range faults {
		if inject.Network(f.Fault.Name()) {
			return true
		}
	}
	return false
}

// upRouted stands the plan's cluster up like up, with its client traffic
// through proxies when the plan has faults (and peer traffic too when a
// network fault needs it); the driver's properties then name the
// client proxies. The returned network (nil when not routed) is closed by
// the caller after the cluster is down.
func (p *Plan) upRouted(ctx context.Context, h Hooks) (*cluster.Cluster, *scenario.Network, error) {
	if len(p.Faults) == 0 {
		c, err := p.up(ctx, h)
		return c, nil, err
	}
	// Any fault: the driver goes through a client proxy per node, which
	// counts what each node served (traffic.go); network faults also route
	// the peer traffic the recipe can.
	nw := scenario.NewNetwork(p.Config.Seed)
	orig := p.Cluster.Recipe
	if routed(p.Faults) {
		r, _ := cluster.WithAdvertiser(orig, nw)
		p.Cluster.Recipe = r
	}
	c, err := p.up(ctx, h)
	p.Cluster.Recipe = orig
	if err != nil {
		nw.Close()
		return nil, nil, err
	}
	nw.Known(c)
	props, err := nw.Front(c.Nodes(), c.Props())
	if err != nil {
		c.Down(context.WithoutCancel(ctx))
		nw.Close()
		return nil, nil, fmt.Errorf("route the cluster's traffic through dbrig's proxies: %w", err)
	}
	for k, v := range props {
		p.Props.Set(k, v, spec.Source{Flag: "cluster"})
	}
	p.SpecText = p.Props.Text()
	return c, nw, nil
}
