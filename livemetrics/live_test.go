package livemetrics

import (
	"os/exec"
	"testing"
	"time"

	"github.com/dbrig/dbrig/cluster"
)

// TestNodesSampled: a node dbrig started (here a child process) shows up
// with its CPU and memory, beside dbrig itself.
func TestNodesSampled(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Skipf("no sleep to stand for a node: %v", err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	l, err := Start(Options{Addr: "127.0.0.1:0", Linger: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	l.ClusterUp([]cluster.Node{{Name: "node1", PID: cmd.Process.Pid}})
	deadline := time.Now().Add(20 * time.Second)
	for {
		mfs := gather(t, l.Metrics)
		var seen []string
		for _, m := range mfs["dbrig_node_memory_rss_bytes"].GetMetric() {
			if m.GetGauge().GetValue() > 0 {
				seen = append(seen, m.GetLabel()[0].GetValue())
			}
		}
		if len(seen) == 2 {
			return // node1 and dbrig
		}
		if time.Now().After(deadline) {
			t.Fatalf("nodes with memory after 20s: %v, want node1 and dbrig", seen)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
