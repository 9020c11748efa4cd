package experiment

import (
	"context"
	"fmt"

	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/inject"
	"github.com/dbrig/dbrig/results"
	"github.com/dbrig/dbrig/scenario"
	"github.com/dbrig/dbrig/spec"
)

// A run carries plug-ins beside its phases: the preflight of its
// Kubernetes faults, the local cluster with the network that routes its
// traffic through dbrig's proxies, and the samplers of the nodes, of their
// traffic and of their gauges. Plan.plugins chooses them from the plan;
// Execute calls their hooks around the run, so it names none of them.

// plugin is one part of a run besides its phases.
type plugin interface {
	// setUp runs before the driver opens and anything is stored: an error
	// ends the run with nothing stored.
	setUp(ctx context.Context, s *stage) error
	// start runs once the run is stored, before its phases; the stop it
	// returns runs after them (and after the verify).
	start(ctx context.Context, s *stage) (stop func())
	// tearDown runs when Execute returns, whatever happened, if setUp
	// succeeded.
	tearDown(ctx context.Context, s *stage)
}

// stage is what a run's plug-ins share, filled in as the run goes.
type stage struct {
	p     *Plan
	h     Hooks
	warn  func(error)
	c     *cluster.Cluster  // the local cluster (nil: none)
	nw    *scenario.Network // the proxies its traffic goes through (nil: none)
	nodes []cluster.Node    // the local or attached cluster's nodes
	// Once the run is stored:
	store *results.Store
	runID int64
	fail  func(error) // a write failed: said once, the run goes on
}

// plugins are the plug-ins of a run of p, in the order they start.
func (p *Plan) plugins() []plugin {
	var ps []plugin
	if scenario.OnKubernetes(p.Faults) {
		ps = append(ps, kubePreflight{})
	}
	if p.Cluster != nil {
		ps = append(ps, localCluster{})
	}
	ps = append(ps, nodeSampler{}, trafficSampler{})
	if len(p.Faults) > 0 {
		ps = append(ps, gaugeSampler{})
	}
	return ps
}

// setUp sets every plug-in up in turn; the returned tear-down undoes those
// that were set up, last first. On an error those already set up are torn
// down at once.
func (s *stage) setUp(ctx context.Context, ps []plugin) (tearDown func(), err error) {
	done := 0
	tearDown = func() {
		for i := done - 1; i >= 0; i-- {
			ps[i].tearDown(ctx, s)
		}
	}
	for _, pl := range ps {
		if err := pl.setUp(ctx, s); err != nil {
			tearDown()
			return nil, err
		}
		done++
	}
	return tearDown, nil
}

// start starts every plug-in; the returned stop stops them in the same
// order.
func (s *stage) start(ctx context.Context, ps []plugin) (stop func()) {
	var stops []func()
	for _, pl := range ps {
		stops = append(stops, pl.start(ctx, s))
	}
	return func() {
		for _, stop := range stops {
			stop()
		}
	}
}

// idle is a plug-in's hooks that do nothing.
type idle struct{}

func (idle) setUp(context.Context, *stage) error  { return nil }
func (idle) start(context.Context, *stage) func() { return func() {} }
func (idle) tearDown(context.Context, *stage)     {}

// kubePreflight connects the scenario's Kubernetes faults to their API
// server and checks the namespace and permissions, before anything runs.
type kubePreflight struct{ idle }

func (kubePreflight) setUp(ctx context.Context, s *stage) error {
	return input(scenario.KubeStart(ctx, s.p.Faults, s.p.Config.Seed))
}

// localCluster stands the plan's cluster up (routed through dbrig's
// proxies when it has faults) and tears it down, also after Ctrl-C.
type localCluster struct{ idle }

func (localCluster) setUp(ctx context.Context, s *stage) error {
	c, nw, err := s.p.upRouted(ctx, s.h)
	if err != nil {
		return err
	}
	s.c, s.nw, s.nodes = c, nw, c.Nodes()
	return nil
}

func (localCluster) tearDown(ctx context.Context, s *stage) {
	if err := s.c.Down(context.WithoutCancel(ctx)); err != nil {
		s.warn(fmt.Errorf("tear down the %s cluster: %w", s.c.System(), err))
	}
	if s.nw != nil {
		s.nw.Close() // after the cluster is down
	}
}

// nodeSampler stores the nodes' (and dbrig's own) process metrics.
type nodeSampler struct{ idle }

func (nodeSampler) start(ctx context.Context, s *stage) func() {
	return sampleNodes(ctx, s.store, s.runID, s.nodes, s.fail)
}

// trafficSampler stores what each node's client proxy forwarded, when the
// traffic is routed (traffic.go).
type trafficSampler struct{ idle }

func (trafficSampler) start(ctx context.Context, s *stage) func() {
	return sampleTraffic(ctx, s.store, s.runID, s.nw, s.nodes, s.fail)
}

// gaugeSampler stores the recipe's gauges (gauges.go).
type gaugeSampler struct{ idle }

func (gaugeSampler) start(ctx context.Context, s *stage) func() {
	return sampleGauges(ctx, s.store, s.runID, s.nodes, s.fail)
}

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
