package redis

import (
	"testing"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/drivertest"
)

func TestSnapshotRestoresExactly(t *testing.T) {
	addr, props := server(t)
	const table = "r10snap"
	dropTable(t, addr, table)
	reopen := func(t *testing.T) driver.DB {
		db := open(t, props("redis.addr", addr, "table", table))
		t.Cleanup(func() { db.Close() })
		return db
	}
	drivertest.Snapshot(t, reopen, table, 500)
}

func TestSnapshotRestoresKeysExactly(t *testing.T) {
	addr, props := server(t)
	const table = "r10bsnapkeys"
	dropTable(t, addr, table)
	reopen := func(t *testing.T) driver.DB {
		db := open(t, props("redis.addr", addr, "table", table))
		t.Cleanup(func() { db.Close() })
		return db
	}
	drivertest.SnapshotKeys(t, reopen, table, 500)
}
