package analysis

import (
	"sort"
	"time"

	"github.com/dbrig/dbrig/results"
)

// span is a window [from, to) since the run's start.
type span struct{ from, to time.Duration }

// NodeShare is one node's share of the traffic dbrig sent through its
// client proxies (bytes both ways, results.NodeTraffic) in each window of
// an impact: which node served how much of the load before, during and
// after a fault. −1: no traffic at all in that window.
type NodeShare struct {
	Node                    string
	Baseline, During, After float64 // % of the window's bytes
}

// dataTraffic is the traffic of the nodes that serve the data: a Sentinel
// only tells the driver where the primary is (and the driver then reaches
// the primary directly, not through the proxies), so its bytes are no share
// of the load.
func dataTraffic(traffic []results.NodeTraffic, nodes []results.Node) []results.NodeTraffic {
	skip := map[string]bool{}
	for _, n := range nodes {
		if n.Role == "sentinel" {
			skip[n.Name] = true
		}
	}
	if len(skip) == 0 {
		return traffic
	}
	var out []results.NodeTraffic
	for _, t := range traffic {
		if !skip[t.Node] {
			out = append(out, t)
		}
	}
	return out
}

// shares computes the nodes' shares in an impact's three windows (baseline,
// fault, after) from the
// per-second samples (a sample at T covers the second ending at T, and
// counts in the window that holds T − 0.5 s). Nil without samples.
func shares(traffic []results.NodeTraffic, wins [3]span) []NodeShare {
	if len(traffic) == 0 {
		return nil
	}
	var all int64
	for _, s := range traffic {
		all += s.BytesUp + s.BytesDown
	}
	if all == 0 {
		return nil // nothing went through the proxies: no share to tell
	}
	bytes := map[string]*[3]int64{}
	var total [3]int64
	for _, s := range traffic {
		if bytes[s.Node] == nil {
			bytes[s.Node] = &[3]int64{}
		}
		mid := s.T - 500*time.Millisecond
		for i, w := range wins {
			if mid >= w.from && mid < w.to {
				b := s.BytesUp + s.BytesDown
				bytes[s.Node][i] += b
				total[i] += b
			}
		}
	}
	var out []NodeShare
	for node, b := range bytes {
		sh := NodeShare{Node: node}
		for i, dst := range []*float64{&sh.Baseline, &sh.During, &sh.After} {
			*dst = -1
			if total[i] > 0 {
				*dst = 100 * float64(b[i]) / float64(total[i])
			}
		}
		out = append(out, sh)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Node < out[j].Node })
	return out
}
