package sqlite

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/drivertest"
	"github.com/dbrig/dbrig/spec"
)

func opener(path, table string) func(t *testing.T) driver.DB {
	return func(t *testing.T) driver.DB {
		p := spec.NewProps()
		p.Set("sqlite.path", path, spec.Source{Flag: "test"})
		p.Set("table", table, spec.Source{Flag: "test"})
		db, err := Open(context.Background(), driver.Config{Props: p})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
}

func TestSnapshotRestoresExactly(t *testing.T) {
	drivertest.Snapshot(t, opener(filepath.Join(t.TempDir(), "ycsb.db"), "r10snap"), "r10snap", 500)
}

// RestoreKeys puts back exactly the written keys (drivertest.SnapshotKeys
// writes, inserts and deletes some and compares checksums).
func TestSnapshotRestoresWrittenKeys(t *testing.T) {
	drivertest.SnapshotKeys(t, opener(filepath.Join(t.TempDir(), "ycsb.db"), "r10ckeys"), "r10ckeys", 500)
}
