package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"

	"github.com/dbrig/dbrig/driver"
)

var _ driver.SQL = (*DB)(nil)

var pgDialect = driver.SQLDialect{Name: "postgres", ForUpdate: " FOR UPDATE", MaxParams: 65535}

// Dialect implements driver.SQL.
func (db *DB) Dialect() driver.SQLDialect { return pgDialect }

// InTx implements driver.SQL on one pooled connection, at the server's
// default isolation (READ COMMITTED unless configured otherwise); a
// serialization failure (40001), deadlock (40P01) or lock not available
// (55P03) is errclass.Conflict. Statements go through pgx's per-connection
// statement cache (prepared once per connection).
func (db *DB) InTx(ctx context.Context, opts driver.TxOptions, fn func(driver.Tx) error) error {
	txo := pgx.TxOptions{}
	if opts.ReadOnly {
		txo.AccessMode = pgx.ReadOnly
	}
	tx, err := db.pool.BeginTx(ctx, txo)
	if err != nil {
		return fmt.Errorf("postgres begin: %w", classify(err))
	}
	if err := fn(&pgTx{tx: tx, q: &db.sqlq}); err != nil {
		_ = tx.Rollback(context.WithoutCancel(ctx))
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("postgres commit: %w", classify(err))
	}
	return nil
}

// ExecSQL implements driver.SQL.
func (db *DB) ExecSQL(ctx context.Context, query string, args ...any) error {
	if _, err := db.pool.Exec(ctx, db.sqlq.dollar(query), args...); err != nil {
		return fmt.Errorf("postgres %s: %w", abbrev(query), classify(err))
	}
	return nil
}

// BulkInsert implements driver.SQL with one COPY FROM STDIN, in its own
// transaction (COPY is one statement).
func (db *DB) BulkInsert(ctx context.Context, table string, cols []string, rows [][]any) error {
	if len(rows) == 0 {
		return nil
	}
	if _, err := db.pool.CopyFrom(ctx, pgx.Identifier{table}, cols, pgx.CopyFromRows(rows)); err != nil {
		return fmt.Errorf("postgres copy into %s (%d rows): %w", table, len(rows), classify(err))
	}
	return nil
}

// queries caches the $n form of '?' statements.
type queries struct{ m sync.Map }

// dollar rewrites '?' placeholders as $1, $2, … (statements here hold no
// '?' inside string literals).
func (q *queries) dollar(query string) string {
	if v, ok := q.m.Load(query); ok {
		return v.(string)
	}
	var b strings.Builder
	n := 0
	for i := 0; i < len(query); i++ {
		if query[i] == '?' {
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteByte(query[i])
	}
	out := b.String()
	q.m.Store(query, out)
	return out
}

type pgTx struct {
	tx pgx.Tx
	q  *queries
}

func (t *pgTx) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	tag, err := t.tx.Exec(ctx, t.q.dollar(query), args...)
	if err != nil {
		return 0, fmt.Errorf("postgres %s: %w", abbrev(query), classify(err))
	}
	return tag.RowsAffected(), nil
}

func (t *pgTx) QueryRow(ctx context.Context, query string, args ...any) driver.Row {
	return pgRow{r: t.tx.QueryRow(ctx, t.q.dollar(query), args...), query: query}
}

func (t *pgTx) Query(ctx context.Context, query string, args ...any) (driver.Rows, error) {
	rows, err := t.tx.Query(ctx, t.q.dollar(query), args...)
	if err != nil {
		return nil, fmt.Errorf("postgres %s: %w", abbrev(query), classify(err))
	}
	return pgRows{Rows: rows, query: query}, nil
}

type pgRow struct {
	r     pgx.Row
	query string
}

func (r pgRow) Scan(dest ...any) error {
	err := r.r.Scan(dest...)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, pgx.ErrNoRows):
		return fmt.Errorf("postgres %s: %w", abbrev(r.query), driver.ErrNoRows)
	}
	return fmt.Errorf("postgres %s: %w", abbrev(r.query), classify(err))
}

type pgRows struct {
	pgx.Rows
	query string
}

func (r pgRows) Scan(dest ...any) error {
	if err := r.Rows.Scan(dest...); err != nil {
		return fmt.Errorf("postgres %s: %w", abbrev(r.query), classify(err))
	}
	return nil
}

func (r pgRows) Err() error {
	if err := r.Rows.Err(); err != nil {
		return fmt.Errorf("postgres %s: %w", abbrev(r.query), classify(err))
	}
	return nil
}

// abbrev shortens a statement for an error message.
func abbrev(q string) string {
	q = strings.Join(strings.Fields(q), " ")
	if len(q) > 80 {
		return q[:77] + "..."
	}
	return q
}
