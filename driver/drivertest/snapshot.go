package drivertest

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"sort"
	"testing"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/errclass"
)

// Snapshot checks a driver.Snapshotter: it loads n records into table,
// takes an image, writes heavily (updates, inserts, deletes), restores, and
// compares a checksum of every record (the loaded keys and the inserted
// ones) before and after. open opens the system afresh: the image must
// outlive the DB value it was taken with. The table and image names should
// be the caller's own, since servers are shared.
func Snapshot(t *testing.T, open func(t *testing.T) driver.DB, table string, n int) {
	t.Helper()
	ctx := context.Background()
	db := open(t)
	if _, ok := db.(driver.Snapshotter); !ok {
		t.Fatalf("%T is not a driver.Snapshotter", db)
	}
	const image = "dbrigtest_snap"
	keys, inserted, all, before := loadImage(t, open, db, table, image, n)
	// A write-heavy experiment: most records updated, some deleted, new ones.
	for i, k := range keys {
		switch {
		case i%5 == 0:
			if err := db.Delete(ctx, table, k); err != nil {
				t.Fatalf("delete %s: %v", k, err)
			}
		default:
			if err := db.Update(ctx, table, k, driver.Record{"field0": []byte("changed")}); err != nil {
				t.Fatalf("update %s: %v", k, err)
			}
		}
	}
	for i, k := range inserted {
		if err := db.Insert(ctx, table, k, snapRecord(i, "inserted")); err != nil {
			t.Fatalf("insert %s: %v", k, err)
		}
	}
	if Checksum(t, db, table, all) == before {
		t.Fatal("the writes did not change the checksum: the test proves nothing")
	}
	// Restore from a fresh handle, as dbrig rate does between experiments.
	db.Close()
	db = open(t)
	if err := db.(driver.Snapshotter).Restore(ctx, table, image); err != nil {
		t.Fatalf("Restore: %v", err)
	}
	if after := Checksum(t, db, table, all); after != before {
		t.Errorf("checksum after Restore %s, want %s (as when the image was taken)", after, before)
	}
	// Twice in a row works: the image is kept.
	if err := db.Update(ctx, table, keys[1], driver.Record{"field0": []byte("again")}); err != nil {
		t.Fatal(err)
	}
	if err := db.(driver.Snapshotter).Restore(ctx, table, image); err != nil {
		t.Fatalf("second Restore: %v", err)
	}
	if after := Checksum(t, db, table, all); after != before {
		t.Errorf("checksum after a second Restore %s, want %s", after, before)
	}
	db.Close()
}

// loadImage empties table, loads n records, takes image (dropped when the
// test ends, through a fresh handle from open) and returns the loaded keys,
// two keys an experiment may insert, both together, and the checksum of
// all of them as in the image.
func loadImage(t *testing.T, open func(t *testing.T) driver.DB, db driver.DB, table, image string, n int) (keys, inserted, all []string, before string) {
	t.Helper()
	ctx := context.Background()
	if r, ok := db.(driver.Resetter); ok {
		if err := r.Reset(ctx); err != nil {
			t.Fatal(err)
		}
	}
	keys = make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("user%06d", i)
		if err := db.Insert(ctx, table, keys[i], snapRecord(i, "loaded")); err != nil {
			t.Fatalf("insert %s: %v", keys[i], err)
		}
	}
	inserted = []string{"user999998", "user999999"}
	all = append(append([]string(nil), keys...), inserted...)
	before = Checksum(t, db, table, all)
	if err := db.(driver.Snapshotter).Snapshot(ctx, table, image); err != nil {
		t.Fatalf("Snapshot: %v", err)
	}
	t.Cleanup(func() {
		db := open(t)
		defer db.Close()
		if err := db.(driver.Snapshotter).DropSnapshot(context.Background(), table, image); err != nil {
			t.Errorf("DropSnapshot: %v", err)
		}
	})
	return keys, inserted, all, before
}

func snapRecord(i int, tag string) driver.Record {
	return driver.Record{
		"field0": []byte(fmt.Sprintf("%s-%d-a", tag, i)),
		"field1": []byte(fmt.Sprintf("%s-%d-b", tag, i*7)),
	}
}

// Checksum hashes every record of keys (a missing one as such): equal
// checksums, equal data.
func Checksum(t *testing.T, db driver.DB, table string, keys []string) string {
	t.Helper()
	h := sha256.New()
	for _, k := range keys {
		r, err := db.Read(context.Background(), table, k, nil)
		switch {
		case errors.Is(err, errclass.ErrNotFound):
			fmt.Fprintf(h, "%s:missing\n", k)
			continue
		case err != nil:
			t.Fatalf("read %s: %v", k, err)
		}
		names := make([]string, 0, len(r))
		for f := range r {
			names = append(names, f)
		}
		sort.Strings(names)
		fmt.Fprintf(h, "%s:", k)
		for _, f := range names {
			fmt.Fprintf(h, "%s=%q;", f, r[f])
		}
		h.Write([]byte("\n"))
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}
