// Package sqlite benchmarks SQLite, embedded, through the pure-Go
// modernc.org/sqlite (no cgo; the results store uses it too).
//
// Layout: one file, one table per YCSB table name (property table, default
// usertable), created on first use if missing:
//
//	usertable(ycsb_key VARCHAR(255) PRIMARY KEY, field0 BLOB, …, field<fieldcount-1> BLOB)
//
// A plain rowid table with the key's index: WITHOUT ROWID measured slower
// with YCSB's 1 KB rows (see driver/sqltable). fieldcount (default 10) and
// fieldnameprefix (default "field") are the YCSB properties the ycsb
// workload reads too.
//
// Concurrency: SQLite has one writer at a time per database. The driver keeps
// one connection for writes, so writers queue in Go (and their wait is
// measured as latency) instead of spinning in SQLite's busy handler, and a
// pool of read-only connections that read in parallel thanks to WAL mode.
// The busy timeout only matters when another process writes the same file.
// A bulk load inserts each batch in one transaction (one commit per batch),
// 16 rows per INSERT statement.
//
// Properties:
//
//	sqlite.path         database file (default ycsb.db in the run's scratch directory)
//	sqlite.timeout      per-operation timeout (default 10s; 0 = none)
//	sqlite.busytimeout  how long to wait for another process's lock (default 5s)
//	sqlite.synchronous  normal (default: durable on checkpoint, safe with WAL), full or off
//	sqlite.poolsize     read connections (default: max(threadcount, 4))
//
// Example:
//
//	dbrig run -P workloads/workloada --driver sqlite -p sqlite.path=/tmp/ycsb.db
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	msqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/internal/sqltx"
	"github.com/dbrig/dbrig/driver/sqltable"
	"github.com/dbrig/dbrig/driver/sqltable/stdsql"
	"github.com/dbrig/dbrig/errclass"
	"github.com/dbrig/dbrig/spec"
)

// DB is an SQLite database file; safe for concurrent use.
type DB struct {
	*stdsql.DB
	reads *sql.DB
	path  string
	// driver.SQL: a write transaction runs on the one write connection
	// (BEGIN IMMEDIATE, so writers queue in Go, serializable by
	// construction); a read-only one on the read pool (WAL snapshots).
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

// Open opens (creating if needed) the file at sqlite.path and the table
// named by the table property.
func Open(ctx context.Context, cfg driver.Config) (driver.DB, error) {
	p := cfg.Props
	def := ""
	if cfg.Dir != "" {
		def = filepath.Join(cfg.Dir, "ycsb.db")
	}
	path := p.String("sqlite.path", def)
	if path == "" {
		return nil, spec.Missing("sqlite.path", "a file path (there is no scratch directory to default to)")
	}
	if strings.ContainsAny(path, "?#") || path == ":memory:" {
		// A query would be taken as URI parameters; an in-memory database
		// would be a different one for each connection.
		return nil, p.Errorf("sqlite.path", "a file path without ? or # (and not :memory:)")
	}
	o, err := sqltable.OptionsFromProps(p, "sqlite")
	if err != nil {
		return nil, err
	}
	busy, err := p.Duration("sqlite.busytimeout", 5*time.Second)
	if err != nil {
		return nil, err
	}
	syncMode, err := p.Choice("sqlite.synchronous", "normal", "full", "off")
	if err != nil {
		return nil, err
	}

	dsn := func(extra ...string) string {
		q := url.Values{"_pragma": append([]string{
			fmt.Sprintf("busy_timeout(%d)", busy.Milliseconds()),
			"journal_mode(WAL)",
			"synchronous(" + syncMode + ")",
		}, extra...)}
		// Immediate: a write transaction takes the write lock at BEGIN, not
		// at its first write, so it cannot deadlock with another writer.
		q.Set("_txlock", "immediate")
		return "file:" + path + "?" + q.Encode()
	}
	writes, err := sql.Open("sqlite", dsn())
	if err != nil {
		return nil, fmt.Errorf("sqlite %s: %w", path, err)
	}
	writes.SetMaxOpenConns(1)
	writes.SetMaxIdleConns(1)
	writes.SetConnMaxLifetime(0)
	reads, err := sql.Open("sqlite", dsn("query_only(1)"))
	if err != nil {
		writes.Close()
		return nil, fmt.Errorf("sqlite %s: %w", path, err)
	}
	reads.SetMaxOpenConns(o.PoolSize)
	reads.SetMaxIdleConns(o.PoolSize)
	db := &DB{reads: reads, path: path}
	db.DB, err = stdsql.Open(ctx, stdsql.Config{
		Name: "sqlite", Dialect: sqltable.SQLite(), Layout: o.Layout,
		Reads: reads, Writes: writes, Timeout: o.Timeout, Classify: classify, BatchTx: true,
	}, o.Table)
	if err != nil {
		writes.Close()
		reads.Close()
		return nil, fmt.Errorf("%w (file %s)", err, path)
	}
	db.Std = sqltx.New(driver.SQLDialect{Name: "sqlite", MaxParams: 32766}, reads, writes, classify, false)
	db.Std.InsertParams = 256 // modernc binds in quadratic time
	return db, nil
}

// Target is the database file.
func (db *DB) Target() string { return db.path }

// ServerVersion implements driver.Versioner: the embedded library's version.
func (db *DB) ServerVersion(ctx context.Context) (string, error) {
	var v string
	if err := db.reads.QueryRowContext(ctx, "SELECT sqlite_version()").Scan(&v); err != nil {
		return "", fmt.Errorf("sqlite version: %w", classify(err))
	}
	return v, nil
}

// classify attaches an errclass.Class to a modernc.org/sqlite error.
func classify(err error) error {
	if err == nil {
		return nil
	}
	var se *msqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff { // primary result code
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
			// another connection (process) holds the lock past busy_timeout
			return errclass.Wrap(errclass.Conflict, err)
		}
		return err
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return errclass.Wrap(errclass.Timeout, err)
	}
	return err
}
