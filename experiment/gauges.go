package experiment

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/driver/all"
	"github.com/dbrig/dbrig/results"
	"github.com/dbrig/dbrig/spec"
)

// A run with faults samples the gauges of the cluster's recipe
// (cluster.Gauger: a PostgreSQL replica's replication lag) every
// gaugeEvery, so analysis can tell how far a cut replica fell behind and
// when it caught up after the heal.

const gaugeEvery = 200 * time.Millisecond

// nodesRecipe is the recipe, with default options, of the system the nodes
// run (a local cluster's or an attached one's), or nil: what a recipe can
// do is the same for any options.
func nodesRecipe(nodes []cluster.Node) cluster.Recipe {
	if len(nodes) == 0 {
		return nil
	}
	never := func(string) bool { return false }
	refuse := func(key, why string) error { return fmt.Errorf("%s: %s", key, why) }
	for _, d := range all.Registry() {
		if build, ok := d.Clusters[nodes[0].System]; ok {
			if r, err := build(spec.Cluster{}, never, refuse); err == nil && r.System() == nodes[0].System {
				return r
			}
		}
	}
	return nil
}

// sampleGauges stores the nodes' gauges until stopped; a no-op for a
// recipe without gauges.
func sampleGauges(ctx context.Context, store *results.Store, runID int64, nodes []cluster.Node, fail func(error)) (stop func()) {
	g, ok := nodesRecipe(nodes).(cluster.Gauger)
	if !ok {
		return func() {}
	}
	s := g.Gauges(nodes)
	if s == nil {
		return func() {}
	}
	sctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer s.Close()
		tick := time.NewTicker(gaugeEvery)
		defer tick.Stop()
		for {
			select {
			case <-sctx.Done():
				return
			case <-tick.C:
			}
			var gs []results.Gauge
			for _, r := range s.Sample(sctx, gaugeEvery) {
				gs = append(gs, results.Gauge{Node: r.Node, Name: r.Name, Time: r.Time, Value: r.Value})
			}
			if len(gs) > 0 {
				if err := store.AddGauges(context.WithoutCancel(ctx), runID, gs); err != nil {
					fail(fmt.Errorf("store gauges: %w", err))
				}
			}
		}
	}()
	return func() { cancel(); wg.Wait() }
}
