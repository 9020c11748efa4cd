package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/drivertest"
	"github.com/dbrig/dbrig/errclass"
	"github.com/dbrig/dbrig/spec"
)

func open(t testing.TB, dir string, kv ...string) *DB {
	t.Helper()
	db := drivertest.Open(t, Open, driver.Config{Props: drivertest.Flags(t, kv...), Dir: dir})
	t.Cleanup(func() { db.Close() })
	return db.(*DB)
}

// TestConformance runs the driver suite; an embedded engine has no outage.
func TestConformance(t *testing.T) {
	dir := t.TempDir()
	drivertest.Run(t, drivertest.Harness{
		Open: func(t *testing.T, table string) driver.DB {
			p := drivertest.Props("sqlite.path", filepath.Join(dir, "conformance.db"), "table", table)
			return drivertest.Open(t, Open, driver.Config{Props: p, Dir: t.TempDir()})
		},
		Timeout: time.Second,
	})
}

func TestOpenErrors(t *testing.T) {
	tests := []struct {
		name  string
		dir   string
		props []string
		want  string
	}{
		{"no path, no dir", "", nil, "sqlite.path is required"},
		{"memory", "x", []string{"sqlite.path=:memory:"}, "sqlite.path"},
		{"query", "x", []string{"sqlite.path=/tmp/a.db?mode=ro"}, "without ?"},
		{"bad sync", "x", []string{"sqlite.synchronous=sometimes"}, "one of normal, full, off"},
		{"bad busy", "x", []string{"sqlite.busytimeout=long"}, "sqlite.busytimeout"},
		{"bad fieldcount", "x", []string{"fieldcount=many"}, "fieldcount"},
		{"no such dir", "x", []string{"sqlite.path=/nonexistent/dir/a.db"}, "/nonexistent/dir/a.db"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := drivertest.Flags(t, tc.props...)
			dir := tc.dir
			if dir != "" {
				dir = t.TempDir()
			}
			drivertest.OpenFails(t, Open, driver.Config{Props: p, Dir: dir}, tc.want)
		})
	}
}

func TestDefaultPathAndLayout(t *testing.T) {
	dir := t.TempDir()
	db := open(t, dir, "fieldcount=2")
	if want := filepath.Join(dir, "ycsb.db"); db.Target() != want {
		t.Errorf("Target = %q, want %q", db.Target(), want)
	}
	if v, err := db.ServerVersion(context.Background()); err != nil || !strings.HasPrefix(v, "3.") {
		t.Errorf("ServerVersion = %q, %v", v, err)
	}
	db.Close()
	p := spec.NewProps()
	p.Set("fieldcount", "3", spec.Source{File: "w.properties", Line: 7})
	if db, err := Open(context.Background(), driver.Config{Props: p, Dir: dir}); err == nil {
		db.Close()
		t.Error("Open with fieldcount=3 on a 2-field table succeeded")
	} else if !strings.Contains(err.Error(), "fieldcount=3") {
		t.Errorf("error %q does not name fieldcount", err)
	}
}

// TestOtherProcessLock holds the write lock from a second connection (as
// another process would) and checks that a write waits busytimeout and then
// fails as a conflict, and that reads go on meanwhile (WAL).
func TestOtherProcessLock(t *testing.T) {
	dir := t.TempDir()
	db := open(t, dir, "fieldcount=1", "sqlite.busytimeout=200ms")
	ctx := context.Background()
	if err := db.Insert(ctx, "usertable", "a", driver.Record{"field0": []byte("1")}); err != nil {
		t.Fatal(err)
	}
	other, err := sql.Open("sqlite", filepath.Join(dir, "ycsb.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	tx, err := other.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec("INSERT INTO usertable VALUES ('b', x'00')"); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err = db.Update(ctx, "usertable", "a", driver.Record{"field0": []byte("2")})
	if c := errclass.Of(err); c != errclass.Conflict {
		t.Errorf("Update while another connection writes: class %q (%v), want conflict", c, err)
	}
	if took := time.Since(start); took < 150*time.Millisecond {
		t.Errorf("Update failed after %v, before the busy timeout of 200ms", took)
	}
	if r, err := db.Read(ctx, "usertable", "a", nil); err != nil || string(r["field0"]) != "1" {
		t.Errorf("Read during the other write = %q, %v", r, err)
	}
}

func TestInsertBatchSplit(t *testing.T) {
	db := open(t, t.TempDir(), "fieldcount=1")
	ctx := context.Background()
	n := 20000 // > 32766/2 rows per INSERT
	keys := make([]string, n)
	vals := make([]driver.Record, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("user%06d", i)
		vals[i] = driver.Record{"field0": []byte(keys[i])}
	}
	if err := db.InsertBatch(ctx, "usertable", keys, vals); err != nil {
		t.Fatal(err)
	}
	got, err := db.Scan(ctx, "usertable", keys[n-2], 5, nil)
	if err != nil || len(got) != 2 || string(got[1]["field0"]) != keys[n-1] {
		t.Errorf("Scan of the last two = %q, %v", got, err)
	}
	// A failing batch (duplicate key) leaves nothing behind: one transaction.
	if err := db.InsertBatch(ctx, "usertable", []string{"new", keys[0]}, vals[:2]); err == nil {
		t.Fatal("batch with a duplicate key succeeded")
	}
	if _, err := db.Read(ctx, "usertable", "new", nil); errclass.Of(err) != errclass.NotFound {
		t.Errorf("row of a failed batch: %v, want not found", err)
	}
	if err := db.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	if got, err := db.Scan(ctx, "usertable", "", 1, nil); err != nil || len(got) != 0 {
		t.Errorf("Scan after Reset = %d records, %v", len(got), err)
	}
}
