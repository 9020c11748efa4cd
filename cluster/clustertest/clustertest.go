// Package clustertest holds what the tests of cluster recipes share:
// standing a recipe up for a test and checking that its nodes are gone.
package clustertest

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/nodestat"
)

// Up starts r for a test and registers Down; a missing binary skips the
// test unless DBRIG_REQUIRE_SERVERS=1 (scripts/test installs the servers).
func Up(t *testing.T, r cluster.Recipe, opts cluster.Options) *cluster.Cluster {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	start := time.Now()
	c, err := cluster.Up(ctx, r, opts)
	var missing *cluster.BinaryMissingError
	if errors.As(err, &missing) && os.Getenv("DBRIG_REQUIRE_SERVERS") != "1" {
		t.Skipf("SKIPPED: %v", err)
	}
	if err != nil {
		t.Fatalf("Up: %v", err)
	}
	t.Logf("%s up and ready in %v (dir %s)", r.System(), time.Since(start).Round(time.Millisecond), c.Dir())
	for _, n := range c.Nodes() {
		t.Logf("  %s %s pid %d ports %v version %q", n.Name, n.Role, n.PID, n.Ports, n.Version)
	}
	t.Cleanup(func() { c.Down(context.Background()) })
	return c
}

// Down stops c, timing it, and checks no node's process is left.
func Down(t *testing.T, c *cluster.Cluster) {
	t.Helper()
	nodes := c.Nodes()
	start := time.Now()
	if err := c.Down(context.Background()); err != nil {
		t.Fatalf("Down: %v", err)
	}
	t.Logf("%s down in %v", c.System(), time.Since(start).Round(time.Millisecond))
	AssertGone(t, nodes, 0)
	if _, err := os.Stat(c.Dir()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("cluster dir %s still there after Down (err %v)", c.Dir(), err)
	}
}

// AssertGone waits up to d for every node's PID (and process group) to be
// gone from /proc.
func AssertGone(t *testing.T, nodes []cluster.Node, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for _, n := range nodes {
		for {
			_, err := (nodestat.Proc{}).Stat(n.PID)
			gone := errors.Is(err, nodestat.ErrGone)
			g, _ := (nodestat.Proc{}).Group(n.PID)
			if gone && len(g) == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Errorf("node %s: pid %d still running (stat err %v, group %v)", n.Name, n.PID, err, g)
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}

// Cmdline is a process's command line.
func Cmdline(t *testing.T, pid int) []string {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(string(b), "\x00")
}
