package mysql

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
		o.std = sqltx.New(driver.SQLDialect{Name: "mysql", ForUpdate: " FOR UPDATE", MaxParams: 65535},
			db.pool, db.pool, classify, true)
	})
	return o.std
}

// Dialect implements driver.SQL.
func (db *DB) Dialect() driver.SQLDialect { return db.sql().Dialect() }

// InTx implements driver.SQL: InnoDB's default isolation (REPEATABLE READ);
// a deadlock (1213) or lock wait timeout (1205) is errclass.Conflict.
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
