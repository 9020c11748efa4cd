package pebble

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/drivertest"
	"github.com/dbrig/dbrig/errclass"
	"github.com/dbrig/dbrig/spec"
)

func open(t testing.TB, props map[string]string) driver.DB {
	t.Helper()
	p := spec.NewProps()
	for k, v := range props {
		p.Set(k, v, spec.Source{File: "test.properties", Line: 7})
	}
	db, err := Open(context.Background(), driver.Config{Props: p, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

func TestConformance(t *testing.T) {
	drivertest.Run(t, drivertest.Harness{
		Open: func(t *testing.T, table string) driver.DB { return open(t, nil) },
	})
}

func TestOpenProps(t *testing.T) {
	tests := []struct {
		name    string
		props   map[string]string
		dir     string
		badProp string // a *spec.PropError must name it
		errHas  string // or the error must contain this
	}{
		{name: "scratch dir", dir: "tmp"},
		{name: "explicit dir and options", props: map[string]string{PropDir: "tmp", PropSync: "true", PropCacheMB: "8"}},
		{name: "no dir at all", errHas: PropDir},
		{name: "bad sync", dir: "tmp", props: map[string]string{PropSync: "yes"}, badProp: PropSync},
		{name: "negative cache", dir: "tmp", props: map[string]string{PropCacheMB: "-1"}, badProp: PropCacheMB},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := spec.NewProps()
			for k, v := range tt.props {
				if v == "tmp" {
					v = t.TempDir()
				}
				p.Set(k, v, spec.Source{File: "test.properties", Line: 7})
			}
			dir := tt.dir
			if dir == "tmp" {
				dir = t.TempDir()
			}
			db, err := Open(context.Background(), driver.Config{Props: p, Dir: dir})
			switch {
			case tt.badProp != "":
				var pe *spec.PropError
				if !errors.As(err, &pe) || pe.Key != tt.badProp || pe.Src.Line != 7 {
					t.Fatalf("error %v, want a *spec.PropError for %s at test.properties:7", err, tt.badProp)
				}
			case tt.errHas != "":
				if err == nil || !strings.Contains(err.Error(), tt.errHas) {
					t.Fatalf("error %v, want one naming %s", err, tt.errHas)
				}
			default:
				if err != nil {
					t.Fatal(err)
				}
				if err := db.Close(); err != nil {
					t.Fatal(err)
				}
				if err := p.Unknown(); err != nil {
					t.Fatalf("pebble.* properties not marked known: %v", err)
				}
			}
		})
	}
}

// Data survives closing and reopening the directory (pebble.sync=false still
// writes the WAL; Close flushes).
func TestReopen(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	for round := range 2 {
		p := spec.NewProps()
		p.Set(PropDir, dir, spec.Source{})
		db, err := Open(ctx, driver.Config{Props: p})
		if err != nil {
			t.Fatal(err)
		}
		if round == 0 {
			if err := db.Insert(ctx, "t", "k", driver.Record{"f": []byte("v")}); err != nil {
				t.Fatal(err)
			}
		} else if r, err := db.Read(ctx, "t", "k", nil); err != nil || string(r["f"]) != "v" {
			t.Fatalf("after reopen: %v, %v", r, err)
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// Tables are prefixes: a scan stays within its table, also for a table whose
// name is a prefix of another's.
func TestTablesAreSeparate(t *testing.T) {
	ctx := context.Background()
	db := open(t, nil)
	defer db.Close()
	for _, tbl := range []string{"user", "users", "use"} {
		for i := range 3 {
			if err := db.Insert(ctx, tbl, fmt.Sprint(i), driver.Record{"t": []byte(tbl)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, tbl := range []string{"user", "users", "use"} {
		recs, err := db.Scan(ctx, tbl, "", 100, nil)
		if err != nil || len(recs) != 3 {
			t.Fatalf("Scan %s: %d records, %v; want 3", tbl, len(recs), err)
		}
		for _, r := range recs {
			if string(r["t"]) != tbl {
				t.Fatalf("Scan %s returned a record of %s", tbl, r["t"])
			}
		}
	}
	if err := db.Insert(ctx, "a/b", "k", driver.Record{}); err == nil {
		t.Fatal("a table name with '/' was accepted")
	}
}

func TestResetAndClosed(t *testing.T) {
	ctx := context.Background()
	db := open(t, nil)
	for i := range 100 {
		if err := db.Insert(ctx, "t", fmt.Sprint(i), driver.Record{"f": []byte("v")}); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.(driver.Resetter).Reset(ctx); err != nil {
		t.Fatal(err)
	}
	if recs, err := db.Scan(ctx, "t", "", 10, nil); err != nil || len(recs) != 0 {
		t.Fatalf("after Reset: %d records, %v", len(recs), err)
	}
	if err := db.(driver.Resetter).Reset(ctx); err != nil { // empty: no-op
		t.Fatal(err)
	}
	v, err := db.(driver.Versioner).ServerVersion(ctx)
	if want := goModPebble(t); err != nil || v != want {
		t.Fatalf("ServerVersion = %q, %v; want %q", v, err, want)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Read(ctx, "t", "1", nil); errclass.Of(err) != errclass.Unavailable {
		t.Fatalf("Read after Close: %v, want unavailable", err)
	}
	if err := db.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

func TestDeadline(t *testing.T) {
	db := open(t, nil)
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 0)
	defer cancel()
	<-ctx.Done()
	if _, err := db.Read(ctx, "t", "k", nil); errclass.Of(err) != errclass.Timeout {
		t.Fatalf("Read with an expired deadline: %v, want timeout", err)
	}
}

func TestEncoding(t *testing.T) {
	tests := []struct {
		name string
		rec  driver.Record
	}{
		{"empty record", driver.Record{}},
		{"empty value and name", driver.Record{"": {}, "a": nil}},
		{"binary", driver.Record{"f\x00": {0, 1, 0xff}, "g": bytes.Repeat([]byte{0x80}, 300)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decode(encode(tt.rec), nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.rec) {
				t.Fatalf("%d fields, want %d", len(got), len(tt.rec))
			}
			for f, v := range tt.rec {
				if g, ok := got[f]; !ok || !bytes.Equal(g, v) {
					t.Fatalf("field %q = %q, want %q", f, g, v)
				}
			}
		})
	}
	enc := encode(driver.Record{"a": []byte("1"), "b": []byte("2")})
	merged, err := merge(enc, driver.Record{"b": []byte("3"), "c": []byte("4")})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := decode(merged, []string{"a", "b", "c", "d"})
	if len(got) != 3 || string(got["a"]) != "1" || string(got["b"]) != "3" || string(got["c"]) != "4" {
		t.Fatalf("merge: %q", got)
	}
	for _, bad := range [][]byte{{5, 'a'}, {1, 'a', 9, 'x'}, {0xff}} {
		if _, err := decode(bad, nil); err == nil {
			t.Errorf("decode(%q) accepted a corrupt value", bad)
		}
	}
}

func benchRecord() driver.Record {
	r := driver.Record{}
	for i := range 10 {
		r[fmt.Sprintf("field%d", i)] = bytes.Repeat([]byte{'x'}, 100)
	}
	return r
}

// YCSB-sized records (10 fields × 100 bytes) in a loaded store.
func BenchmarkOps(b *testing.B) {
	const n = 10000
	ctx := context.Background()
	db := open(b, nil)
	defer db.Close()
	rec := benchRecord()
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("user%08d", i*7919%n)
	}
	if err := db.(driver.BatchInserter).InsertBatch(ctx, "usertable", keys, repeat(rec, n)); err != nil {
		b.Fatal(err)
	}
	upd := driver.Record{"field3": bytes.Repeat([]byte{'y'}, 100)}
	one := []string{"field3"}
	b.Run("read", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if _, err := db.Read(ctx, "usertable", keys[i%n], nil); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
	b.Run("read-1-field", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if _, err := db.Read(ctx, "usertable", keys[i%n], one); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
	b.Run("update", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if err := db.Update(ctx, "usertable", keys[i%n], upd); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
	b.Run("insert", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if err := db.Insert(ctx, "usertable", fmt.Sprintf("new%09d", i), rec); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
	b.Run("scan-10", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if _, err := db.Scan(ctx, "usertable", keys[i%n], 10, nil); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
	b.Run("insert-batch-100", func(b *testing.B) {
		b.ReportAllocs()
		bk := make([]string, 100)
		recs := repeat(rec, 100)
		i := 0
		for b.Loop() {
			for j := range bk {
				bk[j] = fmt.Sprintf("batch%09d", i)
				i++
			}
			if err := db.(driver.BatchInserter).InsertBatch(ctx, "usertable", bk, recs); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(i), "ns/record")
	})
}

func repeat(r driver.Record, n int) []driver.Record {
	rs := make([]driver.Record, n)
	for i := range rs {
		rs[i] = r
	}
	return rs
}

// goModPebble is the Pebble version go.mod requires.
func goModPebble(t *testing.T) string {
	b, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(b)) {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == modulePath {
			return f[1]
		}
	}
	t.Fatalf("go.mod does not require %s", modulePath)
	return ""
}

// Closing while clients are still busy must not crash (Pebble panics on a
// closed DB): their operations succeed or fail as unavailable.
func TestCloseWhileBusy(t *testing.T) {
	ctx := context.Background()
	db := open(t, nil)
	if err := db.Insert(ctx, "t", "k", driver.Record{"f": []byte("v")}); err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 4)
	for i := range 4 {
		go func() {
			for {
				var err error
				if i%2 == 0 {
					_, err = db.Read(ctx, "t", "k", nil)
				} else {
					err = db.Update(ctx, "t", "k", driver.Record{"f": []byte("w")})
				}
				if err != nil {
					errc <- err
					return
				}
			}
		}()
	}
	time.Sleep(20 * time.Millisecond)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	for range 4 {
		if err := <-errc; errclass.Of(err) != errclass.Unavailable {
			t.Errorf("operation racing Close: %v, want unavailable", err)
		}
	}
}
