package cluster

import (
	"bufio"
	"context"
	"crypto/sha1"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/redis/go-redis/v9"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/dbrig/dbrig/internal/cpuset"
	"github.com/dbrig/dbrig/nodestat"
)

// up starts r for a test and registers Down; a missing binary skips the
// test unless DBRIG_REQUIRE_SERVERS=1 (scripts/test installs the servers).
func up(t *testing.T, r Recipe, opts Options) *Cluster {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	start := time.Now()
	c, err := Up(ctx, r, opts)
	var missing *BinaryMissingError
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

// down stops c, timing it, and checks no node's process is left.
func down(t *testing.T, c *Cluster) {
	t.Helper()
	nodes := c.Nodes()
	start := time.Now()
	if err := c.Down(context.Background()); err != nil {
		t.Fatalf("Down: %v", err)
	}
	t.Logf("%s down in %v", c.System(), time.Since(start).Round(time.Millisecond))
	assertGone(t, nodes, 0)
	if _, err := os.Stat(c.Dir()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("cluster dir %s still there after Down (err %v)", c.Dir(), err)
	}
}

// assertGone waits up to d for every node's PID (and process group) to be
// gone from /proc.
func assertGone(t *testing.T, nodes []Node, d time.Duration) {
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

func TestEtcdThreeMembers(t *testing.T) {
	c := up(t, Etcd{}, Options{Keep: os.Getenv("KEEP") != ""})
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
	down(t, c)
}

// A given port that another process holds: Up fails before starting
// anything, naming the node's port; nothing runs, nothing is written.
func TestPortInUseBeforeStart(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	// freePort is a port the kernel just chose and this test let go of: free
	// unless another process takes it in between.
	freePort := func(t *testing.T) int {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		return l.Addr().(*net.TCPAddr).Port
	}
	for _, tc := range []struct {
		name  string
		ports func(t *testing.T) map[string]int
		want  string
	}{
		{"taken by another process", func(*testing.T) map[string]int { return map[string]int{"etcd1.client": port} }, fmt.Sprintf("port %d given for etcd1.client cannot be used", port)},
		{"given twice", func(t *testing.T) map[string]int {
			p := freePort(t)
			return map[string]int{"etcd1.client": p, "etcd1.peer": p}
		}, "given to another node of the cluster"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "c")
			c, err := Up(context.Background(), Etcd{Members: 1}, Options{Dir: dir, Ports: tc.ports(t)})
			// The free port given twice must be free when Up takes it first;
			// another process may take it in between: try again with another.
			for try := 0; try < 5 && tc.name == "given twice" && err != nil && !strings.Contains(err.Error(), tc.want) && !errors.As(err, new(*BinaryMissingError)); try++ {
				c, err = Up(context.Background(), Etcd{Members: 1}, Options{Dir: dir, Ports: tc.ports(t)})
			}
			var missing *BinaryMissingError
			if errors.As(err, &missing) && os.Getenv("DBRIG_REQUIRE_SERVERS") != "1" {
				t.Skipf("SKIPPED: %v", err)
			}
			if err == nil {
				c.Down(context.Background())
				t.Fatal("Up succeeded")
			}
			var pe *PortInUseError
			if !errors.As(err, &pe) || pe.Node != "etcd1" || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("want *PortInUseError containing %q, got %T: %v", tc.want, err, err)
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
	_, _, err := Plan(Etcd{Members: 1}, map[string]int{"etcd4.client": 2379})
	var missing *BinaryMissingError
	if errors.As(err, &missing) && os.Getenv("DBRIG_REQUIRE_SERVERS") != "1" {
		t.Skipf("SKIPPED: %v", err)
	}
	var ue *UnknownPortError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "no node has port etcd4.client (this cluster's ports: etcd1.client, etcd1.peer)") {
		t.Fatalf("want *UnknownPortError, got %T: %v", err, err)
	}
}

// The ports Plan picks are the ports the cluster runs on when they are
// passed as Options.Ports: a dry run shows what runs.
func TestPlanPortsAreWhatRuns(t *testing.T) {
	planned, ports, err := Plan(Etcd{Members: 2}, nil)
	var missing *BinaryMissingError
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
	c := up(t, Etcd{Members: 2}, Options{Ports: ports})
	for i, n := range c.Nodes() {
		if n.Name != planned[i].Name || fmt.Sprint(n.Ports) != fmt.Sprint(planned[i].Ports) {
			t.Errorf("node %d ran as %s %v, planned %s %v", i, n.Name, n.Ports, planned[i].Name, planned[i].Ports)
		}
	}
	down(t, c)
}

// A node that cannot start (a bad flag): the error names the node and shows
// its log; nothing is left running.
func TestNotReadyBadConfig(t *testing.T) {
	dir := t.TempDir()
	start := time.Now()
	c, err := Up(context.Background(), Etcd{Members: 1, Args: []string{"--no-such-flag-dbrig"}}, Options{Dir: dir, ReadyTimeout: 10 * time.Second})
	var missing *BinaryMissingError
	if errors.As(err, &missing) && os.Getenv("DBRIG_REQUIRE_SERVERS") != "1" {
		t.Skipf("SKIPPED: %v", err)
	}
	if err == nil {
		c.Down(context.Background())
		t.Fatal("Up succeeded with a bad flag")
	}
	t.Logf("failed in %v: %v", time.Since(start).Round(time.Millisecond), err)
	var nr *NotReadyError
	if !errors.As(err, &nr) {
		t.Fatalf("want *NotReadyError, got %T: %v", err, err)
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
		r     Recipe
		path  string // $PATH for the lookup; "" leaves it
		given bool
		hint  string
	}{
		// A path the user gave: how to make that binary (another version).
		{"etcd path given", Etcd{Binary: "/nonexistent/etcd"}, "", true, "make it with `scripts/build-etcd.sh VERSION`, or correct the path"},
		{"etcd not on PATH", Etcd{}, t.TempDir(), false, "install it with `apt-get install etcd-server`"},
		{"redis not on PATH", Redis{}, t.TempDir(), false, "install it with `apt-get install redis-server`"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.path != "" {
				t.Setenv("PATH", tc.path)
			}
			_, err := Up(context.Background(), tc.r, Options{})
			var missing *BinaryMissingError
			if !errors.As(err, &missing) || missing.Given != tc.given || !strings.Contains(err.Error(), tc.hint) {
				t.Fatalf("want *BinaryMissingError (given %v) with %q, got %v", tc.given, tc.hint, err)
			}
			if !errors.Is(err, os.ErrNotExist) && !errors.Is(err, exec.ErrNotFound) {
				t.Errorf("error should wrap os.ErrNotExist or exec.ErrNotFound: %v", err)
			}
		})
	}
}

// Context cancel during Up tears down what started; StopWhenDone ties a
// running cluster to a context.
func TestCancel(t *testing.T) {
	if _, err := exec.LookPath("etcd"); err != nil && os.Getenv("DBRIG_REQUIRE_SERVERS") != "1" {
		t.Skip("SKIPPED: etcd not installed (apt-get install etcd-server)")
	}
	t.Run("during Up", func(t *testing.T) {
		dir := t.TempDir()
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		_, err := Up(ctx, Etcd{}, Options{Dir: dir})
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("want DeadlineExceeded, got %v", err)
		}
		if out, _ := exec.Command("pgrep", "-f", dir).Output(); len(out) > 0 {
			t.Errorf("processes left: %s", out)
		}
	})
	t.Run("StopWhenDone", func(t *testing.T) {
		c := up(t, Etcd{Members: 1}, Options{})
		ctx, cancel := context.WithCancel(context.Background())
		c.StopWhenDone(ctx)
		cancel()
		assertGone(t, c.Nodes(), 15*time.Second)
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
			var nodes []Node
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				line := sc.Text()
				if pid, ok := strings.CutPrefix(line, "PID "); ok {
					n, _ := strconv.Atoi(pid)
					nodes = append(nodes, Node{Name: system + " child", PID: n})
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
			var all []Node
			for _, n := range nodes {
				tree, _ := (nodestat.Proc{}).Tree(n.PID)
				t.Logf("pid %d and its descendants: %v", n.PID, tree)
				for _, pid := range tree {
					all = append(all, Node{Name: system + " process", PID: pid})
				}
			}
			nodes = all
			cmd.Process.Signal(os.Kill)
			cmd.Wait()
			start := time.Now()
			assertGone(t, nodes, 5*time.Second)
			t.Logf("children gone %v after the parent's SIGKILL", time.Since(start).Round(time.Millisecond))
		})
	}
}

// TestHelperUpAndWait is the parent process of TestParentKilledKillsChildren.
func TestHelperUpAndWait(t *testing.T) {
	var r Recipe
	switch os.Getenv("DBRIG_CLUSTER_HELPER") {
	case "etcd":
		r = Etcd{Members: 1}
	case "postgres":
		r = Postgres{}
	default:
		t.Skip("helper process only")
	}
	c, err := Up(context.Background(), r, Options{Dir: os.Getenv("DBRIG_CLUSTER_HELPER_DIR")})
	var missing *BinaryMissingError
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
	c := up(t, Etcd{Members: 1}, Options{StateFile: path})
	s, err := ReadState(path)
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
	stranger := Node{Name: "stranger", PID: sleeper.Process.Pid, Start: st.StartTime + 1}
	s.Nodes = append([]Node{stranger}, s.Nodes...)

	start := time.Now()
	if err := s.Down(context.Background(), path, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	t.Logf("down from state file in %v", time.Since(start).Round(time.Millisecond))
	assertGone(t, c.Nodes(), 0)
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

func TestRedisReplicaSentinels(t *testing.T) {
	c := up(t, Redis{Replicas: 1, Sentinels: 3}, Options{})
	if got := len(c.Nodes()); got != 5 {
		t.Fatalf("want 5 nodes, got %d", got)
	}
	if c.Props()["redis.addr"] != c.Addrs("primary")[0] || len(c.Addrs("sentinel")) != 3 {
		t.Fatalf("props %v, sentinels %v", c.Props(), c.Addrs("sentinel"))
	}
	// A write on the primary shows on the replica.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	p := redis.NewClient(&redis.Options{Addr: c.Addrs("primary")[0]})
	defer p.Close()
	r := redis.NewClient(&redis.Options{Addr: c.Addrs("replica")[0]})
	defer r.Close()
	if err := p.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if err := p.Do(ctx, "WAIT", 1, 5000).Err(); err != nil {
		t.Fatal(err)
	}
	if v, err := r.Get(ctx, "k").Result(); err != nil || v != "v" {
		t.Fatalf("replica get: %q %v", v, err)
	}
	down(t, c)
}

// awkward is a password of the shapes that break quoting: space, both
// quotes, backslash, '@', ':', '#'; "Wq4zPx9Lm" is its distinctive core.
const awkward = `Rd5 "Wq4zPx9Lm" p@ss:w0rd's \ #x`

// With a password, primary, replica and sentinels all work (the ready
// checks authenticate), clients without it are refused, and the password
// is in no log and in no file a stranger may read.
func TestRedisPassword(t *testing.T) {
	// The way `dbrig cluster up --password-env` gets it: in dbrig's own
	// environment, which the nodes must not inherit.
	t.Setenv("DBRIG_TEST_LEAK_PASSWORD", "Wq4zPx9Lm-from-env")
	c := up(t, Redis{Replicas: 1, Sentinels: 3, Password: awkward}, Options{})
	if c.Props()["redis.password"] != awkward {
		t.Fatalf("props: redis.password %q", c.Props()["redis.password"])
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, addr := range append(c.Addrs("primary"), c.Addrs("replica")...) {
		anon := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
		if err := anon.Ping(ctx).Err(); err == nil || !strings.Contains(err.Error(), "NOAUTH") {
			t.Errorf("%s without the password: %v, want NOAUTH", addr, err)
		}
		anon.Close()
		auth := redis.NewClient(&redis.Options{Addr: addr, Password: awkward, MaxRetries: -1})
		if err := auth.Ping(ctx).Err(); err != nil {
			t.Errorf("%s with the password: %v", addr, err)
		}
		auth.Close()
	}
	for _, n := range c.Nodes() {
		if b, _ := os.ReadFile(n.Log); strings.Contains(string(b), "Wq4zPx9Lm") {
			t.Errorf("log of %s shows the password", n.Name)
		}
		// Sentinel rewrites its own file (mode by umask): the 0700 dir
		// below protects it.
		conf := filepath.Join(n.DataDir, "redis.conf")
		if st, err := os.Stat(conf); n.Role != "sentinel" && (err != nil || st.Mode().Perm()&0o077 != 0) {
			t.Errorf("%s: mode %v (%v), want no access for group and others", conf, st.Mode(), err)
		}
		if st, err := os.Stat(n.DataDir); err != nil || st.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s: mode %v (%v), want no access for group and others", n.DataDir, st.Mode(), err)
		}
		if strings.Contains(strings.Join(mustCmdline(t, n.PID), " "), "Wq4zPx9Lm") {
			t.Errorf("command line of %s shows the password", n.Name)
		}
		if env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", n.PID)); err != nil || strings.Contains(string(env), "Wq4zPx9Lm") {
			t.Errorf("environment of %s shows the password (or is unreadable: %v)", n.Name, err)
		}
	}
	down(t, c)
}

// mustCmdline is a process's command line.
func mustCmdline(t *testing.T, pid int) []string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(string(b), "\x00")
}

func TestRedisConfQuote(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain", `"plain"`},
		{`a "b" c`, `"a \"b\" c"`},
		{`back\slash`, `"back\\slash"`},
		{"new\nline\x7f", `"new\x0aline\x7f"`},
		{"", `""`},
	} {
		if got := redisConfQuote(tc.in); got != tc.want {
			t.Errorf("redisConfQuote(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestPostgresPrimaryReplica(t *testing.T) {
	c := up(t, Postgres{Replicas: 1, Settings: map[string]string{"fsync": "off"}, Password: awkward, Databases: []string{"dbrig_extra"}}, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// The password reached the replica's setup by the environment: no log
	// and no command line shows it.
	for _, n := range c.Nodes() {
		if b, _ := os.ReadFile(n.Log); strings.Contains(string(b), "Wq4zPx9Lm") {
			t.Errorf("log of %s shows the password", n.Name)
		}
		if strings.Contains(strings.Join(mustCmdline(t, n.PID), " "), "Wq4zPx9Lm") {
			t.Errorf("command line of %s shows the password", n.Name)
		}
		if env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", n.PID)); err != nil || strings.Contains(string(env), "Wq4zPx9Lm") {
			t.Errorf("environment of %s shows the password (or is unreadable: %v)", n.Name, err)
		}
	}
	// The extra database exists and belongs to dbrig.
	u, _ := url.Parse(c.Props()["pg.url"])
	u.Path = "/dbrig_extra"
	x, err := pgx.Connect(ctx, u.String())
	if err != nil {
		t.Fatalf("connect to dbrig_extra: %v", err)
	}
	if _, err := x.Exec(ctx, "CREATE TABLE mine (k int)"); err != nil {
		t.Errorf("dbrig cannot create a table in dbrig_extra: %v", err)
	}
	x.Close(ctx)
	p, err := pgx.Connect(ctx, c.Props()["pg.url"])
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(ctx)
	if _, err := p.Exec(ctx, "CREATE TABLE t (k text PRIMARY KEY); INSERT INTO t VALUES ('x')"); err != nil {
		t.Fatal(err)
	}
	var replica Node
	for _, n := range c.Nodes() {
		if n.Role == "replica" {
			replica = n
		}
	}
	r, err := pgx.Connect(ctx, replica.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close(ctx)
	// The row arrives by streaming replication.
	var k string
	for err = errors.New("start"); err != nil && ctx.Err() == nil; time.Sleep(20 * time.Millisecond) {
		err = r.QueryRow(ctx, "SELECT k FROM t").Scan(&k)
	}
	if err != nil || k != "x" {
		t.Fatalf("replica read: %q %v", k, err)
	}
	if _, err := r.Exec(ctx, "INSERT INTO t VALUES ('y')"); err == nil {
		t.Fatal("replica accepted a write")
	}
	r.Close(ctx)
	p.Close(ctx)

	// nodestat sees the postmaster's whole tree (backends, WAL sender).
	sctx, scancel := context.WithCancel(context.Background())
	defer scancel()
	var samples []nodestat.Sample
	nodestat.Run(sctx, 100*time.Millisecond, []nodestat.Target{{Name: "pg-primary", PID: c.Nodes()[0].PID, Tree: true}}, func(s nodestat.Sample) {
		samples = append(samples, s)
		scancel()
	})
	if len(samples) != 1 || samples[0].Procs < 5 || samples[0].RSS == 0 || samples[0].Err != nil {
		t.Errorf("sample of the primary's tree: %+v", samples)
	}
	t.Logf("primary tree: %d processes, rss %d, fds %d", samples[0].Procs, samples[0].RSS, samples[0].FDs)
	down(t, c)
}

func TestMariaDB(t *testing.T) {
	c := up(t, MariaDB{Settings: map[string]string{"innodb-flush-log-at-trx-commit": "2"}}, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	db, err := sql.Open("mysql", c.Props()["mysql.dsn"])
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// User dbrig owns database dbrig, and the setting reached the server.
	if _, err := db.ExecContext(ctx, "CREATE TABLE t (k VARCHAR(10) PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	var v string
	if err := db.QueryRowContext(ctx, "SELECT @@innodb_flush_log_at_trx_commit").Scan(&v); err != nil || v != "2" {
		t.Fatalf("innodb_flush_log_at_trx_commit = %q (%v), want 2", v, err)
	}
	if n := c.Nodes()[0]; n.Version == "" || !strings.HasPrefix(c.Props()["mysql.dsn"], "dbrig:") {
		t.Errorf("node %+v, props %v", n, c.Props())
	}
	db.Close()
	down(t, c)
}

// A fixed cluster name reaches the driver's properties.
func TestHazelcastClusterName(t *testing.T) {
	nodes := []Node{{Addr: "127.0.0.1:1", DataDir: "/x/hz1"}, {Addr: "127.0.0.1:2", DataDir: "/x/hz2"}}
	if got := (Hazelcast{ClusterName: "dbrig"}).Props(nodes); got["hazelcast.cluster"] != "dbrig" || got["hazelcast.addrs"] != "127.0.0.1:1,127.0.0.1:2" {
		t.Errorf("props %v", got)
	}
	if got := (Hazelcast{}).Props(nodes)["hazelcast.cluster"]; got != hazelcastClusterName("/x") {
		t.Errorf("default cluster name %q, want the dir's %q", got, hazelcastClusterName("/x"))
	}
	if !strings.Contains(hazelcastConfig("dbrig", 1, "", ""), "cluster-name: dbrig\n") {
		t.Error("config lacks the cluster name")
	}
}

func TestHazelcastMembers(t *testing.T) {
	c := up(t, Hazelcast{Members: 3}, Options{})
	props := c.Props()
	if len(c.Nodes()) != 3 || len(strings.Split(props["hazelcast.addrs"], ",")) != 3 || !strings.HasPrefix(props["hazelcast.cluster"], "dbrig-") {
		t.Fatalf("nodes %v, props %v", c.Nodes(), props)
	}
	// The client-level check again, from outside: a client of the named
	// cluster sees all three members.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := hazelcastClientSees(ctx, props["hazelcast.cluster"], strings.Split(props["hazelcast.addrs"], ","), 3); err != nil {
		t.Fatal(err)
	}
	down(t, c)
}

// A cached jar that matches its .sha1 is used without network; a download
// is checked against Maven Central's SHA-1 and lands atomically.
func TestFetchMavenJar(t *testing.T) {
	const body = "not really a jar"
	sum := fmt.Sprintf("%x", sha1.Sum([]byte(body)))
	hits := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits++
		switch {
		case strings.HasSuffix(r.URL.Path, "/bad.jar.sha1"):
			fmt.Fprintln(w, strings.Repeat("0", 40))
		case strings.HasSuffix(r.URL.Path, ".sha1"):
			fmt.Fprintln(w, sum)
		default:
			fmt.Fprint(w, body)
		}
	}))
	defer srv.Close()
	dir := t.TempDir()
	path := filepath.Join(dir, "x.jar")
	ctx := context.Background()
	if fetched, err := fetchMavenJar(ctx, path, srv.URL+"/x.jar"); err != nil || !fetched {
		t.Fatalf("first fetch: %v %v", fetched, err)
	}
	if b, _ := os.ReadFile(path); string(b) != body {
		t.Fatalf("jar %q", b)
	}
	before := hits
	if fetched, err := fetchMavenJar(ctx, path, srv.URL+"/x.jar"); err != nil || fetched || hits != before {
		t.Fatalf("cached: fetched %v, err %v, %d requests", fetched, err, hits-before)
	}
	bad := filepath.Join(dir, "bad.jar")
	_, err := fetchMavenJar(ctx, bad, srv.URL+"/bad.jar")
	var fe *FetchError
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "SHA-1") {
		t.Fatalf("bad checksum: %v", err)
	}
	if _, err := os.Stat(bad); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a jar failing its checksum was kept: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".download-*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// Nodes started with Options.CPUs run on those CPUs, and so does every
// process they start later (a PostgreSQL backend per connection), while
// dbrig itself keeps all of its CPUs.
func TestPinnedNodes(t *testing.T) {
	on, err := cpuset.Online()
	if err != nil {
		t.Fatal(err)
	}
	if len(on) < 2 {
		t.Skipf("SKIPPED: one usable CPU (%s): a pinned set would be the whole machine", on)
	}
	set := cpuset.Set{on[len(on)-1]}
	c := up(t, Postgres{Settings: map[string]string{"fsync": "off"}}, Options{CPUs: set})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, c.Props()["pg.url"])
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var backend int
	if err := conn.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&backend); err != nil {
		t.Fatal(err)
	}
	pids := []int{c.Nodes()[0].PID, backend}
	for _, pid := range pids {
		got, err := cpuset.Of(pid)
		if err != nil || !slices.Equal(got, set) {
			t.Errorf("process %d runs on CPUs %s (%v), want %s", pid, got, err, set)
		}
	}
	if mine, _ := cpuset.Of(os.Getpid()); !slices.Equal(mine, on) {
		t.Errorf("dbrig runs on CPUs %s after starting pinned nodes, want all of %s", mine, on)
	}
}
