// Package postgres benchmarks PostgreSQL through pgx's native API and
// connection pool (not database/sql, which costs an extra copy and lock per
// row).
//
// Layout: one table per YCSB table name (property table, default usertable),
// created on first use if missing:
//
//	usertable(ycsb_key VARCHAR(255) COLLATE "C" PRIMARY KEY, field0 BYTEA, …, field<fieldcount-1> BYTEA)
//
// COLLATE "C" makes scans run in byte order whatever the database locale;
// BYTEA keeps values byte-exact. fieldcount (default 10) and fieldnameprefix
// (default "field") are the YCSB properties the ycsb workload reads too. A
// table that exists with other columns is reported at open, not changed.
// Statements are prepared once per connection (pgx's statement cache).
//
// Properties:
//
//	pg.url       connection URL (required), e.g. postgres://user:secret@127.0.0.1:5432/db?sslmode=disable;
//	             the password is redacted wherever the target is shown or stored
//	pg.read_url  connection URL that reads (Read, Scan) go to, e.g. a streaming
//	             replica's (default: pg.url); writes, the load, resets and
//	             snapshots go to pg.url. Redacted and checked as pg.url is.
//	             Reads from an asynchronous replica may be stale: the way to
//	             measure it is an SLA term unpredictable (dbrig rate, bench)
//	pg.timeout   per-operation timeout (default 10s; 0 = none), armed as the
//	             connection's socket deadline (no timer context per operation);
//	             waiting for a free connection (pg.poolsize < clients) is not bounded by it.
//	             With a timeout, an operation checks the run's context before its query
//	             and is not interrupted by it afterwards: it ends by itself or at pg.timeout
//	pg.poolsize  connections (default: max(threadcount, 4))
//	pg.batch     bulk-load method: copy (COPY FROM STDIN, default) or insert (multi-row INSERT)
//	pg.timeseries  how the time-series workloads keep points: records (default:
//	             as records of the table, like any key-value store) or table
//	             (a time-series table layout, driver.Points: timeseries.go)
//	pg.autovacuum  the table's autovacuum: on (default: the server's) or off
//	             (its storage parameter; see autovacuum.go)
//
// Example:
//
//	dbrig run -P workloads/workloada --driver postgres -p pg.url='postgres://dbrig:secret@127.0.0.1:15432/dbrig?sslmode=disable'
package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/sqltable"
	"github.com/dbrig/dbrig/errclass"
	"github.com/dbrig/dbrig/spec"
)

// DB is a PostgreSQL target. It is safe for concurrent use.
type DB struct {
	pool *pgxpool.Pool
	// reads is the pool Read and Scan use: pool itself, or pg.read_url's.
	reads   *pgxpool.Pool
	layout  *sqltable.Layout
	timeout time.Duration
	target  string
	copy    bool // bulk load with COPY rather than multi-row INSERT
	// prepared: pgx prepares statements (its default exec mode), so Read
	// may prepare its own and run them at the protocol level (readRow).
	prepared bool
	// autovacuum: pg.autovacuum, the table's own autovacuum_enabled
	// (autovacuum.go).
	autovacuum bool
	tables     sqltable.Tables
	sqlq       queries // driver.SQL's statements in $n form (sqltx.go)
}

var (
	_ driver.DB            = (*DB)(nil)
	_ driver.BatchInserter = (*DB)(nil)
	_ driver.Versioner     = (*DB)(nil)
	_ driver.Resetter      = (*DB)(nil)
	_ driver.Describer     = (*DB)(nil)
)

// Open connects to pg.url and creates the table named by the table property.
func Open(ctx context.Context, cfg driver.Config) (driver.DB, error) {
	p := cfg.Props
	url, src, _ := p.Lookup("pg.url")
	if url == "" {
		return nil, spec.Missing("pg.url", "a URL such as postgres://user:secret@127.0.0.1:5432/db?sslmode=disable")
	}
	o, err := sqltable.OptionsFromProps(p, "pg")
	if err != nil {
		return nil, err
	}
	batch, err := p.Choice("pg.batch", "copy", "insert")
	if err != nil {
		return nil, err
	}
	autovacuum, err := p.Choice("pg.autovacuum", "on", "off")
	if err != nil {
		return nil, err
	}
	layout, err := p.Choice("pg.timeseries", "records", "table")
	if err != nil {
		return nil, err
	}

	pc, err := poolConfig(url, src, "pg.url", o)
	if err != nil {
		return nil, err
	}
	readURL, readSrc, _ := p.Lookup("pg.read_url")
	var rc *pgxpool.Config
	if readURL != "" {
		if rc, err = poolConfig(readURL, readSrc, "pg.read_url", o); err != nil {
			return nil, err
		}
	}
	db := &DB{layout: o.Layout, timeout: o.Timeout, target: spec.RedactConnInfo(url), copy: batch == "copy",
		prepared: pc.ConnConfig.DefaultQueryExecMode == pgx.QueryExecModeCacheStatement, autovacuum: autovacuum == "on"}
	db.pool, err = pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return nil, fmt.Errorf("postgres %s: %w", db.target, classify(err))
	}
	db.reads = db.pool
	if rc != nil {
		if db.reads, err = pgxpool.NewWithConfig(ctx, rc); err != nil {
			db.pool.Close()
			return nil, fmt.Errorf("postgres reads %s: %w", spec.RedactConnInfo(readURL), classify(err))
		}
		// Read's protocol-level path needs pgx's statement cache on both.
		db.prepared = db.prepared && rc.ConnConfig.DefaultQueryExecMode == pgx.QueryExecModeCacheStatement
		db.target += " (reads: " + spec.RedactConnInfo(readURL) + ")"
	}
	if _, err := db.table(ctx, o.Table); err != nil {
		db.Close()
		return nil, err
	}
	if layout == "table" {
		return &TSDB{DB: db}, nil
	}
	return db, nil
}

// poolConfig parses the connection URL of property key (pg.url,
// pg.read_url) and applies pg.poolsize and pg.timeout to it.
func poolConfig(url string, src spec.Source, key string, o sqltable.Options) (*pgxpool.Config, error) {
	pc, err := pgxpool.ParseConfig(url)
	if err != nil {
		// pgx's message repeats the URL; show it redacted. Bad input: exit 2.
		return nil, &spec.PropError{Key: key, Value: spec.RedactConnInfo(url), Src: src,
			Want: "a PostgreSQL URL, postgres://USER:PASSWORD@HOST:PORT/DATABASE, or key=value pairs (host=… user=… dbname=…)"}
	}
	pc.MaxConns = int32(o.PoolSize)
	if o.Timeout > 0 && pc.ConnConfig.ConnectTimeout == 0 {
		pc.ConnConfig.ConnectTimeout = o.Timeout
	}
	return pc, nil
}

// Target is pg.url without its password (and pg.read_url's, when given).
func (db *DB) Target() string { return db.target }

// table returns the statement cache of a table, creating the table first.
func (db *DB) table(ctx context.Context, name string) (*sqltable.Table, error) {
	return db.tables.Get(name, func() (*sqltable.Table, error) {
		t, err := sqltable.NewTable(sqltable.Postgres(), db.layout, name, nil)
		if err != nil {
			return nil, err
		}
		ctx, cancel := db.opCtx(ctx)
		defer cancel()
		if _, err := db.pool.Exec(ctx, t.CreateSQL()); err != nil {
			// Concurrent CREATE TABLE IF NOT EXISTS of the same table (another
			// dbrig process) can race in the catalog: look before failing.
			if _, err2 := db.pool.Exec(ctx, t.CheckSQL()); err2 != nil {
				return nil, fmt.Errorf("postgres: create table %s: %w", name, classify(err))
			}
		}
		if _, err := db.pool.Exec(ctx, t.CheckSQL()); err != nil {
			return nil, t.MismatchError("postgres", classify(err))
		}
		if err := db.setAutovacuum(ctx, name); err != nil {
			return nil, err
		}
		return t, nil
	})
}

func (db *DB) opCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	if db.timeout <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, db.timeout)
}

// conn takes a connection from the pool and arms pg.timeout as its socket
// deadline, cleared again by release. A deadline costs no allocation, where a
// context.WithTimeout per operation costs a timer, nine allocations and a
// registration with the parent context: several µs of client CPU per
// operation, taken from the server on a shared machine. An expired deadline
// fails the operation with a net timeout (errclass.Timeout) and closes that
// connection, as a cancelled context does. Waiting for a free connection
// (pg.poolsize below the client count) is bounded by ctx alone.
func (db *DB) conn(ctx context.Context) (*pgxpool.Conn, error) {
	return db.connOf(ctx, db.pool)
}

// readConn is conn from the pool of reads (pg.read_url, else pg.url).
func (db *DB) readConn(ctx context.Context) (*pgxpool.Conn, error) {
	return db.connOf(ctx, db.reads)
}

func (db *DB) connOf(ctx context.Context, pool *pgxpool.Pool) (*pgxpool.Conn, error) {
	c, err := pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	if db.timeout > 0 {
		if err := c.Conn().PgConn().Conn().SetDeadline(time.Now().Add(db.timeout)); err != nil {
			c.Release()
			return nil, err
		}
	}
	return c, nil
}

func (db *DB) release(c *pgxpool.Conn) {
	if db.timeout > 0 {
		// A connection whose deadline cannot be cleared is closed: the pool
		// then drops it.
		if err := c.Conn().PgConn().Conn().SetDeadline(time.Time{}); err != nil {
			c.Conn().PgConn().Conn().Close()
		}
	}
	c.Release()
}

// exec runs one statement under pg.timeout.
func (db *DB) exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	c, err := db.conn(ctx)
	if err != nil {
		return pgconn.CommandTag{}, err
	}
	defer db.release(c)
	qctx, err := db.queryCtx(ctx)
	if err != nil {
		return pgconn.CommandTag{}, err
	}
	return c.Exec(qctx, sql, args...)
}

// Read implements driver.DB.
func (db *DB) Read(ctx context.Context, table, key string, fields []string) (driver.Record, error) {
	t, err := db.table(ctx, table)
	if err != nil {
		return nil, err
	}
	s, err := t.ReadStmt(ctx, fields)
	if err != nil {
		return nil, fmt.Errorf("postgres read %s: %w", table, err)
	}
	c, err := db.readConn(ctx)
	if err != nil {
		return nil, fmt.Errorf("postgres read %s %q: %w", table, key, classify(err))
	}
	defer db.release(c)
	rec, err := db.readRow(ctx, c, s, key)
	switch {
	case err != nil:
		return nil, fmt.Errorf("postgres read %s %q: %w", table, key, classify(err))
	case rec == nil:
		return nil, fmt.Errorf("postgres read %s %q: %w", table, key, errclass.ErrNotFound)
	}
	return rec, nil
}

// binaryResults asks for every result column in the binary format (one
// format code applies to all columns).
var binaryResults = []int16{pgx.BinaryFormatCode}

// readRow runs the read statement s of key on c at the protocol level
// (pgconn.ExecStatement: one write of Bind+Execute+Sync, results in the
// binary format) and copies the row's values into a record, nil when there is
// no row. It skips what pgx.Conn.Query adds per query and a point read does
// not need: argument encoding through the type map, pgx.Rows and its scan
// plans. The statement is prepared once per connection (pgx.Conn.Prepare
// caches it by its SQL).
//
// With pg.timeout armed as the socket deadline, ctx is checked before the
// query and not watched during it: pgconn's watch of a cancellable context
// is a context.AfterFunc registration per query (allocations and the lock of
// the run's context, shared by every client). A query in flight when ctx
// ends then ends by itself or at the deadline. Without pg.timeout ctx is
// watched as usual.
func (db *DB) readRow(ctx context.Context, c *pgxpool.Conn, s *sqltable.Stmt, key string) (driver.Record, error) {
	if !db.prepared {
		// default_query_exec_mode in pg.url (e.g. simple_protocol behind a
		// transaction-pooling proxy): no statements of our own.
		return db.readRowScan(ctx, c, s, key)
	}
	sd, err := c.Conn().Prepare(ctx, s.SQL, s.SQL)
	if err != nil {
		return nil, err
	}
	if len(sd.Fields) != len(s.Names) {
		return nil, fmt.Errorf("%d columns, expected %d", len(sd.Fields), len(s.Names))
	}
	for _, f := range sd.Fields {
		if f.DataTypeOID != pgtype.ByteaOID {
			return db.readRowScan(ctx, c, s, key)
		}
	}
	qctx, err := db.queryCtx(ctx)
	if err != nil {
		return nil, err
	}
	rr := c.Conn().PgConn().ExecStatement(qctx, sd, [][]byte{[]byte(key)}, nil, binaryResults)
	var rec driver.Record
	if rr.NextRow() {
		rec = recordOf(s, rr.Values())
	}
	if _, err := rr.Close(); err != nil {
		return nil, err
	}
	return rec, nil
}

// queryCtx is the context an operation's query runs under (Read, Scan,
// Update, Insert, Delete): ctx itself, or with pg.timeout armed as the
// socket deadline, a context pgconn does not watch once ctx is found alive
// (see readRow).
func (db *DB) queryCtx(ctx context.Context) (context.Context, error) {
	if db.timeout <= 0 {
		return ctx, nil
	}
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	default:
		return context.WithoutCancel(ctx), nil
	}
}

// recordOf copies a row's values into a record backed by one buffer (one
// allocation for the values, not one per field); a NULL leaves the field out.
func recordOf(s *sqltable.Stmt, vals [][]byte) driver.Record {
	n := 0
	for _, v := range vals {
		n += len(v)
	}
	buf := make([]byte, n)
	r := make(driver.Record, len(vals))
	for i, v := range vals {
		if v == nil {
			continue
		}
		k := copy(buf, v)
		r[s.Names[i]] = buf[:k:k]
		buf = buf[k:]
	}
	return r
}

// readRowScan is readRow for a table whose columns are not all BYTEA:
// pgx's query and Scan decode them.
func (db *DB) readRowScan(ctx context.Context, c *pgxpool.Conn, s *sqltable.Stmt, key string) (driver.Record, error) {
	qctx, err := db.queryCtx(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := c.Query(qctx, s.SQL, key)
	if err != nil {
		return nil, err
	}
	var rec driver.Record
	if rows.Next() {
		rec, err = record(s, rows)
	}
	rows.Close()
	if err == nil {
		err = rows.Err()
	}
	return rec, err
}

// record is the current row of rows as a record: the fields' bytes copied
// into one buffer (one allocation for the values, not one per field). BYTEA
// in the binary format (what pgx's prepared statements ask for) is the value
// itself; any other format (e.g. default_query_exec_mode=simple_protocol in
// pg.url) is decoded by pgx's Scan.
func record(s *sqltable.Stmt, rows pgx.Rows) (driver.Record, error) {
	raw := rows.RawValues()
	if len(raw) != len(s.Names) {
		return nil, fmt.Errorf("%d columns, expected %d", len(raw), len(s.Names))
	}
	for _, fd := range rows.FieldDescriptions() {
		if fd.Format != pgx.BinaryFormatCode || fd.DataTypeOID != pgtype.ByteaOID {
			vals, dst := sqltable.ScanDest(len(s.Cols))
			if err := rows.Scan(dst...); err != nil {
				return nil, err
			}
			return sqltable.Record(s, vals), nil
		}
	}
	return recordOf(s, raw), nil
}

// Scan implements driver.DB.
func (db *DB) Scan(ctx context.Context, table, startKey string, n int, fields []string) ([]driver.Record, error) {
	t, err := db.table(ctx, table)
	if err != nil {
		return nil, err
	}
	s, err := t.ScanStmt(ctx, fields)
	if err != nil {
		return nil, fmt.Errorf("postgres scan %s: %w", table, err)
	}
	c, err := db.readConn(ctx)
	if err != nil {
		return nil, fmt.Errorf("postgres scan %s %q: %w", table, startKey, classify(err))
	}
	defer db.release(c)
	qctx, err := db.queryCtx(ctx)
	if err != nil {
		return nil, fmt.Errorf("postgres scan %s %q: %w", table, startKey, err)
	}
	rows, err := c.Query(qctx, s.SQL, startKey, n)
	if err != nil {
		return nil, fmt.Errorf("postgres scan %s %q: %w", table, startKey, classify(err))
	}
	defer rows.Close()
	out := make([]driver.Record, 0, n)
	for rows.Next() {
		r, err := record(s, rows)
		if err != nil {
			return nil, fmt.Errorf("postgres scan %s %q: %w", table, startKey, classify(err))
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres scan %s %q: %w", table, startKey, classify(err))
	}
	return out, nil
}

// Update implements driver.DB; a missing key wraps errclass.ErrNotFound.
func (db *DB) Update(ctx context.Context, table, key string, values driver.Record) error {
	t, err := db.table(ctx, table)
	if err != nil {
		return err
	}
	s, err := t.UpdateStmt(ctx, values)
	if err != nil {
		return fmt.Errorf("postgres update %s: %w", table, err)
	}
	args := t.UpdateArgs(s, key, values, make([]any, 0, len(s.Cols)+1))
	tag, err := db.exec(ctx, s.SQL, args...)
	if err != nil {
		return fmt.Errorf("postgres update %s %q: %w", table, key, classify(err))
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("postgres update %s %q: %w", table, key, errclass.ErrNotFound)
	}
	return nil
}

// Insert implements driver.DB. Fields the record lacks are stored as NULL.
func (db *DB) Insert(ctx context.Context, table, key string, values driver.Record) error {
	t, err := db.table(ctx, table)
	if err != nil {
		return err
	}
	s, err := t.InsertStmt(ctx)
	if err != nil {
		return fmt.Errorf("postgres insert %s: %w", table, err)
	}
	args, err := t.InsertArgs(key, values, make([]any, 0, len(db.layout.Fields)+1))
	if err != nil {
		return fmt.Errorf("postgres insert %s %q: %w", table, key, err)
	}
	if _, err := db.exec(ctx, s.SQL, args...); err != nil {
		return fmt.Errorf("postgres insert %s %q: %w", table, key, classify(err))
	}
	return nil
}

// Delete implements driver.DB; a missing key wraps errclass.ErrNotFound.
func (db *DB) Delete(ctx context.Context, table, key string) error {
	t, err := db.table(ctx, table)
	if err != nil {
		return err
	}
	s, err := t.DeleteStmt(ctx)
	if err != nil {
		return fmt.Errorf("postgres delete %s: %w", table, err)
	}
	tag, err := db.exec(ctx, s.SQL, key)
	if err != nil {
		return fmt.Errorf("postgres delete %s %q: %w", table, key, classify(err))
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("postgres delete %s %q: %w", table, key, errclass.ErrNotFound)
	}
	return nil
}

// InsertBatch implements driver.BatchInserter with one COPY (pg.batch=copy)
// or multi-row INSERTs of at most the bind-parameter limit (pg.batch=insert).
// Either way the batch is atomic only per statement.
func (db *DB) InsertBatch(ctx context.Context, table string, keys []string, values []driver.Record) error {
	if len(keys) != len(values) {
		return fmt.Errorf("postgres insert batch: %d keys but %d records", len(keys), len(values))
	}
	if len(keys) == 0 {
		return nil
	}
	t, err := db.table(ctx, table)
	if err != nil {
		return err
	}
	ctx, cancel := db.opCtx(ctx)
	defer cancel()
	if db.copy {
		return db.copyBatch(ctx, t, keys, values)
	}
	width := len(db.layout.Fields) + 1
	args := make([]any, 0, min(len(keys), t.MaxRows())*width)
	for start := 0; start < len(keys); start += t.MaxRows() {
		end := min(start+t.MaxRows(), len(keys))
		s, err := t.InsertRowsStmt(ctx, end-start)
		if err != nil {
			return fmt.Errorf("postgres insert batch %s: %w", table, err)
		}
		args = args[:0]
		for i := start; i < end; i++ {
			if args, err = t.InsertArgs(keys[i], values[i], args); err != nil {
				return fmt.Errorf("postgres insert batch %s %q: %w", table, keys[i], err)
			}
		}
		if _, err := db.pool.Exec(ctx, s.SQL, args...); err != nil {
			return fmt.Errorf("postgres insert batch %s (%d rows from %q): %w", table, end-start, keys[start], classify(err))
		}
	}
	return nil
}

func (db *DB) copyBatch(ctx context.Context, t *sqltable.Table, keys []string, values []driver.Record) error {
	cols := make([]string, 0, len(db.layout.Fields)+1)
	cols = append(append(cols, sqltable.KeyColumn), db.layout.Fields...)
	// pgx encodes each row before asking for the next, so one row buffer is reused.
	row := make([]any, 0, len(cols))
	src := pgx.CopyFromSlice(len(keys), func(i int) ([]any, error) {
		var err error
		row, err = t.InsertArgs(keys[i], values[i], row[:0])
		if err != nil {
			return nil, fmt.Errorf("key %q: %w", keys[i], err)
		}
		return row, nil
	})
	if _, err := db.pool.CopyFrom(ctx, pgx.Identifier{t.Name}, cols, src); err != nil {
		return fmt.Errorf("postgres copy into %s (%d rows from %q): %w", t.Name, len(keys), keys[0], classify(err))
	}
	return nil
}

// ServerVersion implements driver.Versioner, e.g. "PostgreSQL 15.18 (Debian 15.18-0+deb12u1)".
func (db *DB) ServerVersion(ctx context.Context) (string, error) {
	ctx, cancel := db.opCtx(ctx)
	defer cancel()
	var v string
	if err := db.pool.QueryRow(ctx, "SHOW server_version").Scan(&v); err != nil {
		return "", fmt.Errorf("postgres server version: %w", classify(err))
	}
	return "PostgreSQL " + v, nil
}

// Reset implements driver.Resetter: it empties every table this DB used.
func (db *DB) Reset(ctx context.Context) error {
	ctx, cancel := db.opCtx(ctx)
	defer cancel()
	for name, t := range db.tables.All() {
		if _, err := db.pool.Exec(ctx, t.ClearSQL()); err != nil {
			return fmt.Errorf("postgres reset %s: %w", name, classify(err))
		}
	}
	return nil
}

// Records implements driver.Preloaded: 1 when the table holds a row, else 0.
// It creates the table as a load would, so Reset then knows it too.
func (db *DB) Records(ctx context.Context, table string) (int64, error) {
	t, err := db.table(ctx, table)
	if err != nil {
		return 0, err
	}
	ctx, cancel := db.opCtx(ctx)
	defer cancel()
	var one int64
	switch err := db.pool.QueryRow(ctx, t.AnySQL()).Scan(&one); {
	case errors.Is(err, pgx.ErrNoRows):
		return 0, nil
	case err != nil:
		return 0, fmt.Errorf("postgres: look for records in %s: %w", table, classify(err))
	}
	return 1, nil
}

// Close closes every connection.
func (db *DB) Close() error {
	if db.reads != db.pool {
		db.reads.Close()
	}
	db.pool.Close()
	return nil
}

// classify attaches an errclass.Class to a pgx error.
func classify(err error) error {
	if err == nil {
		return nil
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case pe.Code == "40001", pe.Code == "40P01", pe.Code == "55P03":
			// serialization failure, deadlock, lock not available
			return errclass.Wrap(errclass.Conflict, err)
		case pe.Code == "57014": // query canceled (statement_timeout)
			return errclass.Wrap(errclass.Timeout, err)
		case strings.HasPrefix(pe.Code, "08"), strings.HasPrefix(pe.Code, "57P"), pe.Code == "53300":
			// connection exception, shutdown / cannot connect now, too many connections
			return errclass.Wrap(errclass.Unavailable, err)
		}
		return err
	}
	if pgconn.Timeout(err) {
		return errclass.Wrap(errclass.Timeout, err)
	}
	if c, ok := sqltable.NetClass(err); ok {
		return errclass.Wrap(c, err)
	}
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		return errclass.Wrap(errclass.Unavailable, err)
	}
	return err
}
