package postgres

import (
	"context"
	"testing"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/drivertest"
	"github.com/dbrig/dbrig/internal/testenv"
)

func TestSnapshotRestoresExactly(t *testing.T) {
	url := testenv.Need(t, "DBRIG_PG_URL")
	const table = "r10snap"
	reopen := func(t *testing.T) driver.DB { return open(t, "pg.url="+url, "table="+table) }
	db := open(t, "pg.url="+url, "table="+table)
	if _, err := db.pool.Exec(context.Background(), "DROP TABLE IF EXISTS "+table); err != nil {
		t.Fatal(err)
	}
	db.Close()
	drivertest.Snapshot(t, reopen, table, 500)
}

func TestSnapshotRestoresKeysExactly(t *testing.T) {
	url := testenv.Need(t, "DBRIG_PG_URL")
	const table = "r10snapkeys"
	reopen := func(t *testing.T) driver.DB { return open(t, "pg.url="+url, "table="+table) }
	db := open(t, "pg.url="+url, "table="+table)
	if _, err := db.pool.Exec(context.Background(), "DROP TABLE IF EXISTS "+table); err != nil {
		t.Fatal(err)
	}
	db.Close()
	drivertest.SnapshotKeys(t, reopen, table, 500)
}
