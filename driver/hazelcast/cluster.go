package hazelcast

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/http"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	hz "github.com/hazelcast/hazelcast-go-client"
	hzcluster "github.com/hazelcast/hazelcast-go-client/cluster"
	"github.com/hazelcast/hazelcast-go-client/logger"
	"github.com/hazelcast/hazelcast-go-client/types"

	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/spec"
)

// Cluster is the recipe of Members open-source Hazelcast members (default
// 3), named hz1..N, each a JVM running the Hazelcast jar (Java 17), joined
// by TCP-IP on 127.0.0.1 only.
// The jar comes from Maven Central into a cache (see Jar). One port per
// member, "client" (members and clients share it).
type Cluster struct {
	Members int    // default 3
	Version string // of com.hazelcast:hazelcast; default DefaultVersion
	// Jar is the Hazelcast jar to run; empty: the Version from Maven
	// Central, cached in CacheDir and checked by its SHA-1.
	Jar      string
	CacheDir string            // default $XDG_CACHE_HOME/dbrig (~/.cache/dbrig)
	Heap     string            // -Xmx of each member; default 256m
	Settings map[string]string // Hazelcast properties (hazelcast.partition.count: 71)
	// ClusterName is the members' cluster name, which clients must give;
	// default one unique to the cluster's dir, so that members of another
	// cluster on this host never join.
	ClusterName string
}

func (h Cluster) clusterName(dir string) string {
	if h.ClusterName != "" {
		return h.ClusterName
	}
	return hazelcastClusterName(dir)
}

// DefaultVersion is the Hazelcast that runs unless told otherwise:
// the one the Go client and the test servers are checked against.
const DefaultVersion = "5.5.0"

func (Cluster) System() string { return "hazelcast" }

func (h Cluster) version() string {
	if h.Version != "" {
		return h.Version
	}
	return DefaultVersion
}

// Members start in parallel, but a JVM and Hazelcast's join take 10-20 s
// each on two busy cores.
const hazelcastReadyTimeout = 2 * time.Minute

func (h Cluster) Layout(l *cluster.Layout) ([]cluster.Stage, error) {
	java, err := l.Binary("hazelcast", "", "apt-get install openjdk-17-jre-headless", "java")
	if err != nil {
		return nil, err
	}
	jar, url := h.Jar, ""
	if jar != "" {
		if err := readable(jar); err != nil {
			return nil, &cluster.BinaryMissingError{System: "hazelcast", Binary: jar, Err: err}
		}
	} else if jar, url, err = mavenJar(h.CacheDir, "com.hazelcast", "hazelcast", h.version()); err != nil {
		return nil, err
	}
	n := h.Members
	if n <= 0 {
		n = 3
	}
	heap := h.Heap
	if heap == "" {
		heap = "256m"
	}
	names := make([]string, n)
	ports := make([]int, n)
	var memberList strings.Builder
	for i := range names {
		names[i] = fmt.Sprintf("hz%d", i+1)
		if ports[i], err = l.Port(names[i], "client"); err != nil {
			return nil, err
		}
		fmt.Fprintf(&memberList, "          - %s\n", cluster.HostPort(ports[i]))
	}
	name := h.clusterName(l.Dir)
	var props strings.Builder
	keys := make([]string, 0, len(h.Settings))
	for k := range h.Settings {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&props, "    %s: %s\n", strconv.Quote(k), strconv.Quote(h.Settings[k]))
	}
	version := h.version()
	if h.Jar != "" {
		version = "" // unknown until a member logs it
	}
	st := cluster.Stage{Name: "members", ReadyTimeout: hazelcastReadyTimeout}
	var addrs []string
	for i, node := range names {
		dir := l.NodeDir(node)
		conf := filepath.Join(dir, "hazelcast.yaml")
		ns := &cluster.NodeSpec{
			Name: node, Role: "member", Binary: java, Version: version,
			DataDir: dir, Log: l.LogPath(node), Ports: map[string]int{"client": ports[i]},
			Files: map[string]string{conf: hazelcastConfig(name, ports[i], memberList.String(), props.String())},
			Args: []string{"-Xms64m", "-Xmx" + heap, "-XX:+UseSerialGC", "-Xss512k",
				"-Djava.net.preferIPv4Stack=true",
				// What Hazelcast asks for to use its fast paths.
				"--add-modules", "java.se", "--add-exports", "java.base/jdk.internal.ref=ALL-UNNAMED",
				"--add-opens", "java.base/java.lang=ALL-UNNAMED", "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
				"--add-opens", "java.management/sun.management=ALL-UNNAMED",
				"--add-opens", "jdk.management/com.sun.management.internal=ALL-UNNAMED",
				"-Dhazelcast.config=" + conf, "-cp", jar, "com.hazelcast.core.server.HazelcastMemberStarter"},
		}
		if i == 0 && url != "" {
			// The first member's setup fetches the jar (once, into the
			// cache) before any member starts: members start in order.
			ns.Setup = func(ctx context.Context, _ cluster.RunFunc) error {
				_, err := fetchMavenJar(ctx, jar, url)
				return err
			}
		}
		port := ports[i]
		ns.Ready = func(ctx context.Context) error { return hazelcastHealthy(ctx, port, n) }
		st.Nodes = append(st.Nodes, ns)
		addrs = append(addrs, cluster.HostPort(port))
	}
	st.Ready = func(ctx context.Context) error { return hazelcastClientSees(ctx, name, addrs, n) }
	return []cluster.Stage{st}, nil
}

// Props: every member's address and the cluster name.
func (h Cluster) Props(nodes []cluster.Node) map[string]string {
	var addrs []string
	for _, n := range nodes {
		addrs = append(addrs, n.Addr)
	}
	name := ""
	if len(nodes) > 0 {
		name = h.clusterName(filepath.Dir(nodes[0].DataDir))
	}
	return map[string]string{"hazelcast.addrs": strings.Join(addrs, ","), "hazelcast.cluster": name}
}

// hazelcastClusterName is unique per cluster dir: members of another
// cluster on this host never join, and clients never mix them up.
func hazelcastClusterName(dir string) string {
	f := fnv.New32a()
	f.Write([]byte(dir))
	return fmt.Sprintf("dbrig-%08x", f.Sum32())
}

// hazelcastConfig is one member's YAML: its own fixed port (no
// auto-increment), sockets on 127.0.0.1 only, TCP-IP join with the given
// member list, and the health endpoint for the readiness check.
func hazelcastConfig(name string, port int, members, props string) string {
	return fmt.Sprintf(`hazelcast:
  cluster-name: %s
  properties:
    hazelcast.phone.home.enabled: false
    hazelcast.socket.bind.any: false
    hazelcast.logging.type: jdk
    # Failure detection within a few seconds: members are on one host.
    hazelcast.heartbeat.interval.seconds: 1
    hazelcast.max.no.heartbeat.seconds: 10
    # Members start together on one host: a short join window suffices.
    hazelcast.wait.seconds.before.join: 1
    hazelcast.max.wait.seconds.before.join: 5
%s  network:
    port:
      port: %d
      auto-increment: false
    interfaces:
      enabled: true
      interfaces:
        - 127.0.0.1
    rest-api:
      enabled: true
      endpoint-groups:
        HEALTH_CHECK:
          enabled: true
    join:
      auto-detection:
        enabled: false
      multicast:
        enabled: false
      tcp-ip:
        enabled: true
        member-list:
%s  jet:
    enabled: false
`, name, props, port, members)
}

// hazelcastHealthy: the member's health endpoint reports it active in an
// active, safe cluster of n members.
func hazelcastHealthy(ctx context.Context, port, n int) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+cluster.HostPort(port)+"/hazelcast/health", nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var h struct {
		NodeState    string `json:"nodeState"`
		ClusterState string `json:"clusterState"`
		ClusterSafe  bool   `json:"clusterSafe"`
		ClusterSize  int    `json:"clusterSize"`
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("health: %s", resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(&h); err != nil {
		return fmt.Errorf("health: %w", err)
	}
	if h.NodeState != "ACTIVE" || h.ClusterState != "ACTIVE" || h.ClusterSize != n || !h.ClusterSafe {
		return fmt.Errorf("health: member %s, cluster %s of %d members (want %d), safe %v",
			h.NodeState, h.ClusterState, h.ClusterSize, n, h.ClusterSafe)
	}
	return nil
}

// hazelcastClientSees: a client of the cluster connects, is told of n
// members, and writes and reads an entry.
func hazelcastClientSees(ctx context.Context, name string, addrs []string, n int) error {
	cfg := hz.NewConfig()
	cfg.Cluster.Name = name
	cfg.Cluster.Network.SetAddresses(addrs...)
	cfg.Logger.Level = logger.OffLevel
	cfg.Stats.Enabled = false
	var mu sync.Mutex
	members := map[types.UUID]bool{}
	cfg.AddMembershipListener(func(e hzcluster.MembershipStateChanged) {
		mu.Lock()
		defer mu.Unlock()
		members[e.Member.UUID] = e.State == hzcluster.MembershipStateAdded
	})
	cli, err := hz.StartNewClientWithConfig(ctx, cfg)
	if err != nil {
		return fmt.Errorf("client: %w", err)
	}
	defer cli.Shutdown(context.Background())
	count := func() int {
		mu.Lock()
		defer mu.Unlock()
		k := 0
		for _, in := range members {
			if in {
				k++
			}
		}
		return k
	}
	for count() != n {
		if ctx.Err() != nil {
			return fmt.Errorf("client sees %d members, want %d", count(), n)
		}
		time.Sleep(20 * time.Millisecond)
	}
	m, err := cli.GetMap(ctx, "dbrig-ready-probe")
	if err != nil {
		return fmt.Errorf("client: %w", err)
	}
	if err := m.Set(ctx, "k", "v"); err != nil {
		return fmt.Errorf("client: set: %w", err)
	}
	if err := m.Destroy(ctx); err != nil {
		return fmt.Errorf("client: destroy: %w", err)
	}
	return nil
}

// newCluster builds the Hazelcast recipe from system.cluster's options.
func newCluster(c spec.Cluster, given func(string) bool, refuse func(key, why string) error) (cluster.Recipe, error) {
	if k := driver.FirstGiven(given, "replicas", "sentinels"); k != "" {
		return nil, refuse(k, "hazelcast has members, not replicas or sentinels: give nodes")
	}
	// binary is the Hazelcast jar: another version side by side.
	r := Cluster{Members: c.Nodes, Jar: c.Binary}
	for k, v := range c.Config {
		switch k {
		case "cluster-name":
			r.ClusterName = v
		case "heap":
			r.Heap = v
		default:
			if r.Settings == nil {
				r.Settings = map[string]string{}
			}
			r.Settings[k] = v
		}
	}
	return r, nil
}

// Numbered implements cluster.Numbered: members hz1..N.
func (h Cluster) Numbered() (prefix string, n int) { return "hz", cmp.Or(max(h.Members, 0), 3) }

// Describe says what the cluster will be.
func (h Cluster) Describe() string {
	_, n := h.Numbered()
	return fmt.Sprintf("hazelcast × %d members", n)
}

// BypassesProxies implements cluster.ProxyBypasser: the smart client
// connects to the member addresses the cluster announces.
func (Cluster) BypassesProxies([]cluster.Node) bool { return true }
