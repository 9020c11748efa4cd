package tpcc

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/drivertest"
	"github.com/dbrig/dbrig/driver/mysql"
	"github.com/dbrig/dbrig/driver/postgres"
	"github.com/dbrig/dbrig/driver/sqlite"
	"github.com/dbrig/dbrig/internal/testenv"
)

var seq atomic.Int64

// testDBs opens, per SQL system, an empty database of its own (a
// PostgreSQL schema, a MariaDB database, an SQLite file), dropped after
// the test. Each is opened in its own subtest, so a server that is not
// configured skips only its own: the embedded SQLite case always runs.
func testDBs() map[string]func(*testing.T) driver.DB {
	return map[string]func(*testing.T) driver.DB{"postgres": pgDB, "mysql": mysqlDB, "sqlite": sqliteDB}
}

func uniqueName() string {
	return fmt.Sprintf("dbrig_tpcc_%d_%d", time.Now().UnixNano()%1e10, seq.Add(1))
}

func pgDB(t *testing.T) driver.DB {
	t.Helper()
	base := testenv.Need(t, "DBRIG_PG_URL")
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer conn.Close(ctx)
	schema := uniqueName()
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), base)
		if err == nil {
			_, err = c.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE")
			c.Close(context.Background())
		}
		if err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	db := drivertest.Open(t, postgres.Open, driver.Config{Props: drivertest.Flags(t, "pg.url="+u.String(), "threadcount=8"), Dir: t.TempDir()})
	t.Cleanup(func() { db.Close() })
	return db
}

func mysqlDB(t *testing.T) driver.DB {
	t.Helper()
	base := testenv.Need(t, "DBRIG_MYSQL_DSN")
	mc, err := gomysql.ParseDSN(base)
	if err != nil {
		t.Fatal(err)
	}
	admin, err := sql.Open("mysql", base)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	name := uniqueName()
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
	db := drivertest.Open(t, mysql.Open, driver.Config{Props: drivertest.Flags(t, "mysql.dsn="+mc.FormatDSN(), "threadcount=8"), Dir: t.TempDir()})
	t.Cleanup(func() { db.Close() })
	return db
}

func sqliteDB(t *testing.T) driver.DB {
	t.Helper()
	dir := t.TempDir()
	db := drivertest.Open(t, sqlite.Open, driver.Config{Props: drivertest.Flags(t, "sqlite.path="+filepath.Join(dir, "tpcc.db")), Dir: dir})
	t.Cleanup(func() { db.Close() })
	return db
}
