package sqlite

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/drivertest"
	"github.com/dbrig/dbrig/spec"
)

func TestSnapshotRestoresExactly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ycsb.db")
	open := func(t *testing.T) driver.DB {
		p := spec.NewProps()
		p.Set("sqlite.path", path, spec.Source{Flag: "test"})
		p.Set("table", "r10snap", spec.Source{Flag: "test"})
		db, err := Open(context.Background(), driver.Config{Props: p})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	drivertest.Snapshot(t, open, "r10snap", 500)
}
