package pebble

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/drivertest"
	"github.com/dbrig/dbrig/spec"
)

func TestSnapshotRestoresExactly(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	open := func(t *testing.T) driver.DB {
		p := spec.NewProps()
		p.Set(PropDir, dir, spec.Source{Flag: "test"})
		db, err := Open(context.Background(), driver.Config{Props: p})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	drivertest.Snapshot(t, open, "r10snap", 500)
}

func TestSnapshotRestoresKeysExactly(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	open := func(t *testing.T) driver.DB {
		p := spec.NewProps()
		p.Set(PropDir, dir, spec.Source{Flag: "test"})
		db, err := Open(context.Background(), driver.Config{Props: p})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	drivertest.SnapshotKeys(t, open, "r10bkeys", 500)
}
