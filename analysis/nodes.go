package analysis

import (
	"sort"

	"github.com/dbrig/dbrig/results"
)

// KindNode charts show what the processes did (one line per node and dbrig
// itself), on the same time axis as the latency charts.
const KindNode = "node"

// nodeMetrics are the per-node charts: a title, a unit and the figure.
var nodeMetrics = []struct {
	id, title, unit string
	of              func(results.Metric) float64
}{
	{"cpu", "CPU per node", "% of one core", func(m results.Metric) float64 { return m.CPUUser + m.CPUSys }},
	{"rss", "memory (RSS) per node", "MiB", func(m results.Metric) float64 { return float64(m.RSS) / (1 << 20) }},
	{"write", "disk writes per node", "MiB/s", func(m results.Metric) float64 { return float64(m.WriteBytes) / (1 << 20) }},
	{"ctx", "context switches per node", "per second", func(m results.Metric) float64 { return float64(m.CtxSwitches) }},
}

// NodeChartIDs lists the ids of the node charts, in order.
func NodeChartIDs() []string {
	ids := make([]string, len(nodeMetrics))
	for i, m := range nodeMetrics {
		ids[i] = ChartID(KindNode, m.id)
	}
	return ids
}

// nodeCharts draws each metric with one line per run and node, x in seconds
// since the run's start (a sample covers the second before it). None when
// no run has metrics.
func nodeCharts(runs []Run, bands []Band, marks []Mark, xmax float64) []Chart {
	multi := len(runs) > 1
	type key struct {
		run  int
		node string
	}
	var keys []key
	xsSet := map[float64]bool{}
	points := map[key]map[float64]results.Metric{}
	for i, r := range runs {
		for _, m := range r.Metrics {
			if m.Gone {
				continue
			}
			k := key{i, m.Node}
			if points[k] == nil {
				points[k] = map[float64]results.Metric{}
				keys = append(keys, k)
			}
			x := float64(m.T.Milliseconds()) / 1000
			points[k][x] = m
			xsSet[x] = true
		}
	}
	if len(keys) == 0 {
		return nil
	}
	sort.SliceStable(keys, func(a, b int) bool {
		if keys[a].run != keys[b].run {
			return keys[a].run < keys[b].run
		}
		// dbrig, the load generator, last: the system's nodes come first.
		if (keys[a].node == "dbrig") != (keys[b].node == "dbrig") {
			return keys[b].node == "dbrig"
		}
		return keys[a].node < keys[b].node
	})
	x := axisOf(xsSet)
	xs := make([]float64, len(x))
	for i, v := range x {
		xs[i] = float64(v)
		xmax = max(xmax, xs[i])
	}
	var out []Chart
	for _, nm := range nodeMetrics {
		c := Chart{ID: ChartID(KindNode, nm.id), Kind: KindNode, Title: nm.title, XLabel: "time since start (s)",
			YLabel: nm.unit, X: x, Bands: bands, Marks: marks, XMax: xmax, SpanGaps: true}
		for li, k := range keys {
			label := k.node
			if multi {
				label = runLabel(runs[k.run], true) + k.node
			}
			y := make([]Num, len(xs))
			for i, xv := range xs {
				y[i] = Gap()
				if m, ok := points[k][xv]; ok {
					y[i] = Num(nm.of(m))
				}
			}
			c.Lines = append(c.Lines, Line{Label: label, Color: lineColor(li), Y: y, Dash: k.node == "dbrig"})
		}
		out = append(out, c)
	}
	return out
}
