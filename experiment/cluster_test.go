package experiment

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// needEtcd skips (or fails under the test script) without an etcd binary.
func needEtcd(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("etcd"); err != nil {
		if os.Getenv("DBRIG_REQUIRE_SERVERS") == "1" {
			t.Fatalf("etcd: %v", err)
		}
		t.Skipf("SKIPPED: etcd is not installed (apt-get install etcd-server)")
	}
}

// The cluster of a resolved file is laid out: every node with every port,
// the file's fixed ports among them, so what --dry-run prints is what runs.
func TestClusterPlanPorts(t *testing.T) {
	needEtcd(t)
	path := filepath.Join(t.TempDir(), "e.yaml")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fixed := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	writeExp(t, path, fmt.Sprintf("    ports:\n      etcd2.client: %d\n", fixed))
	b, err := ResolveBench(path, BenchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cp := b.Runs[0].Plan.Cluster
	if len(cp.Nodes) != 3 || len(cp.Ports) != 6 || cp.Ports["etcd2.client"] != fixed || cp.Nodes[1].Ports["client"] != fixed {
		t.Fatalf("nodes %+v, ports %v", cp.Nodes, cp.Ports)
	}
	seen := map[int]bool{}
	for _, n := range cp.Nodes {
		for name, p := range n.Ports {
			if p <= 0 || seen[p] || cp.Ports[n.Name+"."+name] != p {
				t.Errorf("%s.%s = %d: zero, twice, or not in Ports %v", n.Name, name, p, cp.Ports)
			}
			seen[p] = true
		}
	}
}

// Bad ports are refused at resolve time, at their file:line:column.
func TestClusterPlanBadPorts(t *testing.T) {
	needEtcd(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	busy := ln.Addr().(*net.TCPAddr).Port
	ln2, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	free := ln2.Addr().(*net.TCPAddr).Port
	ln2.Close()
	for _, tc := range []struct {
		name, ports, want string
	}{
		{"in use", fmt.Sprintf("      etcd2.client: %d\n", busy), fmt.Sprintf("e.yaml:18:21: system.cluster.ports.etcd2.client: cluster: port %d given for etcd2.client cannot be used", busy)},
		{"not a number", "      etcd1.peer: 2380x\n", `e.yaml:18:19: system.cluster.ports.etcd1.peer: expected a TCP port 1-65535, got "2380x"`},
		{"out of range", "      etcd1.peer: 0\n", `e.yaml:18:19: system.cluster.ports.etcd1.peer: expected a TCP port 1-65535`},
		{"no such node", "      etcd7.client: 4000\n", "e.yaml:18:21: system.cluster.ports.etcd7.client: cluster: no node has port etcd7.client (this cluster's ports: etcd1.client, etcd1.peer,"},
		{"no port name", "      etcd1: 4000\n", "e.yaml:18:14: system.cluster.ports.etcd1: expected a key node.port"},
		{"twice", fmt.Sprintf("      etcd1.client: %[1]d\n      etcd2.client: %[1]d\n", free), fmt.Sprintf("system.cluster.ports.etcd2.client: cluster: port %d given for etcd2.client cannot be used: given to another node", free)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "e.yaml")
			writeExp(t, path, "    ports:\n"+tc.ports)
			_, err := ResolveBench(path, BenchOptions{})
			if err == nil || !strings.Contains(err.Error(), tc.want) || !IsInput(err) {
				t.Fatalf("err %v (input %v), want bad input containing %q", err, IsInput(err), tc.want)
			}
		})
	}
}

// A CPU list that does not parse, or names a CPU this machine lacks, is
// bad input at its file:line:column; a good one reaches the plan.
func TestClusterPlanCPUs(t *testing.T) {
	needEtcd(t)
	for _, tc := range []struct{ name, line, want string }{
		{"syntax", "    cpus: 1-x\n", `e.yaml:17:11: system.cluster.cpus: cpu list "1-x": "x" is not a CPU number`},
		{"backwards", "    cpus: 3-1\n", `e.yaml:17:11: system.cluster.cpus: cpu list "3-1": range 3-1 runs backwards`},
		{"missing CPU", "    cpus: 1000\n", `e.yaml:17:11: system.cluster.cpus: cpuset: CPU 1000 is not among this machine's usable CPUs`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "e.yaml")
			writeExp(t, path, tc.line)
			_, err := ResolveBench(path, BenchOptions{})
			if err == nil || !strings.Contains(err.Error(), tc.want) || !IsInput(err) {
				t.Fatalf("err %v (input %v), want bad input containing %q", err, IsInput(err), tc.want)
			}
		})
	}
	path := filepath.Join(t.TempDir(), "e.yaml")
	writeExp(t, path, "    cpus: \"0\"\n")
	b, err := ResolveBench(path, BenchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := b.Runs[0].Plan.Cluster.CPUs; got.String() != "0" {
		t.Errorf("plan CPUs %q, want 0", got)
	}
}

// A binary that is not there is bad input at its file:line:column, saying
// how to get it, before anything starts.
func TestClusterPlanBinaryMissing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "e.yaml")
	writeExp(t, path, "    binary: /nonexistent/etcd-3.6\n")
	_, err := ResolveBench(path, BenchOptions{})
	if err == nil || !IsInput(err) || !strings.Contains(err.Error(), "e.yaml:17:13: system.cluster.binary: cluster: etcd: binary /nonexistent/etcd-3.6 not found") ||
		!strings.Contains(err.Error(), "scripts/build-etcd.sh") {
		t.Fatalf("err %v", err)
	}
}

// writeExp writes a three-member etcd experiment with extra lines under
// system.cluster (starting at line 17).
func writeExp(t *testing.T, path, cluster string) {
	t.Helper()
	text := `name: e
tags: [t]
seed: 1
system:
  driver: etcd
  cluster:
    recipe: etcd
    nodes: 3
` + cluster + `dataset:
  records: 10
workload:
  files: [workloada]
load:
  clients: 1
  duration: 1s
`
	// Line numbers in the table: pad so system.cluster's extra lines start at 17.
	text = strings.Repeat("# padding\n", 8) + text
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A port picked at resolve time and taken since (by another process) is
// picked again, with a warning; the run goes on.
func TestClusterUpRepicksTakenPort(t *testing.T) {
	needEtcd(t)
	path := filepath.Join(t.TempDir(), "e.yaml")
	writeExp(t, path, "")
	b, err := ResolveBench(path, BenchOptions{Sets: []string{"system.cluster.nodes=1"}})
	if err != nil {
		t.Fatal(err)
	}
	p := b.Runs[0].Plan
	taken := p.Cluster.Ports["etcd1.client"]
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", taken))
	if err != nil {
		t.Skipf("the planned port %d went elsewhere already: %v", taken, err)
	}
	defer ln.Close()
	var warned []error
	c, err := p.up(context.Background(), Hooks{Warn: func(err error) { warned = append(warned, err) }})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Down(context.Background())
	n := c.Nodes()[0]
	if n.Ports["client"] == taken || len(warned) != 1 || !strings.Contains(warned[0].Error(), fmt.Sprintf("port %d, free when the plan was made, is taken now", taken)) {
		t.Errorf("client port %d (taken %d), warnings %v", n.Ports["client"], taken, warned)
	}
	if err := c.Down(context.Background()); err != nil {
		t.Fatal(err)
	}
}
