package analysis

import (
	"sort"
	"time"

	"github.com/dbrig/dbrig/results"
)

// ReplicaLag is how far a PostgreSQL replica fell behind its primary around
// a fault, from the run's samples of its lag (results.GaugeReplayLag, bytes
// of WAL not replayed yet, several times a second).
type ReplicaLag struct {
	Node string
	// Normal is the most it lagged before the run's first fault: what a
	// replica of this load lags anyway.
	Normal float64
	// Max is the most it lagged from the fault until the next fault (or the
	// run's end).
	Max float64
	// CaughtUp is how long after the fault ended (its heal; the fault
	// itself for an instant one) the lag first was within Normal again; nil
	// when it was not before the window ended.
	CaughtUp *time.Duration
}

// replicaLags computes each replica's lag around a fault: baseline
// [from, firstFault), the fault's window [start, next), caught up from end.
func replicaLags(gauges []results.Gauge, from, firstFault, start, end, next time.Duration) []ReplicaLag {
	byNode := map[string]*ReplicaLag{}
	var nodes []string
	for _, g := range gauges {
		if g.Name != results.GaugeReplayLag {
			continue
		}
		l := byNode[g.Node]
		if l == nil {
			l = &ReplicaLag{Node: g.Node}
			byNode[g.Node] = l
			nodes = append(nodes, g.Node)
		}
		switch {
		case g.T >= from && g.T < firstFault:
			l.Normal = max(l.Normal, g.Value)
		case g.T >= start && g.T < next:
			l.Max = max(l.Max, g.Value)
		}
	}
	sort.Strings(nodes)
	var out []ReplicaLag
	for _, n := range nodes {
		l := byNode[n]
		for _, g := range gauges { // in time order
			if g.Node == n && g.Name == results.GaugeReplayLag && g.T >= end && g.T < next && g.Value <= l.Normal {
				d := g.T - end
				l.CaughtUp = &d
				break
			}
		}
		out = append(out, *l)
	}
	return out
}
