package ycsb

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/cassandra"
	"github.com/dbrig/dbrig/driver/drivertest"
	"github.com/dbrig/dbrig/driver/mongodb"
	"github.com/dbrig/dbrig/internal/testenv"
	"github.com/dbrig/dbrig/spec"
)

// The systems whose YCSB bindings users arrive with, on their test servers:
// every built-in workload (A–F and the 42/42/16 custom mix) runs through the
// real driver. Cassandra's server is up only in scripts/test's Cassandra
// phase, which runs this test by name (so without DBRIG_HOSTS it skips
// whatever DBRIG_REQUIRE_SERVERS says); FerretDB is up with the others.
var serverSystems = []struct {
	name string
	// props are the driver's properties and the table for workload wl.
	props func(t *testing.T, wl string) []string
	// open opens the driver on the test server with p (the workload's
	// properties and props'); the test's cleanup empties what it wrote.
	open func(t *testing.T, p *spec.Props) driver.DB
	// ops is the operations per workload; scans is E's (FerretDB reads the
	// whole collection for each, so few).
	ops, scans int
}{
	{"cassandra", cassandraProps, openCassandra, 300, 150},
	{"mongodb", mongoDBProps, openMongoDB, 200, 20},
}

// Cassandra: a keyspace of this test's, a table per workload (the same in
// every run: creating and dropping tables is slow), emptied before and after.
func cassandraProps(t *testing.T, wl string) []string {
	hosts := os.Getenv("DBRIG_HOSTS")
	if hosts == "" {
		t.Skip("DBRIG_HOSTS not set: Cassandra's workloads run in scripts/test's Cassandra phase")
	}
	return []string{"table=wl_" + wl, "hosts=" + hosts,
		"cassandra.keyspace=dbrig_ycsb_test", "cassandra.consistencylevel=ONE"}
}

func openCassandra(t *testing.T, p *spec.Props) driver.DB {
	db := drivertest.Open(t, cassandra.Open, driver.Config{Props: p})
	reset(t, db)
	t.Cleanup(func() { reset(t, db); db.Close() })
	return db
}

// MongoDB: a new collection per run (the server is shared), dropped after.
func mongoDBProps(t *testing.T, wl string) []string {
	return []string{fmt.Sprintf("table=wl_%s_%d", wl, time.Now().UnixNano()%1e9),
		"mongodb.url=" + testenv.Need(t, "DBRIG_MONGODB_URL")}
}

func openMongoDB(t *testing.T, p *spec.Props) driver.DB {
	db := drivertest.Open(t, mongodb.Open, driver.Config{Props: p, Dir: t.TempDir()})
	t.Cleanup(func() { reset(t, db); db.Close() }) // drops the collections it used
	return db
}

func reset(t *testing.T, db driver.DB) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := db.(driver.Resetter).Reset(ctx); err != nil {
		t.Errorf("reset: %v", err)
	}
}

func set(t *testing.T, p *spec.Props, kv ...string) {
	t.Helper()
	for _, s := range kv {
		if err := p.SetFlag("-p", s); err != nil {
			t.Fatal(err)
		}
	}
}

// TestWorkloadsOnServers loads 100 records and runs each built-in workload
// with two clients, with dataintegrity on (every value read is checked
// against the one written); no operation may fail. Beyond that, each
// operation must have done what the workload asked of the server: a scan
// returned records (at least its start key's, which exists, and at most the
// length asked), a read-modify-write read and then wrote, and every record
// inserted during the run reads back.
func TestWorkloadsOnServers(t *testing.T) {
	for _, sys := range serverSystems {
		t.Run(sys.name, func(t *testing.T) {
			for _, name := range BuiltinNames() {
				t.Run(name, func(t *testing.T) {
					ops := sys.ops
					if name == "workloade" {
						ops = sys.scans
					}
					runOnServer(t, sys.props(t, name), sys.open, name, ops)
				})
			}
		})
	}
}

func runOnServer(t *testing.T, props []string, open func(*testing.T, *spec.Props) driver.DB, name string, ops int) {
	text, _ := Builtin(name)
	p := spec.NewProps()
	if err := p.Load(name, bytes.NewReader(text)); err != nil {
		t.Fatal(err)
	}
	set(t, p, append(props, "recordcount=100", "dataintegrity=true")...)
	w, err := New(p)
	if err != nil {
		t.Fatal(err)
	}
	p.Known("operationcount") // the runner's (this test counts its own)
	db := &countingDB{DB: open(t, p), inserted: map[string]bool{}}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	const clients = 2
	cs := make([]*Client, clients)
	for i := range cs {
		if cs[i], err = w.newClient(i, 1); err != nil {
			t.Fatal(err)
		}
	}
	for {
		n, err := cs[0].Load(ctx, db, 50)
		if err != nil {
			t.Fatalf("load: %v", err)
		}
		if n == 0 {
			break
		}
	}
	db.mu.Lock()
	clear(db.inserted) // from here on: the run's inserts
	db.mu.Unlock()

	counts := make([][numOps]int, clients)
	var left atomic.Int64
	left.Store(int64(ops))
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for i, c := range cs {
		wg.Go(func() {
			for left.Add(-1) >= 0 {
				op, err := c.Do(ctx, db)
				if err != nil {
					errs <- fmt.Errorf("%s: %w", opNames[op], err)
					return
				}
				counts[i][op]++
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	var total [numOps]int
	for _, c := range counts {
		for op, n := range c {
			total[op] += n
		}
	}
	db.check(t, ctx, w, total)
}

// countingDB passes every call to DB and keeps what the test checks.
type countingDB struct {
	driver.DB
	scans, scanned, short atomic.Int64 // scans, records they returned, scans without their start key
	reads, updates        atomic.Int64
	mu                    sync.Mutex
	inserted              map[string]bool
}

func (c *countingDB) Read(ctx context.Context, table, key string, fields []string) (driver.Record, error) {
	c.reads.Add(1)
	return c.DB.Read(ctx, table, key, fields)
}

func (c *countingDB) Update(ctx context.Context, table, key string, values driver.Record) error {
	c.updates.Add(1)
	return c.DB.Update(ctx, table, key, values)
}

func (c *countingDB) Insert(ctx context.Context, table, key string, values driver.Record) error {
	c.mu.Lock()
	c.inserted[key] = true
	c.mu.Unlock()
	return c.DB.Insert(ctx, table, key, values)
}

func (c *countingDB) InsertBatch(ctx context.Context, table string, keys []string, values []driver.Record) error {
	return c.DB.(driver.BatchInserter).InsertBatch(ctx, table, keys, values)
}

func (c *countingDB) Scan(ctx context.Context, table, start string, n int, fields []string) ([]driver.Record, error) {
	recs, err := c.DB.Scan(ctx, table, start, n, fields)
	c.scans.Add(1)
	c.scanned.Add(int64(len(recs)))
	if err == nil && (len(recs) == 0 || len(recs) > n) {
		c.short.Add(1)
	}
	return recs, err
}

func (c *countingDB) check(t *testing.T, ctx context.Context, w *Workload, total [numOps]int) {
	t.Helper()
	sum := 0
	for op, n := range total {
		sum += n
		if w.proportions[op] > 0 && n == 0 {
			t.Errorf("no %s in the run", opNames[op])
		}
	}
	t.Logf("operations %v (%v), %d scans returned %d records", total, opNames, c.scans.Load(), c.scanned.Load())
	if total[OpScan] > 0 && c.short.Load() > 0 {
		t.Errorf("%d of %d scans returned no record or more than asked", c.short.Load(), c.scans.Load())
	}
	// A read-modify-write is one read and one update.
	if want := int64(total[OpRead] + total[OpReadModifyWrite]); c.reads.Load() != want {
		t.Errorf("%d reads, want %d", c.reads.Load(), want)
	}
	if want := int64(total[OpUpdate] + total[OpReadModifyWrite]); c.updates.Load() != want {
		t.Errorf("%d updates, want %d", c.updates.Load(), want)
	}
	if len(c.inserted) != total[OpInsert] {
		t.Errorf("%d keys inserted, want %d", len(c.inserted), total[OpInsert])
	}
	for key := range c.inserted {
		if _, err := c.DB.Read(ctx, w.table, key, nil); err != nil {
			t.Errorf("inserted %s: %v", key, err)
		}
	}
}
