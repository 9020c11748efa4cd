package drivertest

import (
	"context"
	"testing"

	"github.com/dbrig/dbrig/driver"
)

// SnapshotKeys checks a driver.KeyRestorer: after a write-heavy experiment
// (updates, deletes, inserts) RestoreKeys of just the keys written gives
// back exactly the image, checksummed over every record, and leaves a
// record that was not named alone.
func SnapshotKeys(t *testing.T, open func(t *testing.T) driver.DB, table string, n int) {
	t.Helper()
	ctx := context.Background()
	db := open(t)
	kr, ok := db.(driver.KeyRestorer)
	if !ok {
		t.Fatalf("%T is not a driver.KeyRestorer", db)
	}
	const image = "dbrigtest_keys"
	keys, inserted, all, before := loadImage(t, open, db, table, image, n)
	var written []string
	for i, k := range keys {
		switch i % 4 {
		case 0:
			if err := db.Delete(ctx, table, k); err != nil {
				t.Fatalf("delete %s: %v", k, err)
			}
			written = append(written, k)
		case 1:
			if err := db.Update(ctx, table, k, driver.Record{"field0": []byte("changed")}); err != nil {
				t.Fatalf("update %s: %v", k, err)
			}
			written = append(written, k)
		}
	}
	for i, k := range inserted {
		if err := db.Insert(ctx, table, k, snapRecord(i, "inserted")); err != nil {
			t.Fatalf("insert %s: %v", k, err)
		}
		written = append(written, k)
	}
	if Checksum(t, db, table, all) == before {
		t.Fatal("the writes did not change the checksum: the test proves nothing")
	}
	// A change to a key not named stays: RestoreKeys touches only its keys.
	untouched := keys[2]
	if err := db.Update(ctx, table, untouched, driver.Record{"field1": []byte("kept")}); err != nil {
		t.Fatal(err)
	}
	if err := kr.RestoreKeys(ctx, table, image, written); err != nil {
		t.Fatalf("RestoreKeys: %v", err)
	}
	r, err := db.Read(ctx, table, untouched, nil)
	if err != nil || string(r["field1"]) != "kept" {
		t.Fatalf("record %s not named was changed by RestoreKeys: %q, %v", untouched, r["field1"], err)
	}
	if err := kr.RestoreKeys(ctx, table, image, []string{untouched}); err != nil {
		t.Fatalf("RestoreKeys: %v", err)
	}
	if after := Checksum(t, db, table, all); after != before {
		t.Errorf("checksum after RestoreKeys %s, want %s (as when the image was taken)", after, before)
	}
	db.Close()
}
