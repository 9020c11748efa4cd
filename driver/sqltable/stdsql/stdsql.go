// Package stdsql implements driver.DB over database/sql for the SQL drivers
// that use it (mysql, sqlite): prepared statements from sqltable, one per
// table, kind and field set, prepared on first use.
package stdsql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/sqltable"
	"github.com/dbrig/dbrig/errclass"
)

// Config describes one database/sql target.
type Config struct {
	Name    string // system name for messages, e.g. "mysql"
	Dialect sqltable.Dialect
	Layout  *sqltable.Layout
	// Reads serves Read and Scan, Writes everything else. They are the same
	// pool except where one writer at a time is better (SQLite).
	Reads, Writes *sql.DB
	Timeout       time.Duration // per operation; 0 = none
	// Classify attaches an errclass.Class to an error of the client library.
	Classify func(error) error
	// BatchTx runs the INSERTs of one batch in one transaction (SQLite:
	// one commit, one fsync, per batch instead of per statement).
	BatchTx bool
}

// DB is a driver.DB over database/sql; safe for concurrent use.
type DB struct {
	c      Config
	tables sqltable.Tables
}

// Open creates (if missing) and checks the table, so a wrong layout or an
// unreachable server shows at open. It does not close the pools on error.
func Open(ctx context.Context, c Config, table string) (*DB, error) {
	db := &DB{c: c}
	if _, err := db.table(ctx, table); err != nil {
		return nil, err
	}
	return db, nil
}

// OpCtx applies the per-operation timeout.
func (db *DB) OpCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	if db.c.Timeout <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, db.c.Timeout)
}

func (db *DB) prepare(ctx context.Context, kind sqltable.Kind, query string) (any, error) {
	pool := db.c.Writes
	if kind == sqltable.Read || kind == sqltable.Scan {
		pool = db.c.Reads
	}
	ctx, cancel := db.OpCtx(ctx)
	defer cancel()
	st, err := pool.PrepareContext(ctx, query)
	if err != nil {
		return nil, db.classify(ctx, err)
	}
	return st, nil
}

// table returns the statement cache of a table, creating the table first.
func (db *DB) table(ctx context.Context, name string) (*sqltable.Table, error) {
	return db.tables.Get(name, func() (*sqltable.Table, error) {
		t, err := sqltable.NewTable(db.c.Dialect, db.c.Layout, name, db.prepare)
		if err != nil {
			return nil, err
		}
		ctx, cancel := db.OpCtx(ctx)
		defer cancel()
		if _, err := db.c.Writes.ExecContext(ctx, t.CreateSQL()); err != nil {
			return nil, fmt.Errorf("%s: create table %s: %w", db.c.Name, name, db.classify(ctx, err))
		}
		if _, err := db.c.Reads.ExecContext(ctx, t.CheckSQL()); err != nil {
			return nil, t.MismatchError(db.c.Name, db.classify(ctx, err))
		}
		return t, nil
	})
}

// classify is Config.Classify, plus: an error after the operation's deadline
// passed is a timeout (e.g. SQLite reports its interruption as SQLITE_INTERRUPT).
func (db *DB) classify(ctx context.Context, err error) error {
	err = db.c.Classify(err)
	if errclass.Of(err) == errclass.Other && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return errclass.Wrap(errclass.Timeout, err)
	}
	return err
}

func (db *DB) fail(op, table, key string, err error) error {
	return fmt.Errorf("%s %s %s %q: %w", db.c.Name, op, table, key, err)
}

// Read implements driver.DB.
func (db *DB) Read(ctx context.Context, table, key string, fields []string) (driver.Record, error) {
	t, err := db.table(ctx, table)
	if err != nil {
		return nil, err
	}
	ctx, cancel := db.OpCtx(ctx)
	defer cancel()
	s, err := t.ReadStmt(ctx, fields)
	if err != nil {
		return nil, db.fail("read", table, key, err)
	}
	vals, dst := sqltable.ScanDest(len(s.Cols))
	if err := s.Handle.(*sql.Stmt).QueryRowContext(ctx, key).Scan(dst...); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, db.fail("read", table, key, errclass.ErrNotFound)
		}
		return nil, db.fail("read", table, key, db.classify(ctx, err))
	}
	return sqltable.Record(s, vals), nil
}

// Scan implements driver.DB.
func (db *DB) Scan(ctx context.Context, table, startKey string, n int, fields []string) ([]driver.Record, error) {
	t, err := db.table(ctx, table)
	if err != nil {
		return nil, err
	}
	ctx, cancel := db.OpCtx(ctx)
	defer cancel()
	s, err := t.ScanStmt(ctx, fields)
	if err != nil {
		return nil, db.fail("scan", table, startKey, err)
	}
	rows, err := s.Handle.(*sql.Stmt).QueryContext(ctx, startKey, n)
	if err != nil {
		return nil, db.fail("scan", table, startKey, db.classify(ctx, err))
	}
	defer rows.Close()
	out := make([]driver.Record, 0, min(n, 1024))
	for rows.Next() {
		vals, dst := sqltable.ScanDest(len(s.Cols))
		if err := rows.Scan(dst...); err != nil {
			return nil, db.fail("scan", table, startKey, db.classify(ctx, err))
		}
		out = append(out, sqltable.Record(s, vals))
	}
	if err := rows.Err(); err != nil {
		return nil, db.fail("scan", table, startKey, db.classify(ctx, err))
	}
	return out, nil
}

// Update implements driver.DB; a missing key wraps errclass.ErrNotFound. The
// MySQL driver must count matched, not changed, rows (clientFoundRows), or
// an update that writes the same value would look like a missing key.
func (db *DB) Update(ctx context.Context, table, key string, values driver.Record) error {
	t, err := db.table(ctx, table)
	if err != nil {
		return err
	}
	ctx, cancel := db.OpCtx(ctx)
	defer cancel()
	s, err := t.UpdateStmt(ctx, values)
	if err != nil {
		return db.fail("update", table, key, err)
	}
	args := t.UpdateArgs(s, key, values, make([]any, 0, len(s.Cols)+1))
	res, err := s.Handle.(*sql.Stmt).ExecContext(ctx, args...)
	if err != nil {
		return db.fail("update", table, key, db.classify(ctx, err))
	}
	if n, err := res.RowsAffected(); err != nil {
		return db.fail("update", table, key, err)
	} else if n == 0 {
		return db.fail("update", table, key, errclass.ErrNotFound)
	}
	return nil
}

// Insert implements driver.DB. Fields the record lacks are stored as NULL.
func (db *DB) Insert(ctx context.Context, table, key string, values driver.Record) error {
	t, err := db.table(ctx, table)
	if err != nil {
		return err
	}
	args, err := t.InsertArgs(key, values, make([]any, 0, len(db.c.Layout.Fields)+1))
	if err != nil {
		return db.fail("insert", table, key, err)
	}
	ctx, cancel := db.OpCtx(ctx)
	defer cancel()
	s, err := t.InsertStmt(ctx)
	if err != nil {
		return db.fail("insert", table, key, err)
	}
	if _, err := s.Handle.(*sql.Stmt).ExecContext(ctx, args...); err != nil {
		return db.fail("insert", table, key, db.classify(ctx, err))
	}
	return nil
}

// Delete implements driver.DB; a missing key wraps errclass.ErrNotFound.
func (db *DB) Delete(ctx context.Context, table, key string) error {
	t, err := db.table(ctx, table)
	if err != nil {
		return err
	}
	ctx, cancel := db.OpCtx(ctx)
	defer cancel()
	s, err := t.DeleteStmt(ctx)
	if err != nil {
		return db.fail("delete", table, key, err)
	}
	res, err := s.Handle.(*sql.Stmt).ExecContext(ctx, key)
	if err != nil {
		return db.fail("delete", table, key, db.classify(ctx, err))
	}
	if n, err := res.RowsAffected(); err != nil {
		return db.fail("delete", table, key, err)
	} else if n == 0 {
		return db.fail("delete", table, key, errclass.ErrNotFound)
	}
	return nil
}

// InsertBatch implements driver.BatchInserter with multi-row INSERTs of at
// most the dialect's bind-parameter limit, in one transaction when BatchTx.
func (db *DB) InsertBatch(ctx context.Context, table string, keys []string, values []driver.Record) error {
	if len(keys) != len(values) {
		return fmt.Errorf("%s insert batch: %d keys but %d records", db.c.Name, len(keys), len(values))
	}
	if len(keys) == 0 {
		return nil
	}
	t, err := db.table(ctx, table)
	if err != nil {
		return err
	}
	ctx, cancel := db.OpCtx(ctx)
	defer cancel()
	// Statements first: preparing takes a connection, and with a single
	// writer connection (SQLite) the transaction below holds it.
	rows := t.MaxRows()
	full, err := t.InsertRowsStmt(ctx, min(rows, len(keys)))
	if err != nil {
		return fmt.Errorf("%s insert batch %s: %w", db.c.Name, table, db.classify(ctx, err))
	}
	last := full
	if n := len(keys) % rows; n != 0 && len(keys) > rows {
		if last, err = t.InsertRowsStmt(ctx, n); err != nil {
			return fmt.Errorf("%s insert batch %s: %w", db.c.Name, table, db.classify(ctx, err))
		}
	}
	var tx *sql.Tx
	if db.c.BatchTx {
		if tx, err = db.c.Writes.BeginTx(ctx, nil); err != nil {
			return fmt.Errorf("%s insert batch %s: begin: %w", db.c.Name, table, db.classify(ctx, err))
		}
		defer tx.Rollback() // no-op after Commit
	}
	args := make([]any, 0, min(len(keys), rows)*(len(db.c.Layout.Fields)+1))
	for start := 0; start < len(keys); start += rows {
		end := min(start+rows, len(keys))
		s := full
		if end-start < rows {
			s = last
		}
		args = args[:0]
		for i := start; i < end; i++ {
			if args, err = t.InsertArgs(keys[i], values[i], args); err != nil {
				return db.fail("insert batch", table, keys[i], err)
			}
		}
		st := s.Handle.(*sql.Stmt)
		if tx != nil {
			st = tx.StmtContext(ctx, st)
		}
		if _, err := st.ExecContext(ctx, args...); err != nil {
			return fmt.Errorf("%s insert batch %s (%d rows from %q): %w", db.c.Name, table, end-start, keys[start], db.classify(ctx, err))
		}
	}
	if tx != nil {
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("%s insert batch %s: commit: %w", db.c.Name, table, db.classify(ctx, err))
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
	ctx, cancel := db.OpCtx(ctx)
	defer cancel()
	var one int64
	switch err := db.c.Reads.QueryRowContext(ctx, t.AnySQL()).Scan(&one); {
	case errors.Is(err, sql.ErrNoRows):
		return 0, nil
	case err != nil:
		return 0, fmt.Errorf("%s: look for records in %s: %w", db.c.Name, table, db.classify(ctx, err))
	}
	return 1, nil
}

// Reset implements driver.Resetter: it empties every table this DB used.
func (db *DB) Reset(ctx context.Context) error {
	ctx, cancel := db.OpCtx(ctx)
	defer cancel()
	for name, t := range db.tables.All() {
		if _, err := db.c.Writes.ExecContext(ctx, t.ClearSQL()); err != nil {
			return fmt.Errorf("%s reset %s: %w", db.c.Name, name, db.classify(ctx, err))
		}
	}
	return nil
}

// Close closes the prepared statements and the pools.
func (db *DB) Close() error {
	var errs []error
	for _, t := range db.tables.All() {
		t.Each(func(s *sqltable.Stmt) {
			if st, ok := s.Handle.(*sql.Stmt); ok {
				errs = append(errs, st.Close())
			}
		})
	}
	errs = append(errs, db.c.Reads.Close())
	if db.c.Writes != db.c.Reads {
		errs = append(errs, db.c.Writes.Close())
	}
	return errors.Join(errs...)
}
