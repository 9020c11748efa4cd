package cassandra

import (
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/drivertest"
)

// ringHostsEnv names the native addresses of a Cassandra cluster of
// several nodes (scripts/test-servers up cassandra3); the routing tests
// skip without it.
const ringHostsEnv = "DBRIG_CASSANDRA_RING_HOSTS"

// Each request is coordinated by a replica of its key, on nodes that share
// one address (the recipe's: 127.0.0.1, ports apart). The server is the
// judge: in a keyspace of replication factor 1 every key has one replica,
// which alone reads or writes it locally (system_views.local_*_latency);
// the coordinator counts the request in system_views.coordinator_*_latency.
// Token-aware routing makes both counts equal on every node; gocql's own
// token-aware policy sent every request to one node (the others counted
// local reads they had not coordinated).
func TestTokenAwareRouting(t *testing.T) {
	addrs := ringHosts(t)
	db, table := openRing(t, addrs)
	checkRouting(t, db, addrs, table)
}

// Through a proxy in front of each node (dbrig's client proxies during a
// run with faults), the session reaches every node through its proxy (the
// ring names them by their own addresses: behindProxies maps those to the
// proxies), still token-aware: with the proxies cut, nothing answers.
func TestTokenAwareRoutingThroughProxies(t *testing.T) {
	addrs := ringHosts(t)
	px := drivertest.NewProxies(t, addrs...)
	db, table := openRing(t, px.Addrs())
	checkRouting(t, db, addrs, table)
	for i, p := range px {
		if up, _, conns := p.Traffic(); up == 0 || conns == 0 {
			t.Errorf("nothing went through %s's proxy", addrs[i])
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	px.Down()
	for i := range 30 { // keys of every node
		if _, err := db.Read(ctx, table, fmt.Sprintf("user%d", i), nil); err == nil {
			t.Fatalf("reading user%d succeeded with every proxy cut: the session reaches a node past its proxy", i)
		}
	}
	px.Up()
	for {
		_, err := db.Read(ctx, table, "user1", nil)
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("after the proxies are back: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// ringHosts are the native addresses of the ring's nodes.
func ringHosts(t *testing.T) []string {
	hosts := os.Getenv(ringHostsEnv)
	if hosts == "" {
		t.Skipf("SKIPPED: %s is not set (scripts/test-servers up cassandra3)", ringHostsEnv)
	}
	addrs := strings.Split(hosts, ",")
	if len(addrs) < 2 {
		t.Fatalf("%s=%s: want the native addresses of several nodes", ringHostsEnv, hosts)
	}
	return addrs
}

// openRing opens the driver at hosts, on a table of its own in a keyspace
// of replication factor 1, at ONE.
func openRing(t *testing.T, hosts []string) (*DB, string) {
	table := fmt.Sprintf("route_%d", time.Now().UnixNano()%1e9)
	p := drivertest.Props("hosts", strings.Join(hosts, ","), "table", table, "cassandra.keyspace", "dbrig_route",
		"cassandra.replicationfactor", "1", "cassandra.consistencylevel", "ONE", "cassandra.readtimeoutmillis", "3000")
	db := drivertest.Open(t, open, driver.Config{Props: p})
	t.Cleanup(func() {
		if err := db.sess.Query("DROP TABLE IF EXISTS dbrig_route." + table).Exec(); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	})
	if db.nodes != len(hosts) {
		t.Fatalf("the ring has %d nodes, %d hosts given", db.nodes, len(hosts))
	}
	return db, table
}

// checkRouting inserts and reads keys through db and checks, by the nodes'
// own counts (asked at addrs), that each request went to its key's replica.
func checkRouting(t *testing.T, db *DB, addrs []string, table string) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const keys = 120
	before := requestCounts(ctx, t, addrs, table)
	for i := range keys {
		k := fmt.Sprintf("user%d", i)
		if err := db.Insert(ctx, table, k, driver.Record{"field0": []byte(k)}); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Read(ctx, table, k, []string{"field0"}); err != nil {
			t.Fatal(err)
		}
	}
	// The metrics are updated as each request completes; wait until every
	// key's local read has been counted.
	got := countsAfter(ctx, t, addrs, table, before, func(c counts) int { return c.localRead }, keys)
	for _, a := range addrs {
		d := got[a].minus(before[a])
		t.Logf("%s: coordinated %d reads, %d writes; served %d reads, %d writes locally",
			a, d.coordRead, d.coordWrite, d.localRead, d.localWrite)
		if d.coordRead != d.localRead || d.coordWrite != d.localWrite {
			t.Errorf("%s coordinated %d reads and %d writes but holds the keys of %d and %d: requests did not go to their key's replica",
				a, d.coordRead, d.coordWrite, d.localRead, d.localWrite)
		}
	}
}

// counts are one node's request counts of one table.
type counts struct{ coordRead, coordWrite, localRead, localWrite int }

func (c counts) minus(o counts) counts {
	return counts{c.coordRead - o.coordRead, c.coordWrite - o.coordWrite, c.localRead - o.localRead, c.localWrite - o.localWrite}
}

// requestCounts asks each node (a session to it alone) for its counts of
// table in keyspace dbrig_route.
func requestCounts(ctx context.Context, t *testing.T, addrs []string, table string) map[string]counts {
	t.Helper()
	out := map[string]counts{}
	for _, a := range addrs {
		s, err := probe(ctx, a)
		if err != nil {
			t.Fatalf("%s: %v", a, err)
		}
		var c counts
		for _, m := range []struct {
			view string
			n    *int
		}{{"coordinator_read_latency", &c.coordRead}, {"coordinator_write_latency", &c.coordWrite},
			{"local_read_latency", &c.localRead}, {"local_write_latency", &c.localWrite}} {
			var n int64
			err := s.Query("SELECT count FROM system_views."+m.view+" WHERE keyspace_name = 'dbrig_route' AND table_name = ?", table).
				Consistency(gocql.One).ScanContext(ctx, &n)
			if err != nil && err != gocql.ErrNotFound {
				s.Close()
				t.Fatalf("%s: %s: %v", a, m.view, err)
			}
			*m.n = int(n)
		}
		s.Close()
		out[a] = c
	}
	return out
}

// The load's unlogged batches go to the replica of their records: in a
// keyspace of replication factor 1 each node writes locally exactly the
// keys the ring gives it, and coordinates exactly its own batches (the
// server counts a batch once in coordinator_write_latency; sent
// round-robin, the counts were off on every node).
func TestLoadBatchRouting(t *testing.T) {
	addrs := ringHosts(t)
	db, table := openRing(t, addrs)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	keys := make([]string, 240)
	values := make([]driver.Record, len(keys))
	for i := range keys {
		keys[i] = fmt.Sprintf("user%d", i)
		values[i] = driver.Record{"field0": []byte(keys[i])}
	}
	wantKeys, wantBatches := map[string]int{}, map[string]int{}
	r := db.policy.ring.Load()
	owner := func(k string) string {
		h := r.replicas(murmur3([]byte(k)), map[string]int{"": 1})[0]
		return net.JoinHostPort(h.ConnectAddress().String(), strconv.Itoa(h.Port()))
	}
	for _, b := range loadBatches(keys, values, db.replicaSet, db.batch, loadBatchBytes) {
		wantBatches[owner(keys[b[0]])]++
		for _, i := range b {
			wantKeys[owner(keys[i])]++
		}
	}
	before := requestCounts(ctx, t, addrs, table)
	if err := db.InsertBatch(ctx, table, keys, values); err != nil {
		t.Fatal(err)
	}
	got := countsAfter(ctx, t, addrs, table, before, func(c counts) int { return c.localWrite }, len(keys))
	for _, a := range addrs {
		d := got[a].minus(before[a])
		t.Logf("%s: coordinated %d writes, wrote %d locally; holds %d keys in %d batches", a, d.coordWrite, d.localWrite, wantKeys[a], wantBatches[a])
		if d.localWrite != wantKeys[a] || d.coordWrite != wantBatches[a] {
			t.Errorf("%s coordinated %d writes and wrote %d locally, want %d batches of %d keys: batches not sent to their replica",
				a, d.coordWrite, d.localWrite, wantBatches[a], wantKeys[a])
		}
	}
}

// countsAfter asks the nodes for their counts until the figure of (summed
// over the nodes, less before's) reaches want, or ctx ends: the server
// updates its metrics as each request completes.
func countsAfter(ctx context.Context, t *testing.T, addrs []string, table string, before map[string]counts, of func(counts) int, want int) map[string]counts {
	t.Helper()
	for {
		got := requestCounts(ctx, t, addrs, table)
		n := 0
		for _, a := range addrs {
			n += of(got[a]) - of(before[a])
		}
		if n >= want || ctx.Err() != nil {
			return got
		}
		time.Sleep(100 * time.Millisecond)
	}
}
