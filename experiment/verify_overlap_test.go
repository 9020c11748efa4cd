package experiment

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/results"
)

// gateDB holds every write of the key "hot" until the gate opens, so that
// two of them overlap for certain.
type gateDB struct {
	*memDB
	started chan struct{}
	gate    chan struct{}
}

func (d gateDB) hold(key string) {
	if key == "hot" {
		d.started <- struct{}{}
		<-d.gate
	}
}

func (d gateDB) Insert(ctx context.Context, table, key string, v driver.Record) error {
	d.hold(key)
	return d.memDB.Insert(ctx, table, key, v)
}

func (d gateDB) Delete(ctx context.Context, table, key string) error {
	d.hold(key)
	return d.memDB.Delete(ctx, table, key)
}

// Two clients writing one key at once: the order the database applied
// them in is unknown, so the key is not judged (uncertain) whatever it
// holds afterwards, also after a later write of its own; the other keys
// are judged as usual.
func TestTrackerOverlappingWrites(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		second func(driver.DB) error // the write overlapping an insert of hot
		after  func(driver.DB)       // more writes once both ended
		lose   func(*memDB)
		want   results.Verification
	}{
		{"insert and delete at once, the key gone", func(db driver.DB) error { return db.Delete(ctx, "t", "hot") }, nil,
			func(d *memDB) { delete(d.m, "hot") },
			results.Verification{InsertsAcked: 2, Uncertain: 1}},
		{"insert and delete at once, the key there", func(db driver.DB) error { return db.Delete(ctx, "t", "hot") }, nil,
			func(d *memDB) { d.m["hot"] = true },
			results.Verification{InsertsAcked: 2, Uncertain: 1}},
		{"two inserts at once, then one alone, the key lost", func(db driver.DB) error { return db.Insert(ctx, "t", "hot", nil) },
			func(db driver.DB) { db.Insert(ctx, "t", "hot", nil) },
			func(d *memDB) { delete(d.m, "hot"); delete(d.m, "k1") },
			results.Verification{InsertsAcked: 2, Uncertain: 1, LostInserts: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mem := &memDB{m: map[string]bool{}}
			g := gateDB{memDB: mem, started: make(chan struct{}, 3), gate: make(chan struct{})}
			tr := newTracker(g)
			db := tr.wrap()
			for i := range 2 {
				if err := db.Insert(ctx, "t", fmt.Sprintf("k%d", i), nil); err != nil {
					t.Fatal(err)
				}
			}
			var wg sync.WaitGroup
			errs := make([]error, 2)
			wg.Add(2)
			go func() { defer wg.Done(); errs[0] = db.Insert(ctx, "t", "hot", nil) }()
			go func() { defer wg.Done(); errs[1] = tc.second(db) }()
			<-g.started
			<-g.started // both writes are in the driver now
			close(g.gate)
			wg.Wait()
			if errs[0] != nil || errs[1] != nil {
				t.Fatalf("writes failed: %v", errs)
			}
			if tc.after != nil {
				tc.after(db) // alone: the gate is open now
			}
			tc.lose(mem)
			got := tr.verify(ctx, time.Second)
			got.TookMS = 0
			if got != tc.want {
				t.Errorf("verify = %+v, want %+v", got, tc.want)
			}
		})
	}
}
