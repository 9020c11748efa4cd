package livemetrics

import (
	"net"
	"os/exec"
	"strings"
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

// TestListenLoopbackUnlessNamed: no host means 127.0.0.1; a host other
// machines reach is taken with serve's warning.
func TestListenLoopbackUnlessNamed(t *testing.T) {
	for _, tc := range []struct {
		addr string
		warn bool
	}{{"0", false}, {":0", false}, {"127.0.0.1:0", false}, {"[::1]:0", false}, {"0.0.0.0:0", true}} {
		var log strings.Builder
		l, err := Start(Options{Addr: tc.addr, Log: &log, Linger: -1})
		if err != nil {
			if tc.addr == "[::1]:0" {
				continue // no IPv6 here
			}
			t.Fatalf("%s: %v", tc.addr, err)
		}
		ta, _ := l.Addr().(*net.TCPAddr)
		l.Close()
		if warned := strings.Contains(log.String(), "reachable from other machines"); warned != tc.warn || ta == nil || ta.IP.IsLoopback() == tc.warn {
			t.Errorf("--metrics %s: listened on %v, warned %v; want loopback %v, warned %v (%q)", tc.addr, l.Addr(), warned, !tc.warn, tc.warn, log.String())
		}
	}
	for _, bad := range []string{"localhost", "a:b", "1.2.3.4:70000", ""} {
		if _, err := ListenAddr(bad); err == nil {
			t.Errorf("ListenAddr(%q): no error", bad)
		}
	}
}
