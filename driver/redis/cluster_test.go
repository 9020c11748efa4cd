package redis

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/cluster/clustertest"
	goredis "github.com/redis/go-redis/v9"
)

// awkward is a password of the shapes that break quoting: space, both
// quotes, backslash, '@', ':', '#'; "Wq4zPx9Lm" is its distinctive core.
const awkward = `Rd5 "Wq4zPx9Lm" p@ss:w0rd's \ #x`

func TestRedisReplicaSentinels(t *testing.T) {
	c := clustertest.Up(t, Cluster{Replicas: 1, Sentinels: 3}, cluster.Options{})
	if got := len(c.Nodes()); got != 5 {
		t.Fatalf("want 5 nodes, got %d", got)
	}
	if c.Props()["redis.addr"] != c.Addrs("primary")[0] || len(c.Addrs("sentinel")) != 3 {
		t.Fatalf("props %v, sentinels %v", c.Props(), c.Addrs("sentinel"))
	}
	// A write on the primary shows on the replica.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	p := goredis.NewClient(&goredis.Options{Addr: c.Addrs("primary")[0]})
	defer p.Close()
	r := goredis.NewClient(&goredis.Options{Addr: c.Addrs("replica")[0]})
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
	clustertest.Down(t, c)
}

// With a password, primary, replica and sentinels all work (the ready
// checks authenticate), clients without it are refused, and the password
// is in no log and in no file a stranger may read.
func TestRedisPassword(t *testing.T) {
	// The way `dbrig cluster up --password-env` gets it: in dbrig's own
	// environment, which the nodes must not inherit.
	t.Setenv("DBRIG_TEST_LEAK_PASSWORD", "Wq4zPx9Lm-from-env")
	c := clustertest.Up(t, Cluster{Replicas: 1, Sentinels: 3, Password: awkward}, cluster.Options{})
	if c.Props()["redis.password"] != awkward {
		t.Fatalf("props: redis.password %q", c.Props()["redis.password"])
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, addr := range append(c.Addrs("primary"), c.Addrs("replica")...) {
		anon := goredis.NewClient(&goredis.Options{Addr: addr, MaxRetries: -1})
		if err := anon.Ping(ctx).Err(); err == nil || !strings.Contains(err.Error(), "NOAUTH") {
			t.Errorf("%s without the password: %v, want NOAUTH", addr, err)
		}
		anon.Close()
		auth := goredis.NewClient(&goredis.Options{Addr: addr, Password: awkward, MaxRetries: -1})
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
		if strings.Contains(strings.Join(clustertest.Cmdline(t, n.PID), " "), "Wq4zPx9Lm") {
			t.Errorf("command line of %s shows the password", n.Name)
		}
		if env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", n.PID)); err != nil || strings.Contains(string(env), "Wq4zPx9Lm") {
			t.Errorf("environment of %s shows the password (or is unreadable: %v)", n.Name, err)
		}
	}
	clustertest.Down(t, c)
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

// A node that keeps its data in memory cannot be imaged: the error says so
// before anything stops.
func TestImageNeedsDurableNodes(t *testing.T) {
	c := clustertest.Up(t, Cluster{}, cluster.Options{})
	pid := c.Nodes()[0].PID
	if err := c.SaveImage(context.Background(), "one"); !errors.Is(err, cluster.ErrNoImage) {
		t.Errorf("SaveImage on Cluster without persistence: %v, want ErrNoImage", err)
	}
	if c.Nodes()[0].PID != pid {
		t.Error("the node was restarted")
	}
}
