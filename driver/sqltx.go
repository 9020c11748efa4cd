package driver

import (
	"context"
	"errors"
)

// SQL is the optional capability of a relational driver: transactions of
// SQL statements, for workloads that need more than key-value operations
// (workload/tpcc). The key-value DB interface stays as it is; a SQL driver
// implements both.
//
// Statements use '?' placeholders whatever the database; a driver whose
// client wants another form ($1 for PostgreSQL) rewrites them. What differs
// between databases and matters to a workload is in SQLDialect.
//
// Errors carry an errclass: a serialization failure or a deadlock is
// errclass.Conflict (a workload may retry the transaction), a lost
// connection Unavailable, a statement timeout Timeout.
type SQL interface {
	// Dialect describes the database's SQL.
	Dialect() SQLDialect
	// InTx runs fn in one transaction on one connection: it commits when fn
	// returns nil and rolls back otherwise (returning fn's error unchanged,
	// so a workload can tell its own errors, such as a user abort, apart).
	InTx(ctx context.Context, opts TxOptions, fn func(Tx) error) error
	// ExecSQL runs statements outside a transaction (DDL, checks). Several
	// statements are separate calls.
	ExecSQL(ctx context.Context, query string, args ...any) error
	// BulkInsert inserts rows (values in the order of cols) into table, in
	// one transaction, the fastest way the database has: COPY for
	// PostgreSQL, multi-row INSERT statements for MySQL and SQLite.
	BulkInsert(ctx context.Context, table string, cols []string, rows [][]any) error
}

// TxOptions are a transaction's options.
type TxOptions struct {
	// ReadOnly marks a transaction that only reads: a driver may run it on
	// a read pool (SQLite's readers) or tell the server.
	ReadOnly bool
}

// Tx is one transaction; used by one goroutine.
type Tx interface {
	// Exec runs a statement and returns the rows it affected.
	Exec(ctx context.Context, query string, args ...any) (int64, error)
	// QueryRow runs a query for one row: Scan wraps ErrNoRows when there
	// is none.
	QueryRow(ctx context.Context, query string, args ...any) Row
	// Query runs a query for many rows; Close them.
	Query(ctx context.Context, query string, args ...any) (Rows, error)
}

// Row is the result of Tx.QueryRow.
type Row interface {
	Scan(dest ...any) error
}

// Rows is the result of Tx.Query.
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close()
}

// ErrNoRows is wrapped by Row.Scan when a query returned no row.
var ErrNoRows = errors.New("no rows in result set")

// SQLDialect is what differs between databases in the SQL a workload
// writes. Everything else is kept to the SQL the three databases share.
type SQLDialect struct {
	// Name is "postgres", "mysql" or "sqlite".
	Name string
	// ForUpdate is appended to a SELECT that locks its rows (" FOR UPDATE");
	// empty where the database locks the whole database per write
	// transaction instead (SQLite).
	ForUpdate string
	// TableOptions is appended to CREATE TABLE (e.g. " ENGINE=InnoDB").
	TableOptions string
	// MaxParams is the most bind parameters one statement may hold.
	MaxParams int
}
