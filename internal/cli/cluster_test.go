package cli

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/results"
)

// downOnCleanup stops whatever the state file records when the test ends,
// so that a failing test leaves no node running.
func downOnCleanup(t *testing.T, state string) {
	t.Cleanup(func() {
		if s, err := cluster.ReadState(state); err == nil {
			s.Down(context.Background(), state, time.Second)
		}
	})
}

// dbrig cluster up, status, a run against it, logs, down: end to end with
// etcd, the nodes outliving the command that started them.
func TestClusterCommands(t *testing.T) {
	needBinary(t, "etcd")
	ctx := context.Background()
	state := filepath.Join(t.TempDir(), "state", "cluster.json")
	downOnCleanup(t, state)

	start := time.Now()
	code, out, errOut := dbrig(t, ctx, "cluster", "up", "etcd", "--nodes", "3", "--state", state)
	if code != 0 {
		t.Fatalf("up: exit %d\n%s%s", code, out, errOut)
	}
	t.Logf("up in %v:\n%s", time.Since(start).Round(time.Millisecond), out)
	m := regexp.MustCompile(`-p etcd\.endpoints=(\S+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("up printed no etcd.endpoints:\n%s", out)
	}
	s, err := cluster.ReadState(state)
	if err != nil || len(s.Nodes) != 3 {
		t.Fatalf("state: %+v, %v", s, err)
	}

	code, out, _ = dbrig(t, ctx, "cluster", "status", "--state", state)
	if code != 0 || strings.Count(out, "  alive  ") != 3 || !strings.Contains(out, "3 of 3 nodes alive") {
		t.Fatalf("status: exit %d\n%s", code, out)
	}

	store := filepath.Join(t.TempDir(), "r.db")
	code, out, errOut = dbrig(t, ctx, "run", "--driver", "etcd", "-p", "etcd.endpoints="+m[1], "--store", store,
		"--quiet", "-P", "workloada", "-p", "recordcount=200", "--duration", "1s", "--clients", "4")
	if code != 0 {
		t.Fatalf("run against the cluster: exit %d\n%s%s", code, out, errOut)
	}
	if runs, err := openStore(t, store).ListRuns(ctx, results.Filter{}); err != nil || len(runs) != 1 || runs[0].Count == 0 {
		t.Fatalf("runs %+v, %v", runs, err)
	}

	code, out, _ = dbrig(t, ctx, "cluster", "logs", "etcd2", "-n", "5", "--state", state)
	if lines := strings.Split(strings.TrimSpace(out), "\n"); code != 0 || len(lines) != 5 {
		t.Fatalf("logs: exit %d, %d lines\n%s", code, len(lines), out)
	}

	start = time.Now()
	code, out, errOut = dbrig(t, ctx, "cluster", "down", "--state", state)
	if code != 0 {
		t.Fatalf("down: exit %d\n%s%s", code, out, errOut)
	}
	t.Logf("down in %v: %s", time.Since(start).Round(time.Millisecond), out)
	for _, n := range s.Nodes {
		if alive(n.PID) {
			t.Errorf("node %s (pid %d) still runs after down", n.Name, n.PID)
		}
	}
	if _, err := os.Stat(state); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("state file left after down: %v", err)
	}
	if _, err := os.Stat(s.Dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("cluster dir %s left after down: %v", s.Dir, err)
	}
	code, out, _ = dbrig(t, ctx, "cluster", "status", "--state", state)
	if code != 0 || !strings.Contains(out, "no cluster is up") {
		t.Errorf("status after down: exit %d\n%s", code, out)
	}
}

// Bad input is exit code 2 with a message saying what is wrong, and starts
// nothing; so is a second up while a cluster is up.
func TestClusterCommandsBadInput(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "cluster.json")
	downOnCleanup(t, state)
	example := filepath.Join("..", "..", "examples", "etcd-cluster.yaml")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown recipe", []string{"up", "mongodb"}, `no local cluster recipe "mongodb"`},
		{"option the recipe lacks", []string{"up", "redis", "--nodes", "3"}, "--nodes: redis has a primary and replicas"},
		{"mariadb has one server", []string{"up", "mariadb", "--replicas", "1"}, "--replicas: the mariadb recipe is one server"},
		{"flags with a file", []string{"up", example, "--nodes", "5"}, "--set system.cluster.nodes"},
		{"file without a cluster", []string{"up", filepath.Join("..", "..", "examples", "pebble-ramp.yaml")}, "no system.cluster"},
		{"no recipe", []string{"up"}, "expected one experiment file or recipe"},
		{"unknown subcommand", []string{"start"}, `unknown subcommand "start"`},
		{"logs of nothing", []string{"logs", "etcd1"}, "no cluster is up"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := dbrig(t, context.Background(), append(append([]string{"cluster"}, tc.args...), "--state", state)...)
			if code != 2 || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d, stderr %q (stdout %q), want 2 and %q", code, errOut, out, tc.want)
			}
		})
	}

	t.Run("second up", func(t *testing.T) {
		needBinary(t, "etcd")
		if code, out, errOut := dbrig(t, context.Background(), "cluster", "up", example, "--set", "system.cluster.nodes=1", "--state", state); code != 0 {
			t.Fatalf("up: exit %d\n%s%s", code, out, errOut)
		}
		code, _, errOut := dbrig(t, context.Background(), "cluster", "up", "etcd", "--state", state)
		if code != 2 || !strings.Contains(errOut, "a cluster is up already (etcd, 1 nodes alive") {
			t.Errorf("second up: exit %d, %s", code, errOut)
		}
		if code, out, errOut := dbrig(t, context.Background(), "cluster", "down", "--state", state); code != 0 {
			t.Fatalf("down: exit %d\n%s%s", code, out, errOut)
		}
	})
}
