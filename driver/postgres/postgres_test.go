package postgres

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/drivertest"
	"github.com/dbrig/dbrig/errclass"
	"github.com/dbrig/dbrig/internal/testenv"
	"github.com/dbrig/dbrig/spec"
)

var schemaSeq atomic.Int64

// schemaURL creates a schema of its own for one test (dropped at the end) and
// returns DBRIG_PG_URL with search_path set to it, so tests of this and other
// packages sharing the server never see each other's tables.
func schemaURL(t testing.TB) string {
	t.Helper()
	base := testenv.Need(t, "DBRIG_PG_URL")
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("connect %s: %v", spec.Redact(base), err)
	}
	defer conn.Close(ctx)
	schema := fmt.Sprintf("t_%d_%d", time.Now().UnixNano(), schemaSeq.Add(1))
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), base)
		if err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
			return
		}
		defer c.Close(context.Background())
		if _, err := c.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	return withParam(t, base, "search_path", schema)
}

func withParam(t testing.TB, rawURL, k, v string) string {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatalf("DBRIG_PG_URL: %v", err)
	}
	q := u.Query()
	q.Set(k, v)
	u.RawQuery = q.Encode()
	return u.String()
}

// open opens the driver with the given properties (pg.url among them).
func open(t testing.TB, kv ...string) *DB {
	t.Helper()
	db := drivertest.Open(t, Open, driver.Config{Props: drivertest.Flags(t, kv...), Dir: t.TempDir()})
	t.Cleanup(func() { db.Close() })
	return db.(*DB)
}

func TestOpenErrors(t *testing.T) {
	tests := []struct {
		name  string
		props []string
		want  string
	}{
		{"no url", nil, "pg.url is required"},
		{"bad url", []string{"pg.url=postgres://u:hunter2@127.0.0.1:1/db?sslmode=bogus"}, `pg.url="postgres://u:REDACTED@`},
		{"bad timeout", []string{"pg.url=postgres://127.0.0.1:1/x", "pg.timeout=soon"}, "pg.timeout"},
		{"bad autovacuum", []string{"pg.url=postgres://127.0.0.1:1/x", "pg.autovacuum=sometimes"}, "pg.autovacuum"},
		{"bad pool", []string{"pg.url=postgres://127.0.0.1:1/x", "pg.poolsize=0"}, "pg.poolsize"},
		{"bad batch", []string{"pg.url=postgres://127.0.0.1:1/x", "pg.batch=fast"}, "one of copy, insert"},
		{"bad fieldcount", []string{"pg.url=postgres://127.0.0.1:1/x", "fieldcount=0"}, "fieldcount"},
		{"bad table", []string{"pg.url=postgres://127.0.0.1:1/x", "pg.timeout=2s", "table=user table"}, "table name"},
		{"bad read url", []string{"pg.url=postgres://127.0.0.1:1/x", "pg.read_url=postgres://u:hunter2@127.0.0.1:1/db?sslmode=bogus"}, `pg.read_url="postgres://u:REDACTED@`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := drivertest.Flags(t, tc.props...)
			err := drivertest.OpenFails(t, Open, driver.Config{Props: p}, tc.want)
			if strings.Contains(err.Error(), "hunter2") {
				t.Errorf("error leaks the password: %v", err)
			}
		})
	}
}

// pg.read_url sends Read and Scan to its server (here: another schema of
// the same server, holding other rows) and everything else to pg.url.
func TestReadURLRoutesReads(t *testing.T) {
	ctx := context.Background()
	writes, reads := schemaURL(t), schemaURL(t)
	other := open(t, "pg.url="+reads, "fieldcount=1")
	db := open(t, "pg.url="+writes, "pg.read_url="+reads, "fieldcount=1")
	if got := db.Target(); strings.Contains(got, "dbrig-secret") || strings.Count(got, "REDACTED") != 2 || !strings.Contains(got, "reads: ") {
		t.Errorf("Target %q: want both URLs, passwords redacted", got)
	}
	if err := db.Insert(ctx, "usertable", "k1", drivertest.Rec("field0", "written")); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Read(ctx, "usertable", "k1", nil); !errors.Is(err, errclass.ErrNotFound) {
		t.Errorf("read of a key written to pg.url only: %v, want not found (read from pg.read_url)", err)
	}
	if err := other.Insert(ctx, "usertable", "k1", drivertest.Rec("field0", "on the read server")); err != nil {
		t.Fatal(err)
	}
	got, err := db.Read(ctx, "usertable", "k1", nil)
	if err != nil || string(got["field0"]) != "on the read server" {
		t.Errorf("read = %q, %v; want the read server's row", got, err)
	}
	recs, err := db.Scan(ctx, "usertable", "k", 10, nil)
	if err != nil || len(recs) != 1 || string(recs[0]["field0"]) != "on the read server" {
		t.Errorf("scan = %q, %v; want the read server's one row", recs, err)
	}
	// Updates and deletes go to pg.url, where k1 holds "written".
	if err := db.Update(ctx, "usertable", "k1", drivertest.Rec("field0", "updated")); err != nil {
		t.Errorf("update on pg.url: %v", err)
	}
	if err := db.Delete(ctx, "usertable", "k1"); err != nil {
		t.Errorf("delete on pg.url: %v", err)
	}
	if got, err := other.Read(ctx, "usertable", "k1", nil); err != nil || string(got["field0"]) != "on the read server" {
		t.Errorf("the read server's row changed: %q, %v", got, err)
	}
}

func TestOpenRefusedIsUnavailable(t *testing.T) {
	p := spec.NewProps()
	// Port 1 on loopback: nothing listens, so the connection is refused.
	p.Set("pg.url", "postgres://u:p@127.0.0.1:1/x?sslmode=disable", spec.Source{Flag: "-p"})
	p.Set("pg.timeout", "2s", spec.Source{Flag: "-p"})
	db, err := Open(context.Background(), driver.Config{Props: p})
	if err == nil {
		db.Close()
		t.Fatal("Open succeeded")
	}
	if c := errclass.Of(err); c != errclass.Unavailable {
		t.Errorf("class %q, want unavailable: %v", c, err)
	}
}

func TestCRUD(t *testing.T) {
	db := open(t, "pg.url="+schemaURL(t), "fieldcount=3")
	ctx := context.Background()
	if got := db.Target(); strings.Contains(got, "dbrig-secret") || !strings.Contains(got, "REDACTED") {
		t.Errorf("Target %q: password not redacted", got)
	}
	if v, err := db.ServerVersion(ctx); err != nil || !strings.HasPrefix(v, "PostgreSQL 1") {
		t.Errorf("ServerVersion = %q, %v", v, err)
	}
	// field2 missing → NULL → absent on read; field1 empty → present and empty.
	in := drivertest.Rec("field0", "a\x00\xffz", "field1", "")
	if err := db.Insert(ctx, "usertable", "k1", in); err != nil {
		t.Fatal(err)
	}
	in["field0"][0] = 'X' // the driver must not keep the caller's buffers
	got, err := db.Read(ctx, "usertable", "k1", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || string(got["field0"]) != "a\x00\xffz" || got["field1"] == nil || len(got["field1"]) != 0 {
		t.Errorf("Read = %q, want field0 and an empty field1", got)
	}
	if err := db.Update(ctx, "usertable", "k1", drivertest.Rec("field2", "c", "field0", "b")); err != nil {
		t.Fatal(err)
	}
	got, err = db.Read(ctx, "usertable", "k1", []string{"field2", "field0"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || string(got["field0"]) != "b" || string(got["field2"]) != "c" {
		t.Errorf("Read after update = %q", got)
	}
	if _, err := db.Read(ctx, "usertable", "k1", []string{"nofield"}); err == nil || !strings.Contains(err.Error(), `unknown field "nofield"`) {
		t.Errorf("Read of unknown field: %v", err)
	}
	if err := db.Insert(ctx, "usertable", "k2", drivertest.Rec("field9", "x")); err == nil {
		t.Error("Insert of unknown field succeeded")
	}
	if err := db.Insert(ctx, "usertable", "k1", in); err == nil {
		t.Error("Insert of an existing key succeeded")
	}
	if err := db.Delete(ctx, "usertable", "k1"); err != nil {
		t.Fatal(err)
	}
	for name, err := range map[string]error{
		"read":   func() error { _, err := db.Read(ctx, "usertable", "k1", nil); return err }(),
		"update": db.Update(ctx, "usertable", "k1", drivertest.Rec("field0", "z")),
		"delete": db.Delete(ctx, "usertable", "k1"),
	} {
		if !errors.Is(err, errclass.ErrNotFound) || errclass.Of(err) != errclass.NotFound {
			t.Errorf("%s of a deleted key: %v, want not found", name, err)
		}
	}
}

func TestScanOrder(t *testing.T) {
	db := open(t, "pg.url="+schemaURL(t), "fieldcount=2")
	ctx := context.Background()
	// Byte order, whatever the database locale: "B" < "a" < "b".
	for _, k := range []string{"b", "a", "B", "a1"} {
		if err := db.Insert(ctx, "usertable", k, drivertest.Rec("field0", k)); err != nil {
			t.Fatal(err)
		}
	}
	got, err := db.Scan(ctx, "usertable", "B", 3, []string{"field0"})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, r := range got {
		keys = append(keys, string(r["field0"]))
	}
	if strings.Join(keys, ",") != "B,a,a1" {
		t.Errorf("Scan from B, 3 = %v, want B,a,a1", keys)
	}
	if got, err := db.Scan(ctx, "usertable", "c", 10, nil); err != nil || len(got) != 0 {
		t.Errorf("Scan past the end = %v, %v", got, err)
	}
}

func TestInsertBatch(t *testing.T) {
	for _, mode := range []string{"copy", "insert"} {
		t.Run(mode, func(t *testing.T) {
			db := open(t, "pg.url="+schemaURL(t), "fieldcount=2", "pg.batch="+mode)
			ctx := context.Background()
			// More rows than one multi-row INSERT may bind (65535/3 = 21845).
			n := 22000
			keys := make([]string, n)
			vals := make([]driver.Record, n)
			for i := range keys {
				keys[i] = fmt.Sprintf("user%06d", i)
				vals[i] = drivertest.Rec("field0", keys[i], "field1", "v")
			}
			if err := db.InsertBatch(ctx, "usertable", keys, vals); err != nil {
				t.Fatal(err)
			}
			var count int
			if err := db.pool.QueryRow(ctx, "SELECT count(*) FROM usertable").Scan(&count); err != nil || count != n {
				t.Fatalf("count = %d, %v; want %d", count, err, n)
			}
			got, err := db.Read(ctx, "usertable", keys[n-1], nil)
			if err != nil || string(got["field0"]) != keys[n-1] || string(got["field1"]) != "v" {
				t.Errorf("last row = %q, %v", got, err)
			}
			bad := []driver.Record{drivertest.Rec("nofield", "x")}
			if err := db.InsertBatch(ctx, "usertable", []string{"zz"}, bad); err == nil || !strings.Contains(err.Error(), "nofield") {
				t.Errorf("batch with unknown field: %v", err)
			}
			if err := db.Reset(ctx); err != nil {
				t.Fatal(err)
			}
			if err := db.pool.QueryRow(ctx, "SELECT count(*) FROM usertable").Scan(&count); err != nil || count != 0 {
				t.Errorf("count after Reset = %d, %v", count, err)
			}
		})
	}
}

func TestLayoutMismatch(t *testing.T) {
	u := schemaURL(t)
	open(t, "pg.url="+u, "fieldcount=2")
	p := spec.NewProps()
	p.Set("pg.url", u, spec.Source{Flag: "-p"})
	p.Set("fieldcount", "3", spec.Source{Flag: "-p"})
	db, err := Open(context.Background(), driver.Config{Props: p})
	if err == nil {
		db.Close()
		t.Fatal("Open with fieldcount=3 on a 2-field table succeeded")
	}
	if !strings.Contains(err.Error(), "fieldcount=3") {
		t.Errorf("error %q does not name fieldcount", err)
	}
}

func TestTimeout(t *testing.T) {
	db := open(t, "pg.url="+schemaURL(t), "pg.timeout=100ms")
	_, err := db.pool.Exec(context.Background(), "SELECT 1") // warm a connection
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := db.opCtx(context.Background())
	defer cancel()
	_, err = db.pool.Exec(ctx, "SELECT pg_sleep(5)")
	if c := errclass.Of(classify(err)); c != errclass.Timeout {
		t.Errorf("class of %v = %q, want timeout", err, c)
	}
}

func TestClassifyServerErrors(t *testing.T) {
	db := open(t, "pg.url="+schemaURL(t))
	ctx := context.Background()
	tests := []struct {
		sql  string
		want errclass.Class
	}{
		{`DO $$BEGIN RAISE EXCEPTION USING ERRCODE = '40001'; END$$`, errclass.Conflict},
		{`DO $$BEGIN RAISE EXCEPTION USING ERRCODE = '40P01'; END$$`, errclass.Conflict},
		{`DO $$BEGIN RAISE EXCEPTION USING ERRCODE = '57P01'; END$$`, errclass.Unavailable},
		{`SET statement_timeout = 50; SELECT pg_sleep(1)`, errclass.Timeout},
		{`SELECT * FROM no_such_table`, errclass.Other},
	}
	for _, tc := range tests {
		conn, err := db.pool.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		_, err = conn.Conn().PgConn().Exec(ctx, tc.sql).ReadAll()
		conn.Release()
		if err == nil {
			t.Errorf("%s: no error", tc.sql)
			continue
		}
		if got := errclass.Of(classify(err)); got != tc.want {
			t.Errorf("%s: class %q, want %q (%v)", tc.sql, got, tc.want, err)
		}
	}
}

func TestValuesNotAliased(t *testing.T) {
	db := open(t, "pg.url="+schemaURL(t), "fieldcount=1")
	ctx := context.Background()
	if err := db.Insert(ctx, "usertable", "a", drivertest.Rec("field0", "one")); err != nil {
		t.Fatal(err)
	}
	r1, _ := db.Read(ctx, "usertable", "a", nil)
	r2, _ := db.Read(ctx, "usertable", "a", nil)
	r1["field0"][0] = 'X'
	if !bytes.Equal(r2["field0"], []byte("one")) {
		t.Errorf("two reads share a buffer: %q", r2["field0"])
	}
}

// An operation that blocks (here behind another session's table lock) fails
// as a timeout after pg.timeout through the connection's deadline, and the
// driver keeps working afterwards.
func TestOperationTimeout(t *testing.T) {
	url := schemaURL(t)
	db := open(t, "pg.url="+url, "pg.timeout=200ms", "fieldcount=1")
	ctx := context.Background()
	if err := db.Insert(ctx, "usertable", "k", drivertest.Rec("field0", "v")); err != nil {
		t.Fatal(err)
	}
	locker, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer locker.Close(ctx)
	tx, err := locker.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "LOCK TABLE usertable IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	ops := []struct {
		name string
		do   func() error
	}{
		{"read", func() error { _, err := db.Read(ctx, "usertable", "k", nil); return err }},
		{"update", func() error { return db.Update(ctx, "usertable", "k", drivertest.Rec("field0", "w")) }},
	}
	for _, op := range ops {
		start := time.Now()
		err := op.do()
		if took := time.Since(start); took < 150*time.Millisecond || took > 5*time.Second {
			t.Errorf("%s took %v, want about 200ms", op.name, took)
		}
		if c := errclass.Of(err); c != errclass.Timeout {
			t.Errorf("%s: class of %v = %q, want timeout", op.name, err, c)
		}
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if r, err := db.Read(ctx, "usertable", "k", nil); err != nil || string(r["field0"]) != "v" {
		t.Errorf("read after the timeouts = %q, %v; want v", r["field0"], err)
	}
}

// Reads return the same records whether pgx gets the row in the binary
// format (prepared statements, the default) or as text (simple protocol):
// NULL fields are absent, empty values present and empty.
func TestReadFormats(t *testing.T) {
	url := schemaURL(t)
	ctx := context.Background()
	w := open(t, "pg.url="+url, "fieldcount=3")
	if err := w.Insert(ctx, "usertable", "k", drivertest.Rec("field0", "a\x00b", "field2", "")); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"cache_statement", "simple_protocol"} {
		t.Run(mode, func(t *testing.T) {
			db := open(t, "pg.url="+withParam(t, url, "default_query_exec_mode", mode), "fieldcount=3")
			for _, fields := range [][]string{nil, {"field2", "field0"}} {
				r, err := db.Read(ctx, "usertable", "k", fields)
				if err != nil {
					t.Fatal(err)
				}
				if len(r) != 2 || string(r["field0"]) != "a\x00b" || r["field2"] == nil || len(r["field2"]) != 0 {
					t.Errorf("Read(%v) = %q, want field0=a\\0b and an empty field2", fields, r)
				}
			}
			rs, err := db.Scan(ctx, "usertable", "", 10, nil)
			if err != nil || len(rs) != 1 || string(rs[0]["field0"]) != "a\x00b" {
				t.Errorf("Scan = %q, %v", rs, err)
			}
		})
	}
}

// A read whose context has ended does not run, with or without pg.timeout
// (with it, the context is checked before the query instead of watched).
func TestReadCanceled(t *testing.T) {
	url := schemaURL(t)
	for _, timeout := range []string{"10s", "0"} {
		t.Run("timeout="+timeout, func(t *testing.T) {
			db := open(t, "pg.url="+url, "pg.timeout="+timeout, "fieldcount=1")
			key := "k" + timeout
			if err := db.Insert(context.Background(), "usertable", key, drivertest.Rec("field0", "v")); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			if r, err := db.Read(ctx, "usertable", key, nil); !errors.Is(err, context.Canceled) {
				t.Errorf("Read after cancel = %q, %v; want context.Canceled", r, err)
			}
			if r, err := db.Read(context.Background(), "usertable", key, nil); err != nil || string(r["field0"]) != "v" {
				t.Errorf("Read = %q, %v; want v", r, err)
			}
		})
	}
}
