package cassandra

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/spec"
)

// Cluster is the recipe of Nodes Apache Cassandra nodes (default 3), named
// cas1..N, each a JVM (Java 17) running CassandraDaemon from the
// cassandra-all jar and its dependencies, which Maven resolves from Maven
// Central into a cache (see fetch.go). All nodes listen on 127.0.0.1, each
// with its own ports ("client": the native protocol, "peer": the storage
// port: Cassandra tells nodes on one address apart by port), all are
// seeds, and each owns one token, spread evenly over the ring, so the
// nodes start together without bootstrapping. Routed (for network faults
// between nodes), the nodes reach each other through proxies on peerHost.
type Cluster struct {
	Nodes   int    // default 3
	Version string // of org.apache.cassandra:cassandra-all; default DefaultVersion
	// Lib is a directory of Cassandra's jars to run; empty: Version's,
	// fetched into CacheDir.
	Lib      string
	CacheDir string // default $XDG_CACHE_HOME/dbrig (~/.cache/dbrig)
	Heap     string // -Xmx of each node; default 768m
	// ReplicationFactor is the driver's cassandra.replicationfactor: that
	// of the keyspace it creates; default min(Nodes, 3).
	ReplicationFactor int
	Settings          map[string]string // cassandra.yaml keys, value as YAML
	// Advertise, when set (Routed), puts a proxy in front of each node's
	// storage port that its peers reach it through (see peerProxy).
	Advertise cluster.Advertiser
}

// peerHost is where the nodes of a Routed cluster are known to each other:
// a node's peer proxy listens on peerHost and the node's own storage port
// (Cassandra has no broadcast port: a node is known at its broadcast
// address and its storage port, so the proxy cannot sit on 127.0.0.1,
// where the node listens). Only the proxies listen there.
const peerHost = "127.0.0.2"

// DefaultVersion is the Cassandra that runs unless told otherwise.
const DefaultVersion = "5.0.6"

// Cassandra takes 40-70 s to start on two cores at load average 20; at 40
// and more, three nodes starting together took over 5 minutes.
const readyTimeout = 10 * time.Minute

func (Cluster) System() string { return "cassandra" }

func (c Cluster) nodes() int { return cmp.Or(max(c.Nodes, 0), 3) }

func (c Cluster) rf() int { return cmp.Or(max(c.ReplicationFactor, 0), min(c.nodes(), 3)) }

// Numbered implements cluster.Numbered: nodes cas1..N.
func (c Cluster) Numbered() (prefix string, n int) { return "cas", c.nodes() }

// Describe says what the cluster will be.
func (c Cluster) Describe() string {
	return fmt.Sprintf("cassandra × %d nodes, replication factor %d", c.nodes(), c.rf())
}

// Routed implements cluster.Routable: the nodes reach each other's storage
// ports through a's proxies (a partition cuts them); a must place them
// where the recipe says (cluster.AddrAdvertiser).
func (c Cluster) Routed(a cluster.Advertiser) cluster.Recipe { c.Advertise = a; return c }

// peerProxy puts node's peer proxy at peerHost:port, in front of the node's
// storage port on 127.0.0.1, and returns the address the node is known at.
func (c Cluster) peerProxy(node string, port int) (string, error) {
	if c.Advertise == nil {
		return cluster.HostPort(port), nil
	}
	a, ok := c.Advertise.(cluster.AddrAdvertiser)
	if !ok {
		return "", fmt.Errorf("cassandra: %s's peer proxy must listen on its storage port (%d) of %s: the advertiser cannot place it", node, port, peerHost)
	}
	addr := net.JoinHostPort(peerHost, strconv.Itoa(port))
	if err := a.AdvertiseAt(node, "peer", addr, cluster.HostPort(port)); err != nil {
		return "", fmt.Errorf("cassandra: %s's peer proxy at %s: %w", node, addr, err)
	}
	return addr, nil
}

// tokens spreads n tokens evenly over Murmur3's ring.
func tokens(n int) []int64 {
	step := math.MaxUint64 / uint64(n)
	t := make([]int64, n)
	for i := range t {
		t[i] = int64(uint64(1)<<63 + uint64(i)*step) // from math.MinInt64 on
	}
	return t
}

func (c Cluster) Layout(l *cluster.Layout) ([]cluster.Stage, error) {
	java, err := l.Binary("cassandra", "", "apt-get install openjdk-17-jre-headless", "java")
	if err != nil {
		return nil, err
	}
	version := cmp.Or(c.Version, DefaultVersion)
	lib, mvn := c.Lib, ""
	if lib != "" {
		lib = cluster.ExpandHome(lib)
		if st, err := os.Stat(lib); err != nil || !st.IsDir() {
			return nil, &cluster.BinaryMissingError{System: "cassandra", Binary: lib, Given: true,
				Err: fmt.Errorf("not a directory of jars (%v)", err)}
		}
		version = ""
	} else {
		if lib, err = libDir(c.CacheDir, version); err != nil {
			return nil, err
		}
		if !cached(lib) {
			if mvn, err = l.Binary("cassandra", "", "apt-get install maven", "mvn"); err != nil {
				return nil, err
			}
		}
	}
	n := c.nodes()
	names := make([]string, n)
	client := make([]int, n)
	peer := make([]int, n)
	seeds := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("cas%d", i+1)
		if client[i], err = l.Port(names[i], "client"); err != nil {
			return nil, err
		}
		if peer[i], err = l.Port(names[i], "peer"); err != nil {
			return nil, err
		}
		if seeds[i], err = c.peerProxy(names[i], peer[i]); err != nil {
			return nil, err
		}
	}
	toks := tokens(n)
	st := cluster.Stage{Name: "nodes", ReadyTimeout: readyTimeout}
	var addrs []string
	for i, node := range names {
		dir := l.NodeDir(node)
		conf, logConf := filepath.Join(dir, "cassandra.yaml"), filepath.Join(dir, "logback.xml")
		ns := &cluster.NodeSpec{
			Name: node, Role: "node", Binary: java, Version: version, Durable: true,
			DataDir: dir, Log: l.LogPath(node), Ports: map[string]int{"client": client[i], "peer": peer[i]},
			Files: map[string]string{
				conf:    c.yaml(dir, toks[i], client[i], peer[i], strings.Join(seeds, ",")),
				logConf: logback,
			},
			Args: append(jvmArgs(cmp.Or(c.Heap, "768m")),
				"-Dcassandra.config=file://"+conf, "-Dlogback.configurationFile="+logConf,
				"-Dcassandra.storagedir="+dir, "-Dcassandra.logdir="+dir,
				"-cp", filepath.Join(lib, "*"), "org.apache.cassandra.service.CassandraDaemon"),
		}
		if i == 0 && mvn != "" {
			// The first node's setup fetches the jars (once, into the
			// cache) before any node starts: nodes start in order.
			ns.Setup = func(ctx context.Context, run cluster.RunFunc) error {
				return fetchLib(ctx, run, mvn, lib, version)
			}
		}
		addr := cluster.HostPort(client[i])
		ns.Ready = func(ctx context.Context) error { return nodeAnswers(ctx, addr) }
		st.Nodes = append(st.Nodes, ns)
		addrs = append(addrs, addr)
	}
	st.Ready = func(ctx context.Context) error { return ringNormal(ctx, addrs) }
	return []cluster.Stage{st}, nil
}

// Props: every node's native address, and the replication factor of the
// keyspace the driver creates.
func (c Cluster) Props(nodes []cluster.Node) map[string]string {
	var addrs []string
	for _, n := range nodes {
		addrs = append(addrs, n.Addr)
	}
	return map[string]string{"hosts": strings.Join(addrs, ","), "cassandra.replicationfactor": strconv.Itoa(c.rf())}
}

// yaml is one node's cassandra.yaml: its directories, ports and token,
// sized for a small shared machine (small commit log, no snapshots before
// truncate or drop: benchmarks truncate often).
func (c Cluster) yaml(dir string, token int64, client, peer int, seeds string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `cluster_name: dbrig
num_tokens: 1
initial_token: %d
partitioner: org.apache.cassandra.dht.Murmur3Partitioner
data_file_directories: [%q]
commitlog_directory: %q
saved_caches_directory: %q
hints_directory: %q
cdc_raw_directory: %q
commitlog_sync: periodic
commitlog_sync_period: 10000ms
commitlog_segment_size: 16MiB
commitlog_total_space: 256MiB
seed_provider:
  - class_name: org.apache.cassandra.locator.SimpleSeedProvider
    parameters:
      - seeds: %q
listen_address: %s
rpc_address: %s
storage_port: %d
native_transport_port: %d
endpoint_snitch: SimpleSnitch
start_native_transport: true
auto_bootstrap: false
auto_snapshot: false
authenticator: AllowAllAuthenticator
authorizer: AllowAllAuthorizer
concurrent_compactors: 1
`, token, filepath.Join(dir, "data"), filepath.Join(dir, "commitlog"), filepath.Join(dir, "saved_caches"),
		filepath.Join(dir, "hints"), filepath.Join(dir, "cdc_raw"), seeds, cluster.Loopback, cluster.Loopback, peer, client)
	if c.Advertise != nil {
		// Known to its peers at its proxy; clients still reach the node
		// itself (broadcast_rpc_address defaults to rpc_address).
		fmt.Fprintf(&b, "broadcast_address: %s\n", peerHost)
	}
	keys := make([]string, 0, len(c.Settings))
	for k := range c.Settings {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "%s: %s\n", k, c.Settings[k])
	}
	return b.String()
}

// logback sends INFO and above to stdout, which is the node's log.
const logback = `<configuration>
  <appender name="OUT" class="ch.qos.logback.core.ConsoleAppender">
    <encoder><pattern>%-5level [%thread] %date{ISO8601} %F:%L - %msg%n</pattern></encoder>
  </appender>
  <root level="INFO"><appender-ref ref="OUT"/></root>
</configuration>
`

// jvmArgs are the JVM options of Cassandra's conf/jvm-server.options and
// jvm17-server.options that matter here: the module exports and opens
// Cassandra needs on Java 17, and a small heap with the serial collector
// (two cores).
func jvmArgs(heap string) []string {
	args := []string{"-Xms256m", "-Xmx" + heap, "-Xss256k", "-XX:+UseSerialGC", "-XX:+ExitOnOutOfMemoryError",
		"-da", "-Djava.net.preferIPv4Stack=true", "-Djdk.attach.allowAttachSelf=true",
		"-Dcassandra-foreground=yes", "-Dcassandra.skip_wait_for_gossip_to_settle=0",
		"-Dcassandra.superuser_setup_delay_ms=0"}
	for _, e := range []string{"java.base/jdk.internal.misc", "java.base/jdk.internal.ref", "java.base/sun.nio.ch",
		"java.management.rmi/com.sun.jmx.remote.internal.rmi", "java.rmi/sun.rmi.registry", "java.rmi/sun.rmi.server",
		"java.sql/java.sql", "java.base/java.lang.ref", "jdk.unsupported/sun.misc"} {
		args = append(args, "--add-exports", e+"=ALL-UNNAMED")
	}
	for _, o := range []string{"java.base/java.lang.module", "java.base/jdk.internal.loader", "java.base/jdk.internal.ref",
		"java.base/jdk.internal.reflect", "java.base/jdk.internal.math", "java.base/jdk.internal.module",
		"java.base/jdk.internal.util.jar", "jdk.management/com.sun.management.internal", "java.base/sun.nio.ch",
		"java.base/java.io", "java.base/java.nio", "java.base/java.util.concurrent", "java.base/java.util",
		"java.base/java.util.concurrent.atomic", "java.base/java.lang", "java.base/java.math",
		"java.base/java.lang.reflect", "java.base/java.net"} {
		args = append(args, "--add-opens", o+"=ALL-UNNAMED")
	}
	return args
}

// probe is a session to the one node at addr.
func probe(ctx context.Context, addr string) (*gocql.Session, error) {
	c := gocql.NewCluster(addr)
	c.DisableInitialHostLookup = true
	c.Events.DisableTopologyEvents = true
	c.Events.DisableSchemaEvents = true
	c.NumConns = 1
	c.ConnectTimeout = time.Second
	c.Timeout = 2 * time.Second
	if dl, ok := ctx.Deadline(); ok {
		c.ConnectTimeout = max(time.Until(dl), 10*time.Millisecond)
	}
	return c.CreateSession()
}

// nodeAnswers: the node's native protocol answers a query.
func nodeAnswers(ctx context.Context, addr string) error {
	s, err := probe(ctx, addr)
	if err != nil {
		return err
	}
	defer s.Close()
	var v string
	return s.Query("SELECT release_version FROM system.local").Consistency(gocql.One).ScanContext(ctx, &v)
}

// ringNormal: every node, asked itself, has finished joining (bootstrapped
// COMPLETED) and knows every other node with its token and host ID, and all
// agree on the schema: each is Up (it answers) and Normal (it owns its
// token) in the ring.
func ringNormal(ctx context.Context, addrs []string) error {
	schemas := map[string]bool{}
	for _, addr := range addrs {
		s, err := probe(ctx, addr)
		if err != nil {
			return fmt.Errorf("%s: %w", addr, err)
		}
		var boot, schema string
		err = s.Query("SELECT bootstrapped, schema_version FROM system.local").Consistency(gocql.One).ScanContext(ctx, &boot, &schema)
		if err != nil || boot != "COMPLETED" {
			s.Close()
			return fmt.Errorf("%s: bootstrapped %q (%v)", addr, boot, err)
		}
		schemas[schema] = true
		peers := 0
		iter := s.Query("SELECT host_id, tokens, schema_version FROM system.peers_v2").Consistency(gocql.One).IterContext(ctx)
		var id gocql.UUID
		var toks []string
		for iter.Scan(&id, &toks, &schema) {
			if len(toks) > 0 {
				peers++
			}
			schemas[schema] = true
		}
		err = iter.Close()
		s.Close()
		if err != nil {
			return fmt.Errorf("%s: peers: %w", addr, err)
		}
		if peers != len(addrs)-1 {
			return fmt.Errorf("%s: knows %d peers with tokens, want %d", addr, peers, len(addrs)-1)
		}
	}
	if len(schemas) != 1 {
		return fmt.Errorf("nodes disagree on the schema (%d versions)", len(schemas))
	}
	return nil
}

// newCluster builds the Cassandra recipe from system.cluster's options:
// nodes, binary (a directory of Cassandra's jars) and config: heap,
// replication-factor (of the keyspace the driver creates, at most nodes),
// version (of cassandra-all from Maven Central), and cassandra.yaml keys.
func newCluster(c spec.Cluster, given func(string) bool, refuse func(key, why string) error) (cluster.Recipe, error) {
	if k := driver.FirstGiven(given, "replicas", "sentinels"); k != "" {
		return nil, refuse(k, "cassandra has nodes, not replicas or sentinels: give nodes")
	}
	r := Cluster{Nodes: c.Nodes, Lib: c.Binary}
	for k, v := range c.Config {
		switch k {
		case "heap":
			r.Heap = v
		case "version":
			r.Version = v
		case "replication-factor":
			rf, err := strconv.Atoi(v)
			if err != nil || rf < 1 {
				return nil, refuse("config", fmt.Sprintf("replication-factor=%q: expected an integer >= 1", v))
			}
			r.ReplicationFactor = rf
		default:
			if r.Settings == nil {
				r.Settings = map[string]string{}
			}
			r.Settings[k] = v
		}
	}
	if r.ReplicationFactor > r.nodes() {
		return nil, refuse("config", fmt.Sprintf("replication-factor=%d: expected at most the %d nodes", r.ReplicationFactor, r.nodes()))
	}
	return r, nil
}
