// Package mysql benchmarks MySQL and MariaDB through database/sql and
// github.com/go-sql-driver/mysql, with server-side prepared statements.
//
// Layout: one table per YCSB table name (property table, default usertable),
// created on first use if missing:
//
//	usertable(ycsb_key VARBINARY(255) PRIMARY KEY, field0 LONGBLOB, …, field<fieldcount-1> LONGBLOB)
//
// VARBINARY keys compare bytewise, as YCSB scans expect (the default
// collation would fold case and make "a" and "A" one key); LONGBLOB keeps
// values byte-exact. fieldcount (default 10) and fieldnameprefix (default
// "field") are the YCSB properties the ycsb workload reads too. A table that
// exists with other columns is reported at open, not changed. Bulk load uses
// multi-row INSERT; mind the server's max_allowed_packet with large values.
//
// Properties:
//
//	mysql.dsn       Go MySQL DSN (required), e.g. user:secret@tcp(127.0.0.1:3306)/db;
//	                the password is redacted wherever the target is shown or stored
//	mysql.timeout   per-operation timeout (default 10s; 0 = none): the socket's read and
//	                write timeouts (readTimeout/writeTimeout, unless the DSN sets them)
//	mysql.poolsize  connections (default: max(threadcount, 4))
//
// Example:
//
//	dbrig run -P workloads/workloada --driver mysql -p 'mysql.dsn=dbrig:secret@tcp(127.0.0.1:13306)/dbrig'
package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log"
	"strings"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/internal/sqltx"
	"github.com/dbrig/dbrig/driver/sqltable"
	"github.com/dbrig/dbrig/driver/sqltable/stdsql"
	"github.com/dbrig/dbrig/errclass"
	"github.com/dbrig/dbrig/spec"
)

// DB is a MySQL or MariaDB target; safe for concurrent use.
type DB struct {
	*stdsql.DB
	pool    *sql.DB
	target  string
	timeout time.Duration
	// driver.SQL: InnoDB's default isolation (REPEATABLE READ); a deadlock
	// (1213) or lock wait timeout (1205) is errclass.Conflict.
	*sqltx.Std
}

var (
	_ driver.DB            = (*DB)(nil)
	_ driver.BatchInserter = (*DB)(nil)
	_ driver.SQL           = (*DB)(nil)
	_ driver.Versioner     = (*DB)(nil)
	_ driver.Resetter      = (*DB)(nil)
	_ driver.Describer     = (*DB)(nil)
)

// Open connects to mysql.dsn and creates the table named by the table property.
func Open(ctx context.Context, cfg driver.Config) (driver.DB, error) {
	p := cfg.Props
	dsn, src, _ := p.Lookup("mysql.dsn")
	if dsn == "" {
		return nil, spec.Missing("mysql.dsn", "a DSN such as user:secret@tcp(127.0.0.1:3306)/db")
	}
	o, err := sqltable.OptionsFromProps(p, "mysql")
	if err != nil {
		return nil, err
	}

	mc, err := gomysql.ParseDSN(dsn)
	if err != nil {
		return nil, fmt.Errorf("%s: property mysql.dsn=%q: expected a DSN such as user:secret@tcp(127.0.0.1:3306)/db: %w",
			src, RedactDSN(dsn), err)
	}
	// Update must see a matched row as found even when it writes the value
	// the row already has; MySQL counts changed rows otherwise.
	mc.ClientFoundRows = true
	// The client logs each broken connection it drops; during a fault that
	// is one line per operation. The operations' errors are counted instead.
	mc.Logger = gomysql.Logger(log.New(io.Discard, "", 0))
	if o.Timeout > 0 && mc.Timeout == 0 {
		mc.Timeout = o.Timeout // dial
	}
	// The timeout is the socket's, not a context's: go-sql-driver hands
	// every query's cancellable context to the connection's watcher
	// goroutine and back (two goroutine wake-ups per operation), and a
	// context.WithTimeout costs a timer and nine allocations; together
	// ~10–15 µs of client CPU per point read on 2 cores, measured
	// (BenchmarkReadFloor). The operations below therefore run under a
	// context without cancellation: an interrupted run's operations end by
	// this timeout, not at once.
	if o.Timeout > 0 && mc.ReadTimeout == 0 {
		mc.ReadTimeout = o.Timeout
	}
	if o.Timeout > 0 && mc.WriteTimeout == 0 {
		mc.WriteTimeout = o.Timeout
	}
	conn, err := gomysql.NewConnector(mc)
	if err != nil {
		return nil, fmt.Errorf("mysql: %w", err)
	}
	pool := sql.OpenDB(conn)
	pool.SetMaxOpenConns(o.PoolSize)
	pool.SetMaxIdleConns(o.PoolSize) // default 2 would reconnect under load
	db := &DB{pool: pool, target: RedactDSN(dsn), timeout: o.Timeout}
	db.DB, err = stdsql.Open(ctx, stdsql.Config{
		Name: "mysql", Dialect: sqltable.MySQL(), Layout: o.Layout,
		Reads: pool, Writes: pool, Classify: classify, // timeouts: the socket's (above)
	}, o.Table)
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("%w (target %s)", err, db.target)
	}
	db.Std = sqltx.New(driver.SQLDialect{Name: "mysql", ForUpdate: " FOR UPDATE", MaxParams: 65535},
		pool, pool, classify, true)
	return db, nil
}

// Read implements driver.DB (under a context without cancellation: see Open).
func (db *DB) Read(ctx context.Context, table, key string, fields []string) (driver.Record, error) {
	start := time.Now()
	r, err := db.DB.Read(context.WithoutCancel(ctx), table, key, fields)
	return r, db.timedOut(start, err)
}

// Scan implements driver.DB (under a context without cancellation: see Open).
func (db *DB) Scan(ctx context.Context, table, startKey string, n int, fields []string) ([]driver.Record, error) {
	start := time.Now()
	rs, err := db.DB.Scan(context.WithoutCancel(ctx), table, startKey, n, fields)
	return rs, db.timedOut(start, err)
}

// Update implements driver.DB (under a context without cancellation: see Open).
func (db *DB) Update(ctx context.Context, table, key string, values driver.Record) error {
	start := time.Now()
	return db.timedOut(start, db.DB.Update(context.WithoutCancel(ctx), table, key, values))
}

// Insert implements driver.DB (under a context without cancellation: see Open).
func (db *DB) Insert(ctx context.Context, table, key string, values driver.Record) error {
	start := time.Now()
	return db.timedOut(start, db.DB.Insert(context.WithoutCancel(ctx), table, key, values))
}

// Delete implements driver.DB (under a context without cancellation: see Open).
func (db *DB) Delete(ctx context.Context, table, key string) error {
	start := time.Now()
	return db.timedOut(start, db.DB.Delete(context.WithoutCancel(ctx), table, key))
}

// timedOut makes go-sql-driver's "invalid connection" a timeout when it
// came after the socket timeout: that is how the driver reports a read or
// write past its deadline (the net error itself only goes to its logger).
func (db *DB) timedOut(start time.Time, err error) error {
	if err != nil && db.timeout > 0 && errors.Is(err, gomysql.ErrInvalidConn) && time.Since(start) >= db.timeout-db.timeout/10 {
		return errclass.Wrap(errclass.Timeout, err)
	}
	return err
}

// Target is mysql.dsn without its password.
func (db *DB) Target() string { return db.target }

// ServerVersion implements driver.Versioner, e.g. "MariaDB 10.11.19-MariaDB-0+deb12u1".
func (db *DB) ServerVersion(ctx context.Context) (string, error) {
	ctx, cancel := db.OpCtx(ctx)
	defer cancel()
	var v string
	if err := db.pool.QueryRowContext(ctx, "SELECT VERSION()").Scan(&v); err != nil {
		return "", fmt.Errorf("mysql server version: %w", classify(err))
	}
	if strings.Contains(v, "MariaDB") {
		return "MariaDB " + v, nil
	}
	return "MySQL " + v, nil
}

// classify attaches an errclass.Class to an error of go-sql-driver/mysql.
func classify(err error) error {
	if err == nil {
		return nil
	}
	var me *gomysql.MySQLError
	if errors.As(err, &me) {
		switch me.Number {
		case 1205, 1213: // lock wait timeout, deadlock
			return errclass.Wrap(errclass.Conflict, err)
		case 1969, 3024: // statement timeout (MariaDB max_statement_time, MySQL max_execution_time)
			return errclass.Wrap(errclass.Timeout, err)
		case 1040, 1053, 1927, 2006, 2013: // too many connections, shutdown, connection killed, gone away, lost
			return errclass.Wrap(errclass.Unavailable, err)
		}
		return err
	}
	if c, ok := sqltable.NetClass(err); ok {
		return errclass.Wrap(c, err)
	}
	if errors.Is(err, gomysql.ErrInvalidConn) {
		return errclass.Wrap(errclass.Unavailable, err)
	}
	return err
}
