package analysis

import (
	"math"
	"testing"
	"time"

	"github.com/dbrig/dbrig/results"
)

func TestNodeCharts(t *testing.T) {
	run := Run{Metrics: []results.Metric{
		{Node: "dbrig", T: time.Second, CPUUser: 30, RSS: 2 << 20},
		{Node: "etcd2", T: time.Second, CPUUser: 10, CPUSys: 5, RSS: 1 << 20, WriteBytes: 3 << 20, CtxSwitches: 7},
		{Node: "etcd1", T: 1010 * time.Millisecond, CPUUser: 40},
		{Node: "etcd2", T: 2 * time.Second, CPUUser: 20},
		{Node: "etcd2", T: 3 * time.Second, Gone: true},
	}}
	charts := nodeCharts([]Run{run}, nil, nil, 0)
	if len(charts) != len(NodeChartIDs()) {
		t.Fatalf("%d charts, want %d", len(charts), len(NodeChartIDs()))
	}
	cpu := charts[0]
	if cpu.ID != "node-cpu" || len(cpu.X) != 3 || cpu.X[0] != 1 || cpu.X[1] != 1.01 || cpu.X[2] != 2 {
		t.Fatalf("cpu chart %s x %v", cpu.ID, cpu.X)
	}
	labels := []string{}
	for _, l := range cpu.Lines {
		labels = append(labels, l.Label)
	}
	if len(labels) != 3 || labels[0] != "etcd1" || labels[1] != "etcd2" || labels[2] != "dbrig" || !cpu.Lines[2].Dash {
		t.Errorf("lines %v: want the nodes by name, then dbrig dashed", labels)
	}
	etcd2 := cpu.Lines[1].Y
	if etcd2[0] != 15 || !math.IsNaN(float64(etcd2[1])) || etcd2[2] != 20 {
		t.Errorf("etcd2 cpu %v, want 15 (user+sys), a gap, 20", etcd2)
	}
	if w := charts[2].Lines[1].Y[0]; w != 3 {
		t.Errorf("etcd2 writes %v MiB/s, want 3", w)
	}
	if nodeCharts([]Run{{}}, nil, nil, 0) != nil {
		t.Error("charts for a run without metrics")
	}
}
