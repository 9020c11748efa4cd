package null

import (
	"context"
	"testing"

	"github.com/dbrig/dbrig/driver"
)

func TestOpsSucceedEmpty(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, driver.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rec := driver.Record{"f": []byte("v")}
	tests := []struct {
		name string
		do   func() (int, error) // returns the number of fields/records returned
	}{
		{"read", func() (int, error) { r, err := db.Read(ctx, "t", "k", nil); return len(r), err }},
		{"scan", func() (int, error) { r, err := db.Scan(ctx, "t", "k", 10, nil); return len(r), err }},
		{"update", func() (int, error) { return 0, db.Update(ctx, "t", "k", rec) }},
		{"insert", func() (int, error) { return 0, db.Insert(ctx, "t", "k", rec) }},
		{"delete", func() (int, error) { return 0, db.Delete(ctx, "t", "k") }},
		{"batch", func() (int, error) {
			return 0, db.(driver.BatchInserter).InsertBatch(ctx, "t", []string{"a"}, []driver.Record{rec})
		}},
		{"reset", func() (int, error) { return 0, db.(driver.Resetter).Reset(ctx) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := tt.do()
			if err != nil || n != 0 {
				t.Fatalf("got n=%d err=%v, want 0, nil", n, err)
			}
		})
	}
	if v, err := db.(driver.Versioner).ServerVersion(ctx); err != nil || v != Version {
		t.Fatalf("ServerVersion = %q, %v", v, err)
	}
}

// The null driver is the harness's ceiling: it must not allocate.
func TestNoAllocs(t *testing.T) {
	ctx := context.Background()
	var db driver.DB = DB{}
	rec := driver.Record{"f": []byte("v")}
	fields := []string{"f"}
	allocs := testing.AllocsPerRun(100, func() {
		_, _ = db.Read(ctx, "t", "k", fields)
		_, _ = db.Scan(ctx, "t", "k", 10, fields)
		_ = db.Update(ctx, "t", "k", rec)
		_ = db.Insert(ctx, "t", "k", rec)
		_ = db.Delete(ctx, "t", "k")
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per run, want 0", allocs)
	}
}

func BenchmarkRead(b *testing.B) {
	ctx := context.Background()
	var db driver.DB = DB{}
	b.ReportAllocs()
	for b.Loop() {
		_, _ = db.Read(ctx, "usertable", "user1", nil)
	}
}
