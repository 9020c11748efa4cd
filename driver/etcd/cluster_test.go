package etcd

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/cluster/clustertest"
	"github.com/dbrig/dbrig/driver/postgres"
	"github.com/dbrig/dbrig/driver/redis"
	"github.com/dbrig/dbrig/nodestat"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

func TestEtcdThreeMembers(t *testing.T) {
	c := clustertest.Up(t, Cluster{}, cluster.Options{Keep: os.Getenv("KEEP") != ""})
	nodes := c.Nodes()
	if len(nodes) != 3 {
		t.Fatalf("want 3 members, got %d", len(nodes))
	}
	eps := strings.Split(c.Props()["etcd.endpoints"], ",")
	if len(eps) != 3 {
		t.Fatalf("etcd.endpoints = %q", c.Props()["etcd.endpoints"])
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for i, ep := range eps {
		if !strings.HasPrefix(ep, "127.0.0.1:") {
			t.Fatalf("endpoint %s not on 127.0.0.1", ep)
		}
		cli, err := clientv3.New(clientv3.Config{Endpoints: []string{ep}, DialTimeout: 2 * time.Second, Logger: zap.NewNop()})
		if err != nil {
			t.Fatal(err)
		}
		key, val := fmt.Sprintf("k%d", i), fmt.Sprintf("v%d", i)
		if _, err := cli.Put(ctx, key, val); err != nil {
			t.Fatalf("put via %s: %v", ep, err)
		}
		// Read every key written so far through this member: replication works.
		for j := 0; j <= i; j++ {
			r, err := cli.Get(ctx, fmt.Sprintf("k%d", j))
			if err != nil || len(r.Kvs) != 1 || string(r.Kvs[0].Value) != fmt.Sprintf("v%d", j) {
				t.Fatalf("get k%d via %s: %v %v", j, ep, err, r)
			}
		}
		cli.Close()
	}
	clustertest.Down(t, c)
}

// A given port that another process holds: cluster.Up fails before starting
// anything, naming the node's port; nothing runs, nothing is written.
func TestPortInUseBeforeStart(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	for _, tc := range []struct {
		name  string
		ports map[string]int
		want  string
	}{
		{"taken by another process", map[string]int{"etcd1.client": port}, fmt.Sprintf("port %d given for etcd1.client cannot be used", port)},
		{"given twice", map[string]int{"etcd1.client": port + 1, "etcd1.peer": port + 1}, "given to another node of the cluster"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "c")
			c, err := cluster.Up(context.Background(), Cluster{Members: 1}, cluster.Options{Dir: dir, Ports: tc.ports})
			var missing *cluster.BinaryMissingError
			if errors.As(err, &missing) && os.Getenv("DBRIG_REQUIRE_SERVERS") != "1" {
				t.Skipf("SKIPPED: %v", err)
			}
			if err == nil {
				c.Down(context.Background())
				t.Fatal("Up succeeded")
			}
			var pe *cluster.PortInUseError
			if !errors.As(err, &pe) || pe.Node != "etcd1" || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("want *cluster.PortInUseError containing %q, got %T: %v", tc.want, err, err)
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 0 {
				t.Errorf("Up wrote %d entries into %s before failing", len(ents), dir)
			}
			if out, _ := exec.Command("pgrep", "-f", dir).Output(); len(out) > 0 {
				t.Errorf("processes left: %s", out)
			}
		})
	}
}

// A port key no node has (a typo) is an error naming it and the real ones.
func TestUnknownPort(t *testing.T) {
	_, _, err := cluster.Plan(Cluster{Members: 1}, map[string]int{"etcd4.client": 2379})
	var missing *cluster.BinaryMissingError
	if errors.As(err, &missing) && os.Getenv("DBRIG_REQUIRE_SERVERS") != "1" {
		t.Skipf("SKIPPED: %v", err)
	}
	var ue *cluster.UnknownPortError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "no node has port etcd4.client (this cluster's ports: etcd1.client, etcd1.peer)") {
		t.Fatalf("want *cluster.UnknownPortError, got %T: %v", err, err)
	}
}

// The ports cluster.Plan picks are the ports the cluster runs on when they are
// passed as cluster.Options.Ports: a dry run shows what runs.
func TestPlanPortsAreWhatRuns(t *testing.T) {
	planned, ports, err := cluster.Plan(Cluster{Members: 2}, nil)
	var missing *cluster.BinaryMissingError
	if errors.As(err, &missing) && os.Getenv("DBRIG_REQUIRE_SERVERS") != "1" {
		t.Skipf("SKIPPED: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(planned) != 2 || len(ports) != 4 {
		t.Fatalf("planned %+v, ports %v", planned, ports)
	}
	seen := map[int]bool{}
	for k, p := range ports {
		if p <= 0 || seen[p] {
			t.Fatalf("port %s = %d: zero or twice (%v)", k, p, ports)
		}
		seen[p] = true
	}
	c := clustertest.Up(t, Cluster{Members: 2}, cluster.Options{Ports: ports})
	for i, n := range c.Nodes() {
		if n.Name != planned[i].Name || fmt.Sprint(n.Ports) != fmt.Sprint(planned[i].Ports) {
			t.Errorf("node %d ran as %s %v, planned %s %v", i, n.Name, n.Ports, planned[i].Name, planned[i].Ports)
		}
	}
	clustertest.Down(t, c)
}

// A node that cannot start (a bad flag): the error names the node and shows
// its log; nothing is left running.
func TestNotReadyBadConfig(t *testing.T) {
	dir := t.TempDir()
	start := time.Now()
	c, err := cluster.Up(context.Background(), Cluster{Members: 1, Args: []string{"--no-such-flag-dbrig"}}, cluster.Options{Dir: dir, ReadyTimeout: 10 * time.Second})
	var missing *cluster.BinaryMissingError
	if errors.As(err, &missing) && os.Getenv("DBRIG_REQUIRE_SERVERS") != "1" {
		t.Skipf("SKIPPED: %v", err)
	}
	if err == nil {
		c.Down(context.Background())
		t.Fatal("Up succeeded with a bad flag")
	}
	t.Logf("failed in %v: %v", time.Since(start).Round(time.Millisecond), err)
	var nr *cluster.NotReadyError
	if !errors.As(err, &nr) {
		t.Fatalf("want *cluster.NotReadyError, got %T: %v", err, err)
	}
	if nr.Node != "etcd1" || !nr.Exited || len(nr.LogTail) == 0 {
		t.Errorf("error: node %q exited %v tail %d lines", nr.Node, nr.Exited, len(nr.LogTail))
	}
	if !strings.Contains(err.Error(), "no-such-flag-dbrig") {
		t.Errorf("error does not show the log's cause:\n%v", err)
	}
	if out, _ := exec.Command("pgrep", "-f", dir).Output(); len(out) > 0 {
		t.Errorf("processes left: %s", out)
	}
}

func TestBinaryMissing(t *testing.T) {
	for _, tc := range []struct {
		name  string
		r     cluster.Recipe
		path  string // $PATH for the lookup; "" leaves it
		given bool
		hint  string
	}{
		// A path the user gave: how to make that binary (another version).
		{"etcd path given", Cluster{Binary: "/nonexistent/etcd"}, "", true, "make it with `scripts/build-etcd.sh VERSION`, or correct the path"},
		{"etcd not on PATH", Cluster{}, t.TempDir(), false, "install it with `apt-get install etcd-server`"},
		{"redis not on PATH", redis.Cluster{}, t.TempDir(), false, "install it with `apt-get install redis-server`"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.path != "" {
				t.Setenv("PATH", tc.path)
			}
			_, err := cluster.Up(context.Background(), tc.r, cluster.Options{})
			var missing *cluster.BinaryMissingError
			if !errors.As(err, &missing) || missing.Given != tc.given || !strings.Contains(err.Error(), tc.hint) {
				t.Fatalf("want *cluster.BinaryMissingError (given %v) with %q, got %v", tc.given, tc.hint, err)
			}
			if !errors.Is(err, os.ErrNotExist) && !errors.Is(err, exec.ErrNotFound) {
				t.Errorf("error should wrap os.ErrNotExist or exec.ErrNotFound: %v", err)
			}
		})
	}
}

// Context cancel during cluster.Up tears down what started; StopWhenDone ties a
// running cluster to a context.
func TestCancel(t *testing.T) {
	if _, err := exec.LookPath("etcd"); err != nil && os.Getenv("DBRIG_REQUIRE_SERVERS") != "1" {
		t.Skip("SKIPPED: etcd not installed (apt-get install etcd-server)")
	}
	t.Run("during Up", func(t *testing.T) {
		dir := t.TempDir()
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		_, err := cluster.Up(ctx, Cluster{}, cluster.Options{Dir: dir})
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("want DeadlineExceeded, got %v", err)
		}
		if out, _ := exec.Command("pgrep", "-f", dir).Output(); len(out) > 0 {
			t.Errorf("processes left: %s", out)
		}
	})
	t.Run("StopWhenDone", func(t *testing.T) {
		c := clustertest.Up(t, Cluster{Members: 1}, cluster.Options{})
		ctx, cancel := context.WithCancel(context.Background())
		c.StopWhenDone(ctx)
		cancel()
		clustertest.AssertGone(t, c.Nodes(), 15*time.Second)
	})
}

// The parent is SIGKILLed (no cleanup runs): its children die with it,
// also a server started as another OS user (postgres, when root).
func TestParentKilledKillsChildren(t *testing.T) {
	for _, system := range []string{"etcd", "postgres"} {
		t.Run(system, func(t *testing.T) {
			// The helper is killed before it could clean up: its dir is ours
			// to remove. Not t.TempDir: the postgres user must reach it.
			dir, err := os.MkdirTemp("", "dbrig-helper-")
			if err != nil {
				t.Fatal(err)
			}
			defer os.RemoveAll(dir)
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelperUpAndWait$", "-test.v")
			cmd.Env = append(os.Environ(), "DBRIG_CLUSTER_HELPER="+system, "DBRIG_CLUSTER_HELPER_DIR="+dir)
			cmd.Stderr = os.Stderr
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			var nodes []cluster.Node
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				line := sc.Text()
				if pid, ok := strings.CutPrefix(line, "PID "); ok {
					n, _ := strconv.Atoi(pid)
					nodes = append(nodes, cluster.Node{Name: system + " child", PID: n})
				}
				if line == "READY" {
					break
				}
				if msg, ok := strings.CutPrefix(line, "SKIP "); ok {
					t.Skip(msg)
				}
			}
			if len(nodes) == 0 {
				t.Fatal("helper printed no PIDs")
			}
			for _, n := range nodes {
				if _, err := (nodestat.Proc{}).Stat(n.PID); err != nil {
					t.Fatalf("child %d not running before the kill: %v", n.PID, err)
				}
			}
			// The servers' own children (postgres backends) must go too.
			var all []cluster.Node
			for _, n := range nodes {
				tree, _ := (nodestat.Proc{}).Tree(n.PID)
				t.Logf("pid %d and its descendants: %v", n.PID, tree)
				for _, pid := range tree {
					all = append(all, cluster.Node{Name: system + " process", PID: pid})
				}
			}
			nodes = all
			cmd.Process.Signal(os.Kill)
			cmd.Wait()
			start := time.Now()
			clustertest.AssertGone(t, nodes, 5*time.Second)
			t.Logf("children gone %v after the parent's SIGKILL", time.Since(start).Round(time.Millisecond))
		})
	}
}

// TestHelperUpAndWait is the parent process of TestParentKilledKillsChildren.
func TestHelperUpAndWait(t *testing.T) {
	var r cluster.Recipe
	switch os.Getenv("DBRIG_CLUSTER_HELPER") {
	case "etcd":
		r = Cluster{Members: 1}
	case "postgres":
		r = postgres.Cluster{}
	default:
		t.Skip("helper process only")
	}
	c, err := cluster.Up(context.Background(), r, cluster.Options{Dir: os.Getenv("DBRIG_CLUSTER_HELPER_DIR")})
	var missing *cluster.BinaryMissingError
	if errors.As(err, &missing) && os.Getenv("DBRIG_REQUIRE_SERVERS") != "1" {
		fmt.Printf("SKIP SKIPPED: %v\n", err)
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range c.Nodes() {
		fmt.Printf("PID %d\n", n.PID)
	}
	fmt.Println("READY")
	time.Sleep(time.Minute)
}

// A state file lets another process stop the cluster by PID; a PID whose
// start time does not match the record is never signalled.
func TestStateFileDown(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	c := clustertest.Up(t, Cluster{Members: 1}, cluster.Options{StateFile: path})
	s, err := cluster.ReadState(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Nodes) != 1 || s.Nodes[0].PID != c.Nodes()[0].PID || s.Nodes[0].Start == 0 || s.Props["etcd.endpoints"] == "" {
		t.Fatalf("state: %+v", s)
	}
	if !s.Nodes[0].Alive() {
		t.Fatal("node not alive by its state")
	}

	// A stranger with a recycled PID: same PID as a live process, other start time.
	sleeper := exec.Command("sleep", "30")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	defer sleeper.Process.Kill()
	st, err := (nodestat.Proc{}).Stat(sleeper.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	stranger := cluster.Node{Name: "stranger", PID: sleeper.Process.Pid, Start: st.StartTime + 1}
	s.Nodes = append([]cluster.Node{stranger}, s.Nodes...)

	start := time.Now()
	if err := s.Down(context.Background(), path, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	t.Logf("down from state file in %v", time.Since(start).Round(time.Millisecond))
	clustertest.AssertGone(t, c.Nodes(), 0)
	if _, err := (nodestat.Proc{}).Stat(sleeper.Process.Pid); err != nil {
		t.Fatalf("the stranger with a reused PID was killed: %v", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("state file left: %v", err)
	}
	if _, err := os.Stat(c.Dir()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("cluster dir left: %v", err)
	}
}

func TestImageEtcd(t *testing.T) {
	c := clustertest.Up(t, Cluster{}, cluster.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	client := func() *clientv3.Client {
		t.Helper()
		cli, err := clientv3.New(clientv3.Config{Endpoints: c.Addrs(""), DialTimeout: 2 * time.Second, Logger: zap.NewNop()})
		if err != nil {
			t.Fatal(err)
		}
		return cli
	}
	cli := client()
	if _, err := cli.Put(ctx, "k", "before"); err != nil {
		t.Fatal(err)
	}
	cli.Close()
	if err := c.SaveImage(ctx, "one"); err != nil {
		t.Fatalf("SaveImage: %v", err)
	}
	cli = client()
	if _, err := cli.Put(ctx, "k", "after"); err != nil {
		t.Fatal(err)
	}
	if _, err := cli.Put(ctx, "new", "x"); err != nil {
		t.Fatal(err)
	}
	cli.Close()
	if err := c.RestoreImage(ctx, "one"); err != nil {
		t.Fatalf("RestoreImage: %v", err)
	}
	for _, n := range c.Nodes() {
		// A serializable read answers from the member's own data.
		one, err := clientv3.New(clientv3.Config{Endpoints: []string{n.Addr}, DialTimeout: 2 * time.Second, Logger: zap.NewNop()})
		if err != nil {
			t.Fatal(err)
		}
		k, err1 := one.Get(ctx, "k", clientv3.WithSerializable())
		x, err2 := one.Get(ctx, "new", clientv3.WithSerializable())
		one.Close()
		if err := errors.Join(err1, err2); err != nil {
			t.Fatalf("%s: %v", n.Name, err)
		}
		if len(k.Kvs) != 1 || string(k.Kvs[0].Value) != "before" || len(x.Kvs) != 0 {
			t.Errorf("%s after the restore: k=%v new=%v, want k=before and no key new", n.Name, k.Kvs, x.Kvs)
		}
	}
	clustertest.Down(t, c)
}

// The leader is asked from etcd; after it is killed another member leads;
// restarted on its data dir, the killed member is ready again and all three
// serve.
func TestEtcdRolesKillAndRestart(t *testing.T) {
	c := clustertest.Up(t, Cluster{}, cluster.Options{Dir: t.TempDir()})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	leaders, err := c.Resolve(ctx, "leader")
	if err != nil || len(leaders) != 1 {
		t.Fatalf("leader: %v, %v", leaders, err)
	}
	followers, err := c.Resolve(ctx, "all-follower")
	if err != nil || len(followers) != 2 {
		t.Fatalf("all-follower: %v, %v", followers, err)
	}
	if one, _ := c.Resolve(ctx, "follower"); len(one) != 1 {
		t.Errorf("follower (one node of the role) gave %d nodes", len(one))
	}
	old := leaders[0]
	if err := syscall.Kill(old.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	var next []cluster.Node
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if next, err = c.Resolve(ctx, "leader"); err == nil && next[0].Name != old.Name {
			break
		}
	}
	if len(next) != 1 || next[0].Name == old.Name {
		t.Fatalf("no new leader after killing %s: %v, %v", old.Name, next, err)
	}
	n, err := c.Restart(ctx, old.Name)
	if err != nil || n.PID == old.PID || !n.Alive() {
		t.Fatalf("restart %s: %+v, %v", old.Name, n, err)
	}
	if all, err := c.Resolve(ctx, "all-member"); err != nil || len(all) != 3 {
		t.Errorf("after the restart: %d members alive (%v), want 3", len(all), err)
	}
	if _, err := c.Resolve(ctx, "primary"); !errors.Is(err, cluster.ErrNoTarget) {
		t.Errorf("etcd has no primary, but: %v", err)
	}
	if err := c.Down(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n.Alive() {
		t.Errorf("restarted node %s (pid %d) outlived Down", n.Name, n.PID)
	}
}
