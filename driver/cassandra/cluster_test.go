package cassandra

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/cluster/clustertest"
	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/drivertest"
	"github.com/dbrig/dbrig/spec"
)

func TestTokensSpreadEvenly(t *testing.T) {
	if got := tokens(1); len(got) != 1 || got[0] != math.MinInt64 {
		t.Errorf("1 node: %v", got)
	}
	got := tokens(3)
	if got[0] != math.MinInt64 || got[1] != -3074457345618258603 || got[2] != 3074457345618258602 {
		t.Errorf("3 nodes: %v", got)
	}
}

func TestNewClusterOptions(t *testing.T) {
	refuse := func(key, why string) error { return fmt.Errorf("%s: %s", key, why) }
	given := func(keys ...string) func(string) bool {
		return func(k string) bool { return strings.Contains(strings.Join(keys, ","), k) }
	}
	r, err := newCluster(spec.Cluster{Nodes: 3, Config: map[string]string{"replication-factor": "2", "heap": "1g",
		"concurrent_reads": "8"}}, given("nodes", "config"), refuse)
	if err != nil {
		t.Fatal(err)
	}
	c := r.(Cluster)
	if c.rf() != 2 || c.Heap != "1g" || c.Settings["concurrent_reads"] != "8" {
		t.Errorf("%+v", c)
	}
	if got := c.Props([]cluster.Node{{Addr: "127.0.0.1:1"}, {Addr: "127.0.0.1:2"}}); got["hosts"] != "127.0.0.1:1,127.0.0.1:2" || got["cassandra.replicationfactor"] != "2" {
		t.Errorf("props %v", got)
	}
	if d := (Cluster{Nodes: 1}).Describe(); d != "cassandra × 1 nodes, replication factor 1" {
		t.Errorf("describe %q", d)
	}
	for _, tc := range []struct {
		c    spec.Cluster
		keys []string
		want string
	}{
		{spec.Cluster{Nodes: 1, Config: map[string]string{"replication-factor": "3"}}, []string{"nodes", "config"}, "config: replication-factor=3: expected at most the 1 nodes"},
		{spec.Cluster{Config: map[string]string{"replication-factor": "4"}}, []string{"config"}, "at most the 3 nodes"},
		{spec.Cluster{Config: map[string]string{"replication-factor": "x"}}, []string{"config"}, "expected an integer"},
		{spec.Cluster{Replicas: 1}, []string{"replicas"}, "replicas: cassandra has nodes"},
	} {
		if _, err := newCluster(tc.c, given(tc.keys...), refuse); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.c, err, tc.want)
		}
	}
}

func TestYAML(t *testing.T) {
	y := Cluster{Settings: map[string]string{"concurrent_writes": "8"}}.yaml("/d/cas2", -5, 19043, 17001, "127.0.0.1:17000,127.0.0.1:17001")
	for _, want := range []string{"initial_token: -5\n", "native_transport_port: 19043\n", "storage_port: 17001\n",
		`seeds: "127.0.0.1:17000,127.0.0.1:17001"`, `data_file_directories: ["/d/cas2/data"]`, "concurrent_writes: 8\n",
		"listen_address: 127.0.0.1\n"} {
		if !strings.Contains(y, want) {
			t.Errorf("yaml lacks %q:\n%s", want, y)
		}
	}
}

// advertiser records where it was asked to put proxies.
type advertiser struct{ at []string }

func (a *advertiser) Advertise(node, port, addr string) (string, error) {
	return "", errors.New("not at a chosen address")
}

func (a *advertiser) AdvertiseAt(node, port, listen, target string) error {
	a.at = append(a.at, node+" "+port+" "+listen+" -> "+target)
	return nil
}

// onlyAdvertise cannot place its proxies.
type onlyAdvertise struct{}

func (onlyAdvertise) Advertise(node, port, addr string) (string, error) { return "127.0.0.1:1", nil }

// Routed, a node is known to its peers at its proxy on peerHost and its own
// storage port, in front of its storage port on 127.0.0.1.
func TestRoutedPeers(t *testing.T) {
	a := &advertiser{}
	r, ok := cluster.WithAdvertiser(Cluster{}, a)
	if !ok {
		t.Fatal("cassandra takes no advertiser")
	}
	c := r.(Cluster)
	got, err := c.peerProxy("cas2", 17001)
	if err != nil || got != "127.0.0.2:17001" {
		t.Fatalf("peerProxy = %q, %v", got, err)
	}
	if len(a.at) != 1 || a.at[0] != "cas2 peer 127.0.0.2:17001 -> 127.0.0.1:17001" {
		t.Errorf("advertised %q", a.at)
	}
	y := c.yaml("/d/cas2", 0, 19043, 17001, "127.0.0.2:17000,127.0.0.2:17001")
	for _, want := range []string{"listen_address: 127.0.0.1\n", "broadcast_address: 127.0.0.2\n", "rpc_address: 127.0.0.1\n"} {
		if !strings.Contains(y, want) {
			t.Errorf("yaml lacks %q:\n%s", want, y)
		}
	}
	if y := (Cluster{}).yaml("/d", 0, 1, 2, ""); strings.Contains(y, "broadcast_address") {
		t.Errorf("not routed, yet a broadcast address:\n%s", y)
	}
	if _, err := (Cluster{Advertise: onlyAdvertise{}}).peerProxy("cas1", 17000); err == nil || !strings.Contains(err.Error(), "storage port (17000) of 127.0.0.2") {
		t.Errorf("an advertiser that cannot place proxies: %v", err)
	}
}

// A cache is used only when every jar matches the manifest.
func TestCachedChecksJars(t *testing.T) {
	lib := filepath.Join(t.TempDir(), "lib")
	os.MkdirAll(lib, 0o755)
	os.WriteFile(filepath.Join(lib, "a.jar"), []byte("a"), 0o644)
	if cached(lib) {
		t.Fatal("cached without a manifest")
	}
	sum, _ := cluster.FileSHA1(filepath.Join(lib, "a.jar"))
	os.WriteFile(manifest(lib), []byte(sum+"  a.jar\n"), 0o644)
	if !cached(lib) {
		t.Fatal("not cached with a matching manifest")
	}
	os.WriteFile(filepath.Join(lib, "a.jar"), []byte("b"), 0o644)
	if cached(lib) {
		t.Fatal("cached with a changed jar")
	}
}

// A one-node cluster stands up (jars fetched into the cache on first use),
// the driver reaches it through the recipe's properties, and it goes away.
func TestCassandraNode(t *testing.T) {
	if testing.Short() {
		t.Skip("a Cassandra node takes a minute to start")
	}
	c := up(t, Cluster{Nodes: 1})
	props := c.Props()
	if props["cassandra.replicationfactor"] != "1" || len(strings.Split(props["hosts"], ",")) != 1 {
		t.Fatalf("props %v", props)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	kv := []string{"table", "t1", "cassandra.keyspace", "ks"}
	for k, v := range props {
		kv = append(kv, k, v)
	}
	db, err := Open(ctx, driver.Config{Props: drivertest.Props(kv...)})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Insert(ctx, "t1", "k", driver.Record{"field0": []byte("v")}); err != nil {
		t.Fatal(err)
	}
	if v, err := db.(driver.Versioner).ServerVersion(ctx); err != nil || !strings.HasPrefix(v, "Cassandra 5.") {
		t.Errorf("version %q %v", v, err)
	}
	db.Close()
	clustertest.Down(t, c)
}

// up is clustertest.Up with the time Cassandra needs.
func up(t *testing.T, r cluster.Recipe) *cluster.Cluster {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	start := time.Now()
	c, err := cluster.Up(ctx, r, cluster.Options{})
	var missing *cluster.BinaryMissingError
	if errors.As(err, &missing) && os.Getenv("DBRIG_REQUIRE_SERVERS") != "1" {
		t.Skipf("SKIPPED: %v", err)
	}
	if err != nil {
		t.Fatalf("Up: %v", err)
	}
	t.Logf("%s up and ready in %v", cluster.Describe(r), time.Since(start).Round(time.Millisecond))
	t.Cleanup(func() { c.Down(context.Background()) })
	return c
}
