package mysql

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/drivertest"
	"github.com/dbrig/dbrig/errclass"
	"github.com/dbrig/dbrig/internal/testenv"
	"github.com/dbrig/dbrig/spec"
)

var dbSeq atomic.Int64

// testDSN creates a database of its own for one test (dropped at the end;
// the test server grants dbrig every dbrig_* database) and returns
// DBRIG_MYSQL_DSN pointing at it.
func testDSN(t testing.TB) string {
	t.Helper()
	base := testenv.Need(t, "DBRIG_MYSQL_DSN")
	mc, err := gomysql.ParseDSN(base)
	if err != nil {
		t.Fatalf("DBRIG_MYSQL_DSN: %v", err)
	}
	admin, err := sql.Open("mysql", base)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	name := fmt.Sprintf("dbrig_t%d_%d", time.Now().UnixNano()%1e12, dbSeq.Add(1))
	if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatalf("create database: %v", err)
	}
	t.Cleanup(func() {
		a, err := sql.Open("mysql", base)
		if err == nil {
			_, err = a.Exec("DROP DATABASE " + name)
			a.Close()
		}
		if err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
	})
	mc.DBName = name
	return mc.FormatDSN()
}

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
		{"no dsn", nil, "mysql.dsn is required"},
		{"bad dsn", []string{"mysql.dsn=u:hunter2@tcp(127.0.0.1:1/db"}, `mysql.dsn="REDACTED"`}, // unparseable: hidden whole
		{"bad timeout", []string{"mysql.dsn=u@tcp(127.0.0.1:1)/x", "mysql.timeout=soon"}, "mysql.timeout"},
		{"bad pool", []string{"mysql.dsn=u@tcp(127.0.0.1:1)/x", "mysql.poolsize=-1"}, "mysql.poolsize"},
		{"bad prefix", []string{"mysql.dsn=u@tcp(127.0.0.1:1)/x", "fieldnameprefix=f-"}, "fieldnameprefix"},
		// Port 1 on loopback: nothing listens, so the connection is refused.
		{"refused", []string{"mysql.dsn=u:hunter2@tcp(127.0.0.1:1)/x", "mysql.timeout=2s"}, "unavailable"},
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

func TestBasics(t *testing.T) {
	db := open(t, "mysql.dsn="+testDSN(t), "fieldcount=2")
	ctx := context.Background()
	if got := db.Target(); strings.Contains(got, "dbrig-secret") || !strings.Contains(got, "REDACTED") {
		t.Errorf("Target %q: password not redacted", got)
	}
	if v, err := db.ServerVersion(ctx); err != nil || !(strings.HasPrefix(v, "MariaDB 1") || strings.HasPrefix(v, "MySQL ")) {
		t.Errorf("ServerVersion = %q, %v", v, err)
	}
	// Keys differ only in case: both exist, scan returns them in byte order.
	for _, k := range []string{"a", "A", "b"} {
		if err := db.Insert(ctx, "usertable", k, drivertest.Rec("field0", k, "field1", "")); err != nil {
			t.Fatal(err)
		}
	}
	got, err := db.Scan(ctx, "usertable", "A", 10, []string{"field0"})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, r := range got {
		keys = append(keys, string(r["field0"]))
	}
	if strings.Join(keys, ",") != "A,a,b" {
		t.Errorf("Scan = %v, want A,a,b", keys)
	}
	// Writing the value a row already has is still an update of a found row.
	if err := db.Update(ctx, "usertable", "a", drivertest.Rec("field0", "a")); err != nil {
		t.Errorf("Update with an unchanged value: %v", err)
	}
	if err := db.Update(ctx, "usertable", "zz", drivertest.Rec("field0", "a")); errclass.Of(err) != errclass.NotFound {
		t.Errorf("Update of a missing key: %v", err)
	}
	r, err := db.Read(ctx, "usertable", "b", nil)
	if err != nil || string(r["field0"]) != "b" || r["field1"] == nil || len(r["field1"]) != 0 {
		t.Errorf("Read = %q, %v; want field0=b and an empty field1", r, err)
	}
}

func TestInsertBatch(t *testing.T) {
	db := open(t, "mysql.dsn="+testDSN(t), "fieldcount=1")
	ctx := context.Background()
	// More rows than one INSERT may bind (65535/2 = 32767).
	n := 33000
	keys := make([]string, n)
	vals := make([]driver.Record, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("user%06d", i)
		vals[i] = drivertest.Rec("field0", keys[i])
	}
	if err := db.InsertBatch(ctx, "usertable", keys, vals); err != nil {
		t.Fatal(err)
	}
	var count int
	if err := db.pool.QueryRow("SELECT COUNT(*) FROM usertable").Scan(&count); err != nil || count != n {
		t.Fatalf("count = %d, %v; want %d", count, err, n)
	}
	if err := db.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	if err := db.pool.QueryRow("SELECT COUNT(*) FROM usertable").Scan(&count); err != nil || count != 0 {
		t.Errorf("count after Reset = %d, %v", count, err)
	}
}

func TestLayoutMismatch(t *testing.T) {
	dsn := testDSN(t)
	open(t, "mysql.dsn="+dsn, "fieldcount=2")
	p := spec.NewProps()
	p.Set("mysql.dsn", dsn, spec.Source{Flag: "-p"})
	p.Set("fieldcount", "3", spec.Source{Flag: "-p"})
	db, err := Open(context.Background(), driver.Config{Props: p})
	if err == nil {
		db.Close()
		t.Fatal("Open with fieldcount=3 on a 2-field table succeeded")
	}
	if !strings.Contains(err.Error(), "fieldcount=3") || strings.Contains(err.Error(), "dbrig-secret") {
		t.Errorf("error %q: want fieldcount named, no password", err)
	}
}

func TestClassifyServerErrors(t *testing.T) {
	db := open(t, "mysql.dsn="+testDSN(t))
	tests := []struct {
		sql  string
		want errclass.Class
	}{
		{"SIGNAL SQLSTATE '40001' SET MYSQL_ERRNO = 1213", errclass.Conflict},
		{"SIGNAL SQLSTATE 'HY000' SET MYSQL_ERRNO = 1205", errclass.Conflict},
		{"SET STATEMENT max_statement_time = 0.05 FOR SELECT SLEEP(1)", errclass.Timeout},
		{"SELECT * FROM no_such_table", errclass.Other},
	}
	for _, tc := range tests {
		_, err := db.pool.Exec(tc.sql)
		if err == nil {
			t.Errorf("%s: no error", tc.sql)
			continue
		}
		if got := errclass.Of(classify(err)); got != tc.want {
			t.Errorf("%s: class %q, want %q (%v)", tc.sql, got, tc.want, err)
		}
	}
}

// The password is found by parsing the DSN as the driver does, whatever it
// holds; nothing of it survives.
func TestRedactDSN(t *testing.T) {
	for _, pw := range []string{"hunter2", "a b", "p@ss:w/rd", `q'uo"te`, "ünï©ødé", "x@tcp(evil)/db"} {
		dsn := "bench:" + pw + "@tcp(127.0.0.1:3306)/dbrig?timeout=5s"
		got := RedactDSN(dsn)
		if strings.Contains(got, pw) || !strings.Contains(got, "bench:REDACTED@tcp(127.0.0.1:3306)/dbrig") {
			t.Errorf("RedactDSN(%q) = %q", dsn, got)
		}
	}
	if got := RedactDSN("bench@tcp(127.0.0.1:3306)/dbrig"); strings.Contains(got, "REDACTED") {
		t.Errorf("no password, but %q", got)
	}
}
