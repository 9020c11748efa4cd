package rating

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/all"
	"github.com/dbrig/dbrig/driver/drivertest"
	"github.com/dbrig/dbrig/experiment"
	"github.com/dbrig/dbrig/internal/testenv"
)

// repairCase loads a data set, runs a write-heavy experiment (updates,
// read-modify-writes, inserts, deletes) with the key log in front of the
// driver, repairs what it wrote and compares a checksum of every record
// (the loaded keys and those the experiment inserted) with the one taken
// after the load.
func repairCase(t *testing.T, drv string, props ...string) {
	t.Helper()
	ctx := context.Background()
	const records = 400
	dir := t.TempDir()
	base := experiment.Options{Driver: drv, Store: filepath.Join(dir, "r.db"), Recreate: true, Props: append([]string{
		fmt.Sprintf("recordcount=%d", records), "operationcount=1000", "dataintegrity=true", "threadcount=4",
		"readproportion=0.2", "updateproportion=0.3", "readmodifywriteproportion=0.1", "insertproportion=0.2", "deleteproportion=0.2",
		"fieldcount=4", "fieldlength=20"}, props...)}
	load := base
	load.LoadOnly = true
	lp, err := experiment.Resolve(load)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := experiment.Execute(ctx, lp, experiment.Hooks{}); err != nil {
		t.Fatal(err)
	}
	w := lp.Workload
	keyer := w.(interface{ Key(int64) string })
	table := w.(interface{ Table() string }).Table()
	var keys []string
	for i := int64(0); i < records+1000; i++ { // the experiment inserts fewer than 1000
		keys = append(keys, keyer.Key(i))
	}
	reg := all.Registry()
	open := func() driver.DB {
		db, err := reg.Open(ctx, drv, driver.Config{Props: lp.Props, Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		return db
	}
	t.Cleanup(func() { // the shared servers keep no test data
		db := open()
		defer db.Close()
		if pre, ok := db.(driver.Preloaded); ok { // the driver learns the table
			if _, err := pre.Records(ctx, table); err != nil {
				t.Error(err)
			}
		}
		if r, ok := db.(driver.Resetter); ok {
			if err := r.Reset(ctx); err != nil {
				t.Errorf("cleanup: %v", err)
			}
		}
	})
	db := open()
	before := drivertest.Checksum(t, db, table, keys)
	db.Close()

	run := base
	run.SkipLoad, run.Recreate = true, false
	rp, err := experiment.Resolve(run)
	if err != nil {
		t.Fatal(err)
	}
	log := newKeyLog(0)
	if _, err := experiment.Execute(ctx, rp, experiment.Hooks{WrapDB: log.wrap}); err != nil {
		t.Fatal(err)
	}
	written, ok := log.written(table)
	if !ok || len(written) < 100 {
		t.Fatalf("the log holds %d keys (ok %v), want the experiment's writes", len(written), ok)
	}
	db = open()
	defer db.Close()
	if drivertest.Checksum(t, db, table, keys) == before {
		t.Fatal("the experiment did not change the data: the test proves nothing")
	}
	if err := repair(ctx, db, table, w.(regenerator), written); err != nil {
		t.Fatal(err)
	}
	if after := drivertest.Checksum(t, db, table, keys); after != before {
		t.Errorf("checksum after repairing %d keys %s, want %s (after the load)", len(written), after, before)
	}
}

func TestRepairRestoresExactly(t *testing.T) {
	t.Parallel() // real time, but a loose SLA: load does not decide it
	t.Run("pebble", func(t *testing.T) {
		repairCase(t, "pebble", "pebble.dir="+filepath.Join(t.TempDir(), "data"))
	})
	t.Run("sqlite", func(t *testing.T) {
		repairCase(t, "sqlite", "sqlite.path="+filepath.Join(t.TempDir(), "y.db"))
	})
	t.Run("redis", func(t *testing.T) {
		addr := testenv.Need(t, "DBRIG_REDIS_ADDR")
		repairCase(t, "redis", "redis.addr="+addr, "redis.password="+os.Getenv("DBRIG_REDIS_PASSWORD"), "table=r10b_repair")
	})
	t.Run("postgres", func(t *testing.T) {
		url := testenv.Need(t, "DBRIG_PG_URL")
		repairCase(t, "postgres", "pg.url="+url, "table=r10b_repair")
	})
}
