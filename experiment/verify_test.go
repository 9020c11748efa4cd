package experiment

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/dbrig/dbrig/cluster"
	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/all"
	"github.com/dbrig/dbrig/driver/redis"
	"github.com/dbrig/dbrig/errclass"
	"github.com/dbrig/dbrig/inject"
	"github.com/dbrig/dbrig/results"
	"github.com/dbrig/dbrig/spec"
)

// memDB is an in-memory driver that can lose writes on purpose.
type memDB struct {
	mu          sync.Mutex
	m           map[string]bool
	failInsert  map[string]bool // these inserts fail (after being applied)
	keepDeleted bool            // deletes are acknowledged but not applied
}

func (d *memDB) Read(_ context.Context, _, key string, _ []string) (driver.Record, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.m[key] {
		return nil, fmt.Errorf("%s: %w", key, errclass.ErrNotFound)
	}
	return driver.Record{}, nil
}
func (d *memDB) Scan(context.Context, string, string, int, []string) ([]driver.Record, error) {
	return nil, nil
}
func (d *memDB) Update(context.Context, string, string, driver.Record) error { return nil }
func (d *memDB) Insert(_ context.Context, _, key string, _ driver.Record) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.m[key] = true
	if d.failInsert[key] {
		return errclass.Wrap(errclass.Timeout, errors.New("timeout"))
	}
	return nil
}
func (d *memDB) Delete(_ context.Context, _, key string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.keepDeleted {
		delete(d.m, key)
	}
	return nil
}
func (d *memDB) Close() error { return nil }

func TestTracker(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		db   *memDB
		lose func(*memDB) // after the writes
		want results.Verification
	}{
		{"nothing lost", &memDB{m: map[string]bool{}}, nil,
			results.Verification{InsertsAcked: 7, DeletesAcked: 3}},
		{"a failed insert is not judged", &memDB{m: map[string]bool{}, failInsert: map[string]bool{"k0": true}}, func(d *memDB) { delete(d.m, "k0") },
			results.Verification{InsertsAcked: 6, DeletesAcked: 3, Uncertain: 1}},
		{"inserts lost", &memDB{m: map[string]bool{}}, func(d *memDB) { delete(d.m, "k8"); delete(d.m, "k9") },
			results.Verification{InsertsAcked: 7, DeletesAcked: 3, LostInserts: 2}},
		{"deletes come back", &memDB{m: map[string]bool{}, keepDeleted: true}, nil,
			results.Verification{InsertsAcked: 7, DeletesAcked: 3, ResurrectedDeletes: 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTracker(tc.db)
			db := tr.wrap()
			for i := range 10 {
				db.Insert(ctx, "t", fmt.Sprintf("k%d", i), nil)
			}
			for i := 1; i <= 3; i++ {
				db.Delete(ctx, "t", fmt.Sprintf("k%d", i))
			}
			if tc.lose != nil {
				tc.lose(tc.db)
			}
			got := tr.verify(ctx, time.Second)
			got.TookMS = 0
			if got != tc.want {
				t.Errorf("verify = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestLostWritesRedis: on a Redis dbrig started (no persistence: save "",
// appendonly no), acknowledged writes read back in full; after the node is
// killed and restarted on its (empty) data dir, every acknowledged insert
// is counted as lost.
func TestLostWritesRedis(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := cluster.Up(ctx, redis.Cluster{}, cluster.Options{})
	var missing *cluster.BinaryMissingError
	if errors.As(err, &missing) && os.Getenv("DBRIG_REQUIRE_SERVERS") != "1" {
		t.Skipf("SKIPPED: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer c.Down(context.Background())
	props := spec.NewProps()
	for k, v := range c.Props() {
		props.Set(k, v, spec.Source{Flag: "test"})
	}
	props.Set("table", "f9verify", spec.Source{Flag: "test"})
	raw, err := all.Registry().Open(ctx, "redis", driver.Config{Props: props, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	tr := newTracker(raw)
	db := tr.wrap()
	if _, ok := db.(driver.BatchInserter); ok != isBatch(raw) {
		t.Fatalf("the tracker hides or adds batch inserts (driver: %v)", isBatch(raw))
	}
	for i := range 50 {
		if err := db.Insert(ctx, "f9verify", fmt.Sprintf("user%d", i), driver.Record{"field0": []byte("v")}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 10 {
		if err := db.Delete(ctx, "f9verify", fmt.Sprintf("user%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	v := tr.verify(ctx, 2*time.Second)
	if v.InsertsAcked != 40 || v.DeletesAcked != 10 || v.Lost() != 0 || v.Unreadable != 0 {
		t.Fatalf("before the loss: %+v, want 40 inserts and 10 deletes acknowledged, none lost", v)
	}
	nodes, err := c.Resolve(ctx, "primary")
	if err != nil {
		t.Fatal(err)
	}
	if err := (inject.Kill{}).Inject(ctx, inject.Target{PIDs: []int{nodes[0].PID}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Restart(ctx, nodes[0].Name); err != nil {
		t.Fatal(err)
	}
	v = tr.verify(ctx, 2*time.Second)
	t.Logf("after kill and restart without persistence: %+v", v)
	if v.LostInserts != 40 || v.ResurrectedDeletes != 0 {
		t.Fatalf("after the loss: %+v, want all 40 acknowledged inserts lost", v)
	}
}

func isBatch(db driver.DB) bool { _, ok := db.(driver.BatchInserter); return ok }
