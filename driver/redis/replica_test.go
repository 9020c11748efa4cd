package redis_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/drivertest"
	"github.com/dbrig/dbrig/driver/redis"
	"github.com/dbrig/dbrig/errclass"
	"github.com/dbrig/dbrig/experiment"
)

// With redis.read_addr the driver reads from a replica and writes to the
// primary: on a Redis primary + asynchronous replica that dbrig's cluster
// code starts, a client that updates a record and reads it back at once
// sometimes reads the older value, and the stale-read checker counts it
// (unpredictable); the same reads from the primary never are. Both
// clients.
func TestReadAddrReplicaStale(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Redis primary and replica")
	}
	if _, err := exec.LookPath("redis-server"); err != nil && os.Getenv("DBRIG_REQUIRE_SERVERS") != "1" {
		t.Skip("SKIPPED: redis-server not installed (apt-get install redis-server)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := cluster.Up(ctx, redis.Cluster{Replicas: 1}, cluster.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Down(context.Background())
	addrs := map[string]string{}
	for _, n := range c.Nodes() {
		addrs[n.Role] = n.Addr
	}
	if addrs["primary"] == "" || addrs["replica"] == "" {
		t.Fatalf("nodes %+v: want a primary and a replica", c.Nodes())
	}
	const table, keys = "stale", 50
	keyOf := func(i int) string { return fmt.Sprintf("user%03d", i) }
	val := func(s string) []byte { return fmt.Appendf(nil, "%-20s", s) }
	for _, client := range []string{redis.ClientRueidis, redis.ClientGoRedis} {
		t.Run(client, func(t *testing.T) {
			open := func(kv ...string) driver.DB {
				kv = append([]string{"redis.addr", addrs["primary"], "redis.client", client, "table", table, "threadcount", "4"}, kv...)
				return drivertest.Open(t, redis.Open, driver.Config{Props: drivertest.Props(kv...)})
			}
			primary := open()
			if err := primary.(driver.Resetter).Reset(ctx); err != nil {
				t.Fatal(err)
			}
			for i := range keys {
				if err := primary.Insert(ctx, table, keyOf(i), driver.Record{"field0": val("loaded")}); err != nil {
					t.Fatal(err)
				}
			}
			split := open("redis.read_addr", addrs["replica"])
			measure := func(db driver.DB) experiment.StaleResult {
				s := experiment.NewStaleReads()
				w := s.Wrap(db)
				var wg sync.WaitGroup
				stop := time.Now().Add(1500 * time.Millisecond)
				for g := range 4 {
					wg.Add(1)
					go func() {
						defer wg.Done()
						r := rand.New(rand.NewPCG(uint64(g), 7))
						for time.Now().Before(stop) {
							k := keyOf(r.IntN(keys))
							if err := w.Update(ctx, table, k, driver.Record{"field0": val("w")}); err != nil {
								t.Error(err)
								return
							}
							// Read it back at once, as a client of the same service would.
							if _, err := w.Read(ctx, table, k, []string{"field0"}); err != nil && !errors.Is(err, errclass.ErrNotFound) {
								t.Error(err)
								return
							}
						}
					}()
				}
				wg.Wait()
				return s.Result()
			}
			fromReplica := measure(split)
			fromPrimary := measure(primary)
			t.Logf("reads from the replica (redis.read_addr): %+v", fromReplica)
			t.Logf("reads from the primary: %+v", fromPrimary)
			if fromReplica.Checked < 100 || fromReplica.Unpredictable == 0 {
				t.Errorf("replica: %+v, want unpredictable reads among at least 100 checked", fromReplica)
			}
			if fromPrimary.Checked < 100 || fromPrimary.Unpredictable != 0 || fromPrimary.Wrong != 0 || fromReplica.Wrong != 0 {
				t.Errorf("primary: %+v (replica wrong %d), want no unpredictable or wrong reads among at least 100 checked", fromPrimary, fromReplica.Wrong)
			}
		})
	}
}

// With redis.client=rueidis and redis.sentinels the driver asks Sentinel for
// the primary (rueidis' Sentinel client) on a primary + replica + 3
// Sentinels that dbrig starts; redis.addr, unused, points nowhere.
func TestRueidisSentinel(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Redis primary, replica and 3 Sentinels")
	}
	if _, err := exec.LookPath("redis-server"); err != nil && os.Getenv("DBRIG_REQUIRE_SERVERS") != "1" {
		t.Skip("SKIPPED: redis-server not installed (apt-get install redis-server)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	r := redis.Cluster{Replicas: 1, Sentinels: 3}
	c, err := cluster.Up(ctx, r, cluster.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Down(context.Background())
	props := r.Props(c.Nodes())
	if props["redis.sentinels"] == "" {
		t.Fatalf("recipe props %v: no sentinels", props)
	}
	var replica string
	for _, n := range c.Nodes() {
		if n.Role == "replica" {
			replica = n.Addr
		}
	}
	db := drivertest.Open(t, redis.Open, driver.Config{Props: drivertest.Props(
		"redis.client", redis.ClientRueidis, "redis.sentinels", props["redis.sentinels"], "redis.master", props["redis.master"],
		"redis.addr", "127.0.0.1:1", // not used with sentinels
		"table", "rs")})
	if got := db.(driver.Describer).Target(); !strings.HasPrefix(got, "redis-sentinel://") {
		t.Errorf("target %q, want redis-sentinel://…", got)
	}
	if err := db.Insert(ctx, "rs", "k", driver.Record{"field0": []byte("v")}); err != nil {
		t.Fatalf("insert through Sentinel: %v", err)
	}
	if got, err := db.Read(ctx, "rs", "k", nil); err != nil || string(got["field0"]) != "v" {
		t.Fatalf("read back through Sentinel: %v, %v", got, err)
	}
	// A replica refuses writes (READONLY), so the insert reached the
	// primary; reads through redis.read_addr see it once replicated.
	rd := drivertest.Open(t, redis.Open, driver.Config{Props: drivertest.Props(
		"redis.client", redis.ClientRueidis, "redis.addr", props["redis.addr"], "redis.read_addr", replica, "table", "rs")})
	deadline := time.Now().Add(5 * time.Second)
	for {
		got, err := rd.Read(ctx, "rs", "k", nil)
		if err == nil && string(got["field0"]) == "v" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the replica never had the record: %v, %v", got, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
