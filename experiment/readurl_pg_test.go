package experiment

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/all"
	"github.com/dbrig/dbrig/driver/postgres"
	"github.com/dbrig/dbrig/errclass"
	"github.com/dbrig/dbrig/spec"
)

// The postgres driver's pg.read_url sends reads to a streaming replica and
// writes to the primary: the stale-read check then finds unpredictable
// reads, as it does with the test's own split (TestStaleReadsOnPostgresReplica),
// and none when the same driver is opened without pg.read_url.
func TestPostgresReadURLReadsFromReplica(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a PostgreSQL primary and replica")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := cluster.Up(ctx, postgres.Cluster{Replicas: 1, Settings: map[string]string{"fsync": "off"}}, cluster.Options{})
	var missing *cluster.BinaryMissingError
	if errors.As(err, &missing) && os.Getenv("DBRIG_REQUIRE_SERVERS") != "1" {
		t.Skipf("SKIPPED: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer c.Down(context.Background())
	urls := map[string]string{}
	for _, n := range c.Nodes() {
		urls[n.Role] = n.URL
	}
	if urls["primary"] == "" || urls["replica"] == "" {
		t.Fatalf("nodes %+v: want a primary and a replica", c.Nodes())
	}
	reg := all.Registry()
	open := func(props string) driver.DB {
		p := spec.NewProps()
		if err := p.Load("test", strings.NewReader(props+"table=readurl\nthreadcount=4\n")); err != nil {
			t.Fatal(err)
		}
		db, err := reg.Open(ctx, "postgres", driver.Config{Props: p, Dir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	primaryOnly := open("pg.url=" + urls["primary"] + "\n")
	const keys = 50
	keyOf := func(i int) string { return fmt.Sprintf("user%03d", i) }
	for i := range keys {
		if err := primaryOnly.Insert(ctx, "readurl", keyOf(i), driver.Record{"field0": val("loaded")}); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(time.Second) // the replica catches up with the table and the load
	split := open("pg.url=" + urls["primary"] + "\npg.read_url=" + urls["replica"] + "\n")
	measure := func(db driver.DB) StaleResult {
		s := NewStaleReads()
		w := s.Wrap(db)
		var wg sync.WaitGroup
		stop := time.Now().Add(1500 * time.Millisecond)
		for g := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := rand.New(rand.NewPCG(uint64(g), 11))
				for time.Now().Before(stop) {
					k := keyOf(r.IntN(keys))
					if err := w.Update(ctx, "readurl", k, driver.Record{"field0": val("w")}); err != nil {
						t.Error(err)
						return
					}
					if _, err := w.Read(ctx, "readurl", k, []string{"field0"}); err != nil && !errors.Is(err, errclass.ErrNotFound) {
						t.Error(err)
						return
					}
				}
			}()
		}
		wg.Wait()
		return s.Result()
	}
	withReadURL := measure(split)
	without := measure(primaryOnly)
	t.Logf("pg.read_url=replica: %+v", withReadURL)
	t.Logf("no pg.read_url:      %+v", without)
	if withReadURL.Checked < 100 || withReadURL.Unpredictable == 0 {
		t.Errorf("pg.read_url=replica: %+v, want unpredictable reads among at least 100 checked", withReadURL)
	}
	if without.Checked < 100 || without.Unpredictable != 0 || without.Wrong != 0 || withReadURL.Wrong != 0 {
		t.Errorf("no pg.read_url: %+v (with it, wrong %d), want no unpredictable or wrong reads among at least 100 checked", without, withReadURL.Wrong)
	}
	// Scans go to the replica too (a read-only server answers them).
	if _, err := split.Scan(ctx, "readurl", keyOf(0), 5, nil); err != nil {
		t.Errorf("scan through pg.read_url: %v", err)
	}
}
