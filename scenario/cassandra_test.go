package scenario

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/cassandra"
	"github.com/dbrig/dbrig/driver/drivertest"
	"github.com/dbrig/dbrig/errclass"
	"github.com/dbrig/dbrig/inject"
)

// A partition of a Cassandra node cuts its storage (inter-node) traffic,
// which goes through the peer proxies on 127.0.0.2, and heals: the other
// nodes' gossip marks it down, QUORUM writes of the keys with a copy on it
// fail while those of the other keys succeed, and after the heal it is up
// again and every write succeeds. Three nodes take minutes to start on a
// small machine: DBRIG_CASSANDRA_PARTITION=1 runs it.
func TestCassandraPartition(t *testing.T) {
	if os.Getenv("DBRIG_CASSANDRA_PARTITION") != "1" {
		t.Skip("SKIPPED: three Cassandra nodes take minutes to start; DBRIG_CASSANDRA_PARTITION=1 runs this")
	}
	nw := NewNetwork(1)
	t.Cleanup(nw.Close)
	r, ok := cluster.WithAdvertiser(cassandra.Cluster{Nodes: 3, ReplicationFactor: 2, Heap: "512m"}, nw)
	if !ok {
		t.Fatal("cassandra takes no advertiser")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	c := upKnown(ctx, t, nw, r)
	kv := []string{"table", "t", "cassandra.keyspace", "dbrig_partition", "cassandra.consistencylevel", "QUORUM",
		"cassandra.readtimeoutmillis", "4000"}
	for k, v := range c.Props() {
		kv = append(kv, k, v)
	}
	db, err := cassandra.Open(ctx, driver.Config{Props: drivertest.Props(kv...)})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	nodes := map[string]cluster.Node{}
	for _, n := range c.Nodes() {
		nodes[n.Name] = n
	}
	cas3 := fmt.Sprintf("/127.0.0.2:%d is now ", nodes["cas3"].Ports["peer"])

	if good, bad := writes(ctx, t, db, 60); bad != 0 {
		t.Fatalf("before the partition: %d of %d writes failed", bad, good+bad)
	}
	links, err := nw.links("cas3", "peer")
	if err != nil {
		t.Fatal(err)
	}
	target := inject.Target{Links: links}
	if err := (inject.Partition{}).Inject(ctx, target); err != nil {
		t.Fatal(err)
	}
	waitLog(ctx, t, nodes["cas1"].Log, cas3+"DOWN", 0)
	good, bad := writes(ctx, t, db, 60)
	t.Logf("during the partition: %d writes succeeded, %d failed", good, bad)
	// A third of the keys live on cas1 and cas2 alone, the others have a
	// copy on cas3 (one evenly spread token per node, replication factor 2).
	if good == 0 || bad == 0 {
		t.Errorf("during the partition: %d writes succeeded and %d failed, want both", good, bad)
	}
	if err := (inject.Partition{}).Heal(ctx, target); err != nil {
		t.Fatal(err)
	}
	waitLog(ctx, t, nodes["cas1"].Log, cas3+"UP", strings.Index(readLog(t, nodes["cas1"].Log), cas3+"DOWN"))
	for {
		good, bad := writes(ctx, t, db, 60)
		if bad == 0 {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("after the heal: %d of %d writes still fail", bad, good+bad)
		}
		time.Sleep(time.Second)
	}
}

// writes writes n keys at once and counts the successes and the failures;
// a failure must be a timeout or unavailable.
func writes(ctx context.Context, t *testing.T, db driver.DB, n int) (good, bad int) {
	t.Helper()
	var mu sync.Mutex
	var wg sync.WaitGroup
	var other []error
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := db.Insert(ctx, "t", fmt.Sprintf("key%d", i), driver.Record{"field0": []byte("v")})
			mu.Lock()
			defer mu.Unlock()
			switch c := errclass.Of(err); {
			case err == nil:
				good++
			case c == errclass.Timeout || c == errclass.Unavailable:
				bad++
			default:
				other = append(other, fmt.Errorf("key%d: %w (%s)", i, err, c))
			}
		}()
	}
	wg.Wait()
	if len(other) > 0 {
		t.Fatalf("writes failed otherwise than by a timeout or unavailable: %v", errors.Join(other...))
	}
	return good, bad
}

func readLog(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// waitLog waits until the node's log has line after byte offset from.
func waitLog(ctx context.Context, t *testing.T, path, line string, from int) {
	t.Helper()
	for {
		if i := strings.Index(readLog(t, path)[max(from, 0):], line); i >= 0 {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s never logged %q", path, line)
		case <-time.After(500 * time.Millisecond):
		}
	}
}
