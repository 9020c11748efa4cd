package experiment

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/results"
)

// A run with faults reaches every node through a client proxy of dbrig's
// (scenario_net.go), so the proxies can tell which node served how much:
// sampleTraffic stores, once a second, the bytes each node's client proxy
// forwarded over that second (results.NodeTraffic), from which analysis
// computes each node's share of the traffic around every fault. A driver
// that reaches nodes the proxies do not front (cluster.ProxyBypasser)
// would show only what went through, so its traffic is not sampled.

// bypassesProxies tells the clusters whose driver reaches nodes that
// dbrig's client proxies do not front.
func bypassesProxies(nodes []cluster.Node) bool {
	b, ok := nodesRecipe(nodes).(cluster.ProxyBypasser)
	return ok && b.BypassesProxies(nodes)
}

// trafficCounts are the counters of every client proxy now.
func (n *network) trafficCounts() map[string][3]int64 {
	n.mu.Lock()
	defer n.mu.Unlock()
	out := make(map[string][3]int64, len(n.client))
	for node, p := range n.client {
		up, down, conns := p.Traffic()
		out[node] = [3]int64{up, down, conns}
	}
	return out
}

// sampleTraffic stores the client proxies' traffic once a second until
// stopped (one last sample then).
func sampleTraffic(ctx context.Context, store *results.Store, runID int64, nw *network, nodes []cluster.Node, fail func(error)) (stop func()) {
	if nw == nil || bypassesProxies(nodes) {
		return func() {}
	}
	prev := nw.trafficCounts()
	sample := func(now time.Time) {
		cur := nw.trafficCounts()
		var rows []results.NodeTraffic
		for _, node := range sortedKeys(cur) {
			c, p := cur[node], prev[node]
			rows = append(rows, results.NodeTraffic{Node: node, Time: now, BytesUp: c[0] - p[0], BytesDown: c[1] - p[1], Conns: c[2] - p[2]})
		}
		prev = cur
		if err := store.AddNodeTraffic(context.WithoutCancel(ctx), runID, rows); err != nil {
			fail(fmt.Errorf("store node traffic: %w", err))
		}
	}
	sctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-sctx.Done():
				sample(time.Now())
				return
			case now := <-tick.C:
				sample(now)
			}
		}
	}()
	return func() { cancel(); wg.Wait() }
}
