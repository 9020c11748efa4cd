package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/internal/testenv"
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
	code, out, errOut := dbrig(t, ctx, "cluster", "up", "etcd", "--nodes", "3", "--cpus", "0", "--state", state)
	if code != 0 {
		t.Fatalf("up: exit %d\n%s%s", code, out, errOut)
	}
	t.Logf("up in %v:\n%s", time.Since(start).Round(time.Millisecond), out)
	m := regexp.MustCompile(`-p etcd\.endpoints=(\S+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("up printed no etcd.endpoints:\n%s", out)
	}
	s, err := cluster.ReadState(state)
	if err != nil || len(s.Nodes) != 3 || s.CPUs != "0" {
		t.Fatalf("state: %+v, %v", s, err)
	}

	code, out, _ = dbrig(t, ctx, "cluster", "status", "--state", state)
	if code != 0 || strings.Count(out, "  alive  ") != 3 || !strings.Contains(out, "3 of 3 nodes alive, pinned to CPUs 0") {
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
		{"port flag with a file", []string{"up", example, "--port", "etcd1.client=2379"}, "--set system.cluster.ports.NODE.NAME"},
		{"file without a cluster", []string{"up", filepath.Join("..", "..", "examples", "pebble-ramp.yaml")}, "no system.cluster"},
		{"no recipe", []string{"up"}, "expected one experiment file or recipe"},
		{"unknown subcommand", []string{"start"}, `unknown subcommand "start"`},
		{"logs of nothing", []string{"logs", "etcd1"}, "no cluster is up"},
		{"env of nothing", []string{"env"}, "no cluster is up"},
		{"port not a number", []string{"up", "etcd", "--port", "etcd1.client=x"}, `--port "etcd1.client=x": expected NODE.NAME=PORT`},
		{"port without name", []string{"up", "etcd", "--port", "etcd1=2379"}, `--port "etcd1=2379": expected NODE.NAME=PORT`},
		{"port out of range", []string{"up", "etcd", "--port", "etcd1.client=70000"}, "a port 1-65535"},
		{"database for etcd", []string{"up", "etcd", "--database", "x"}, "--database: the etcd recipe has no databases"},
		{"bad database name", []string{"up", "postgres", "--database", "Robert'); DROP"}, `--database "Robert'); DROP": expected lower-case`},
		{"password env unset", []string{"up", "redis", "--password-env", "DBRIG_TEST_NO_SUCH_VAR"}, "--password-env DBRIG_TEST_NO_SUCH_VAR: the variable is not set"},
		{"password for etcd", []string{"up", "etcd", "--password-env", "HOME"}, "--password-env: the etcd recipe has no password"},
		{"bad env prefix", []string{"env", "--prefix", "1X"}, `--prefix "1X"`},
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
		if code != 2 || !strings.Contains(errOut, "a cluster is up already (etcd, 1 of 1 nodes alive") || !strings.Contains(errOut, "its nodes are etcd1, not etcd1, etcd2, etcd3") {
			t.Errorf("second up: exit %d, %s", code, errOut)
		}
		if code, out, errOut := dbrig(t, context.Background(), "cluster", "down", "--state", state); code != 0 {
			t.Fatalf("down: exit %d\n%s%s", code, out, errOut)
		}
	})
}

// The test servers' way (scripts/test-servers): a fixed port, a password
// from the environment; up again is a no-op, up with another port an
// error; env prints export lines a shell evals to the very password, which
// up never prints; down stops every node by PID.
func TestClusterUpEnvRedisPassword(t *testing.T) {
	needBinary(t, "redis-server")
	ctx := context.Background()
	state := filepath.Join(t.TempDir(), "redis.json")
	downOnCleanup(t, state)
	const pw = `Rd5 "Xq7vLm2" p@ss:w0rd's $HOME ` + "`id`"
	t.Setenv("DBRIG_TEST_CLUSTER_PW", pw)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	args := []string{"cluster", "up", "redis", "--port", fmt.Sprintf("redis-primary.client=%d", port),
		"--password-env", "DBRIG_TEST_CLUSTER_PW", "--state", state}
	code, out, errOut := dbrig(t, ctx, args...)
	if code != 0 {
		t.Fatalf("up: exit %d\n%s%s", code, out, errOut)
	}
	if leak := testenv.Leak(out+errOut, pw); leak != "" {
		t.Errorf("up printed the password (%q):\n%s", leak, out)
	}
	if !strings.Contains(out, fmt.Sprintf("127.0.0.1:%d", port)) || !strings.Contains(out, "redis.password=REDACTED") {
		t.Errorf("up output:\n%s", out)
	}
	s, err := cluster.ReadState(state)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(state); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("state file mode %v (%v), want 0600", st.Mode(), err)
	}
	// The state file names where the password came from, never the password.
	if b, err := os.ReadFile(state); err != nil || testenv.Leak(string(b), pw) != "" || !strings.Contains(string(b), "DBRIG_TEST_CLUSTER_PW") {
		t.Errorf("state file (%v) holds the password or not its variable:\n%s", err, b)
	}

	code, out, errOut = dbrig(t, ctx, args...)
	if code != 0 || !strings.Contains(out, "is up already") || !strings.Contains(out, "nothing to do") {
		t.Errorf("second up: exit %d\n%s%s", code, out, errOut)
	}
	if s2, _ := cluster.ReadState(state); s2.Nodes[0].PID != s.Nodes[0].PID {
		t.Errorf("second up restarted the node: pid %d, was %d", s2.Nodes[0].PID, s.Nodes[0].PID)
	}
	other := append(append([]string(nil), args[:4]...), fmt.Sprintf("redis-primary.client=%d", port+1))
	other = append(other, args[5:]...)
	code, _, errOut = dbrig(t, ctx, other...)
	if code != 2 || !strings.Contains(errOut, fmt.Sprintf("redis-primary.client is on port %d, not %d", port, port+1)) {
		t.Errorf("up with another port: exit %d, %s", code, errOut)
	}

	code, out, errOut = dbrig(t, ctx, "cluster", "env", "--state", state)
	if code != 0 {
		t.Fatalf("env: exit %d\n%s%s", code, out, errOut)
	}
	// A shell that evals the lines has the address and the very password.
	sh := exec.Command("bash", "-c", `eval "$1" && printf '%s\n%s' "$DBRIG_REDIS_ADDR" "$DBRIG_REDIS_PASSWORD"`, "bash", out)
	got, err := sh.Output()
	if err != nil {
		t.Fatalf("eval of env output failed: %v\n%s", err, out)
	}
	if want := fmt.Sprintf("127.0.0.1:%d\n%s", port, pw); string(got) != want {
		t.Errorf("after eval: %q, want %q", got, want)
	}
	code, out, _ = dbrig(t, ctx, "cluster", "env", "--prefix", "X_", "--state", state)
	if code != 0 || !strings.Contains(out, "export X_REDIS_ADDR=") {
		t.Errorf("env --prefix: exit %d\n%s", code, out)
	}
	// Without the variable, env cannot derive the password: bad input, and
	// nothing on stdout.
	t.Setenv("DBRIG_TEST_CLUSTER_PW", "")
	code, out, errOut = dbrig(t, ctx, "cluster", "env", "--state", state)
	if code != 2 || out != "" || !strings.Contains(errOut, "$DBRIG_TEST_CLUSTER_PW (--password-env), which is not set here") {
		t.Errorf("env without the password's variable: exit %d, stdout %q, stderr %q", code, out, errOut)
	}

	code, out, errOut = dbrig(t, ctx, "cluster", "down", "--state", state)
	if code != 0 {
		t.Fatalf("down: exit %d\n%s%s", code, out, errOut)
	}
	if alive(s.Nodes[0].PID) {
		t.Errorf("redis (pid %d) still runs after down", s.Nodes[0].PID)
	}
	code, out, errOut = dbrig(t, ctx, "cluster", "env", "--state", state)
	if code != 2 || out != "" || !strings.Contains(errOut, "no cluster is up") {
		t.Errorf("env after down: exit %d, stdout %q (must be empty: it is eval'd), stderr %q", code, out, errOut)
	}
}

// --dry-run lists every node with every port, and a port another process
// holds at run time is refused before anything starts.
func TestBenchDryRunListsPorts(t *testing.T) {
	needBinary(t, "etcd")
	example := filepath.Join("..", "..", "examples", "etcd-cluster.yaml")
	code, out, errOut := dbrig(t, context.Background(), "bench", example, "--dry-run")
	if code != 0 {
		t.Fatalf("dry-run: exit %d\n%s%s", code, out, errOut)
	}
	re := regexp.MustCompile(`(?m)^\s+(etcd\d)\s+member\s+client 127\.0\.0\.1:(\d+), peer 127\.0\.0\.1:(\d+) \(`)
	ms := re.FindAllStringSubmatch(out, -1)
	if len(ms) != 3 {
		t.Fatalf("want 3 member lines with client and peer ports:\n%s", out)
	}
	seen := map[string]bool{}
	for i, m := range ms {
		if m[1] != fmt.Sprintf("etcd%d", i+1) || seen[m[2]] || seen[m[3]] || m[2] == "0" || m[3] == "0" {
			t.Errorf("line %q: wrong name, or a port seen before", m[0])
		}
		seen[m[2]], seen[m[3]] = true, true
	}
}
