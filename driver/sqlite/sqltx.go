package sqlite

import (
	"context"
	"sync"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/internal/sqltx"
)

var _ driver.SQL = (*DB)(nil)

// sqlOnce builds the driver.SQL of a DB on first use.
type sqlOnce struct {
	once sync.Once
	std  *sqltx.Std
}

func (db *DB) sql() *sqltx.Std {
	o := &db.sqlcap
	o.once.Do(func() {
		_, writes := db.Pools()
		o.std = sqltx.New(driver.SQLDialect{Name: "sqlite", MaxParams: 32766},
			db.reads, writes, classify, false)
		o.std.InsertParams = 256 // modernc binds in quadratic time
	})
	return o.std
}

// Dialect implements driver.SQL.
func (db *DB) Dialect() driver.SQLDialect { return db.sql().Dialect() }

// InTx implements driver.SQL: a write transaction runs on the one write
// connection (BEGIN IMMEDIATE, so writers queue in Go, serializable by
// construction); a read-only one on the read pool (WAL snapshots).
func (db *DB) InTx(ctx context.Context, opts driver.TxOptions, fn func(driver.Tx) error) error {
	return db.sql().InTx(ctx, opts, fn)
}

// ExecSQL implements driver.SQL.
func (db *DB) ExecSQL(ctx context.Context, query string, args ...any) error {
	return db.sql().ExecSQL(ctx, query, args...)
}

// BulkInsert implements driver.SQL with multi-row INSERTs in one transaction.
func (db *DB) BulkInsert(ctx context.Context, table string, cols []string, rows [][]any) error {
	return db.sql().BulkInsert(ctx, table, cols, rows)
}
