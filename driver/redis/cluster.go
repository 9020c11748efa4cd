package redis

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/spec"
)

// Cluster is the recipe of one primary ("redis-primary"), Replicas replicas
// ("redis-replica1".."N") and Sentinels sentinels ("sentinel1".."N", 0 or
// >= 3 to have a quorum) monitoring the primary as MasterName. No
// persistence unless Config says otherwise; a password only if Password is
// set.
type Cluster struct {
	Replicas   int
	Sentinels  int
	MasterName string // default "mymaster"
	// Binary is redis-server's path (default on $PATH). Sentinels run
	// redis-sentinel when found beside it, else redis-server --sentinel.
	Binary string
	Config []string // extra redis.conf lines for primary and replicas
	// Password, if set, is required of clients (requirepass) by primary
	// and replicas, used by replicas to sync (masterauth) and by sentinels
	// to watch them (sentinel auth-pass). It goes to the nodes' config
	// files only (mode 0600, in 0700 node dirs), never onto a command line
	// or into a log, and reaches drivers as the redis.password property.
	Password string
	// DownAfter is how long Sentinel waits for an unanswering primary
	// before it starts a failover (down-after-milliseconds; default 5s).
	DownAfter time.Duration
}

func (Cluster) System() string { return "redis" }

func (r Cluster) master() string {
	if r.MasterName != "" {
		return r.MasterName
	}
	return "mymaster"
}

func (r Cluster) downAfter() time.Duration {
	if r.DownAfter > 0 {
		return r.DownAfter
	}
	return 5 * time.Second
}

func (r Cluster) Layout(l *cluster.Layout) ([]cluster.Stage, error) {
	bin, err := l.Binary("redis", r.Binary, "apt-get install redis-server", "redis-server")
	if err != nil {
		return nil, err
	}
	if r.Sentinels > 0 && r.Sentinels < 3 {
		return nil, fmt.Errorf("cluster: redis: %d sentinels cannot agree on a failover; use 0 or at least 3", r.Sentinels)
	}
	version := l.Version(bin, "--version") // "Redis server v=7.0.15 sha=..."
	if _, v, ok := strings.Cut(version, "v="); ok {
		version, _, _ = strings.Cut(v, " ")
	}
	node := func(name, role string, extra ...string) (*cluster.NodeSpec, error) {
		port, err := l.Port(name, "client")
		if err != nil {
			return nil, err
		}
		dir := l.NodeDir(name)
		conf := filepath.Join(dir, "redis.conf")
		lines := append([]string{
			"bind " + cluster.Loopback, "port " + strconv.Itoa(port), "protected-mode yes",
			"daemonize no", "dir " + dir, `logfile ""`, `save ""`, "appendonly no",
		}, extra...)
		return &cluster.NodeSpec{
			Name: name, Role: role, Binary: bin, Version: version,
			Args: []string{conf}, DataDir: dir, Log: l.LogPath(name),
			Ports: map[string]int{"client": port}, URL: "redis://" + cluster.HostPort(port),
			Files: map[string]string{conf: strings.Join(lines, "\n") + "\n"},
		}, nil
	}
	// A primary waits 5s (repl-diskless-sync-delay) for more replicas before
	// a full sync; ours all start in one stage, so waiting only slows Up.
	var auth []string
	if r.Password != "" {
		auth = []string{"requirepass " + redisConfQuote(r.Password), "masterauth " + redisConfQuote(r.Password)}
	}
	primary, err := node("redis-primary", "primary", append(append([]string{"repl-diskless-sync-delay 0"}, auth...), r.Config...)...)
	if err != nil {
		return nil, err
	}
	primary.Ready = func(ctx context.Context) error { return redisPing(ctx, primary.Ports["client"], r.Password) }
	stages := []cluster.Stage{{Name: "primary", Nodes: []*cluster.NodeSpec{primary}}}
	pport := primary.Ports["client"]
	if r.Replicas > 0 {
		st := cluster.Stage{Name: "replicas"}
		for i := 1; i <= r.Replicas; i++ {
			rep, err := node(fmt.Sprintf("redis-replica%d", i), "replica",
				append(append([]string{fmt.Sprintf("replicaof %s %d", cluster.Loopback, pport)}, auth...), r.Config...)...)
			if err != nil {
				return nil, err
			}
			rep.Ready = func(ctx context.Context) error { return redisReplicaUp(ctx, rep.Ports["client"], r.Password) }
			st.Nodes = append(st.Nodes, rep)
		}
		stages = append(stages, st)
	}
	if r.Sentinels > 0 {
		sbin, args := bin, []string{"--sentinel"}
		if p := filepath.Join(filepath.Dir(bin), "redis-sentinel"); isExecutable(p) {
			sbin, args = p, nil
		} else if p, err := exec.LookPath("redis-sentinel"); err == nil && r.Binary == "" {
			sbin, args = p, nil
		}
		quorum := r.Sentinels/2 + 1
		st := cluster.Stage{Name: "sentinels"}
		for i := 1; i <= r.Sentinels; i++ {
			// Sentinel rewrites its config file: it must be its own, writable.
			lines := []string{
				fmt.Sprintf("sentinel monitor %s %s %d %d", r.master(), cluster.Loopback, pport, quorum),
				fmt.Sprintf("sentinel down-after-milliseconds %s %d", r.master(), r.downAfter().Milliseconds()),
				fmt.Sprintf("sentinel failover-timeout %s 60000", r.master())}
			if r.Password != "" {
				lines = append(lines, fmt.Sprintf("sentinel auth-pass %s %s", r.master(), redisConfQuote(r.Password)))
			}
			s, err := node(fmt.Sprintf("sentinel%d", i), "sentinel", lines...)
			if err != nil {
				return nil, err
			}
			s.Binary, s.Args = sbin, append(s.Args, args...)
			s.URL = "redis-sentinel://" + cluster.HostPort(s.Ports["client"])
			want := cluster.HostPort(pport)
			s.Ready = func(ctx context.Context) error {
				return sentinelReady(ctx, s.Ports["client"], r.master(), want, r.Sentinels-1, r.Replicas)
			}
			st.Nodes = append(st.Nodes, s)
		}
		stages = append(stages, st)
	}
	return stages, nil
}

// Props point the driver at the primary; with sentinels, also at them, so
// the driver follows a failover (redis.sentinels, redis.master).
func (r Cluster) Props(nodes []cluster.Node) map[string]string {
	var m map[string]string
	var sents []string
	for _, n := range nodes {
		switch n.Role {
		case "primary":
			m = map[string]string{"redis.addr": n.Addr}
			if r.Password != "" {
				m["redis.password"] = r.Password
			}
		case "sentinel":
			sents = append(sents, n.Addr)
		}
	}
	if m != nil && len(sents) > 0 {
		m["redis.sentinels"] = strings.Join(sents, ",")
		m["redis.master"] = r.master()
	}
	return m
}

// redisConfQuote quotes s for redis.conf: in double quotes, with
// backslashes, double quotes and control bytes escaped as Redis's own
// argument splitter (sdssplitargs) reads them back.
func redisConfQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' || c == '"':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(&b, "\\x%02x", c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func redisClient(port int, password string) *goredis.Client {
	return goredis.NewClient(&goredis.Options{Addr: cluster.HostPort(port), Password: password, MaxRetries: -1, PoolSize: 1})
}

func redisPing(ctx context.Context, port int, password string) error {
	c := redisClient(port, password)
	defer c.Close()
	return c.Ping(ctx).Err()
}

// redisReplicaUp: the replica's link to its primary is up, which means the
// initial sync finished.
func redisReplicaUp(ctx context.Context, port int, password string) error {
	c := redisClient(port, password)
	defer c.Close()
	info, err := c.Info(ctx, "replication").Result()
	if err != nil {
		return err
	}
	if !strings.Contains(info, "master_link_status:up") {
		return errors.New("master_link_status is not up")
	}
	return nil
}

// sentinelReady: the sentinel names the primary, and has found the other
// sentinels and the replicas (what a failover needs).
func sentinelReady(ctx context.Context, port int, master, want string, others, replicas int) error {
	c := goredis.NewSentinelClient(&goredis.Options{Addr: cluster.HostPort(port), MaxRetries: -1, PoolSize: 1})
	defer c.Close()
	addr, err := c.GetMasterAddrByName(ctx, master).Result()
	if err != nil {
		return fmt.Errorf("get-master-addr-by-name: %w", err)
	}
	if len(addr) != 2 || hostPortS(addr[0], addr[1]) != want {
		return fmt.Errorf("sentinel names primary %v, want %s", addr, want)
	}
	m, err := c.Master(ctx, master).Result()
	if err != nil {
		return fmt.Errorf("sentinel master: %w", err)
	}
	if n, _ := strconv.Atoi(m["num-other-sentinels"]); n < others {
		return fmt.Errorf("sentinel knows %d other sentinels, want %d", n, others)
	}
	if n, _ := strconv.Atoi(m["num-slaves"]); n < replicas {
		return fmt.Errorf("sentinel knows %d replicas, want %d", n, replicas)
	}
	return nil
}

func hostPortS(h, p string) string { return h + ":" + p }

// isExecutable: p is a file the current user may run.
func isExecutable(p string) bool { _, err := exec.LookPath(p); return err == nil }

// newCluster builds the Redis recipe from system.cluster's options.
func newCluster(c spec.Cluster, given func(string) bool, refuse func(key, why string) error) (cluster.Recipe, error) {
	if given("nodes") {
		return nil, refuse("nodes", "redis has a primary and replicas: give replicas (and sentinels), not nodes")
	}
	if c.Sentinels > 0 && c.Sentinels < 3 {
		return nil, refuse("sentinels", fmt.Sprintf("%d sentinels cannot agree on a failover: use 0 or at least 3", c.Sentinels))
	}
	r := Cluster{Replicas: c.Replicas, Sentinels: c.Sentinels, Binary: c.Binary}
	for _, k := range slices.Sorted(maps.Keys(c.Config)) {
		switch k {
		case "requirepass":
			// The recipe quotes it, gives it to replicas and sentinels,
			// and hands it to the driver as redis.password.
			r.Password = c.Config[k]
		case "masterauth":
			return nil, refuse("config", "masterauth is set from requirepass: give requirepass only")
		default:
			r.Config = append(r.Config, k+" "+c.Config[k])
		}
	}
	return r, nil
}

// Describe says what the cluster will be.
func (r Cluster) Describe() string {
	return fmt.Sprintf("redis primary + %d replicas + %d sentinels", r.Replicas, r.Sentinels)
}

// BypassesProxies implements cluster.ProxyBypasser: through Sentinel the
// driver reaches the primary at the address the sentinels give.
func (Cluster) BypassesProxies(nodes []cluster.Node) bool {
	for _, n := range nodes {
		if n.Role == "sentinel" {
			return true
		}
	}
	return false
}

// WithDatabases implements cluster.DatabaseCreator: there are none to
// create.
func (Cluster) WithDatabases([]string) (cluster.Recipe, error) {
	return nil, errors.New("redis has numbered databases, none to create")
}

// WithPassword implements cluster.Passworded (requirepass).
func (r Cluster) WithPassword(pw string) cluster.Recipe { r.Password = pw; return r }
