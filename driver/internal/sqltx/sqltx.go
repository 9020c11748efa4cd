// Package sqltx implements driver.SQL over database/sql for the drivers
// that use it (mysql, sqlite): statements prepared once per pool and
// connection, transactions on the write pool (or the read pool for
// read-only ones), bulk inserts as multi-row INSERTs in one transaction.
package sqltx

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/dbrig/dbrig/driver"
)

// maxRowsPerInsert bounds the rows of one multi-row INSERT below the
// bind-parameter limit, so a statement stays well under MySQL's default
// max_allowed_packet with TPC-C's widest rows (stock, ~300 bytes).
const maxRowsPerInsert = 1000

// Std is a driver.SQL over database/sql pools.
type Std struct {
	// InsertParams bounds the bind parameters of one multi-row INSERT of
	// BulkInsert (0: the dialect's MaxParams). modernc.org/sqlite binds in
	// time quadratic in a statement's parameters: a few hundred is fastest.
	InsertParams int

	dialect       driver.SQLDialect
	reads, writes *sql.DB
	classify      func(error) error
	prepared      bool
	stmts         sync.Map // stmtKey → *sql.Stmt (nil: being prepared, or failed)
}

type stmtKey struct {
	pool  *sql.DB
	query string
}

var _ driver.SQL = (*Std)(nil)

// New returns a driver.SQL over reads and writes (the same pool where the
// database has no reason to separate them); classify attaches an errclass
// to an error of the client library. prepared prepares each statement once
// per pool and connection (a client that would otherwise prepare, execute
// and close a statement per call: MySQL); without it statements run as
// they are (an embedded engine with a one-connection write pool, where a
// statement cannot be prepared on the pool while a transaction holds it).
func New(d driver.SQLDialect, reads, writes *sql.DB, classify func(error) error, prepared bool) *Std {
	return &Std{dialect: d, reads: reads, writes: writes, classify: classify, prepared: prepared}
}

// Dialect implements driver.SQL.
func (s *Std) Dialect() driver.SQLDialect { return s.dialect }

// cached returns the statement prepared on pool for query, if it is. The
// first time a statement is asked for it is prepared in the background:
// preparing on the pool needs a connection of its own, and a transaction
// that waited for one while holding its own could wait forever once every
// connection is held by such a transaction. Until it is ready, statements
// run unprepared on the transaction's connection.
func (s *Std) cached(pool *sql.DB, query string) *sql.Stmt {
	k := stmtKey{pool, query}
	v, ok := s.stmts.Load(k)
	if ok {
		st, _ := v.(*sql.Stmt)
		return st // nil while it is being prepared, or when preparing failed
	}
	if _, loaded := s.stmts.LoadOrStore(k, (*sql.Stmt)(nil)); loaded {
		return nil
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), prepareTimeout)
		defer cancel()
		st, err := pool.PrepareContext(ctx, query)
		if err != nil {
			return // stays unprepared: it still runs, one way or another
		}
		s.stmts.Store(k, st)
	}()
	return nil
}

// prepareTimeout bounds a background prepare (waiting for a connection).
const prepareTimeout = time.Minute

// InTx implements driver.SQL.
func (s *Std) InTx(ctx context.Context, opts driver.TxOptions, fn func(driver.Tx) error) error {
	pool := s.writes
	if opts.ReadOnly {
		pool = s.reads
	}
	tx, err := pool.BeginTx(ctx, &sql.TxOptions{ReadOnly: opts.ReadOnly})
	if err != nil {
		return fmt.Errorf("begin: %w", s.classify(err))
	}
	if err := fn(&stdTx{s: s, pool: pool, tx: tx}); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", s.classify(err))
	}
	return nil
}

// ExecSQL implements driver.SQL.
func (s *Std) ExecSQL(ctx context.Context, query string, args ...any) error {
	if _, err := s.writes.ExecContext(ctx, query, args...); err != nil {
		return fmt.Errorf("%s: %w", abbrev(query), s.classify(err))
	}
	return nil
}

// BulkInsert implements driver.SQL with multi-row INSERTs in one transaction.
func (s *Std) BulkInsert(ctx context.Context, table string, cols []string, rows [][]any) error {
	if len(rows) == 0 {
		return nil
	}
	params := s.dialect.MaxParams
	if s.InsertParams > 0 {
		params = min(params, s.InsertParams)
	}
	per := max(1, min(maxRowsPerInsert, params/len(cols), len(rows)))
	return s.InTx(ctx, driver.TxOptions{}, func(t driver.Tx) error {
		tx := t.(*stdTx)
		// The full-size statement is prepared once per call where the
		// pools do not keep prepared statements (tx.Exec does otherwise).
		var full *sql.Stmt
		if !s.prepared && len(rows) >= 2*per {
			st, err := tx.tx.PrepareContext(ctx, InsertSQL(table, cols, per))
			if err != nil {
				return fmt.Errorf("insert into %s: prepare: %w", table, s.classify(err))
			}
			defer st.Close()
			full = st
		}
		args := make([]any, 0, per*len(cols))
		for start := 0; start < len(rows); start += per {
			end := min(start+per, len(rows))
			args = args[:0]
			for _, r := range rows[start:end] {
				if len(r) != len(cols) {
					return fmt.Errorf("insert into %s: a row of %d values for %d columns", table, len(r), len(cols))
				}
				args = append(args, r...)
			}
			var err error
			if full != nil && end-start == per {
				_, err = full.ExecContext(ctx, args...)
				err = s.classify(err)
			} else {
				_, err = tx.Exec(ctx, InsertSQL(table, cols, end-start), args...)
			}
			if err != nil {
				return fmt.Errorf("insert %d rows into %s: %w", end-start, table, err)
			}
		}
		return nil
	})
}

// InsertSQL is a multi-row INSERT of n rows with '?' placeholders.
func InsertSQL(table string, cols []string, n int) string {
	var b strings.Builder
	b.WriteString("INSERT INTO ")
	b.WriteString(table)
	b.WriteString(" (")
	b.WriteString(strings.Join(cols, ", "))
	b.WriteString(") VALUES ")
	row := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ") + ")"
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(row)
	}
	return b.String()
}

type stdTx struct {
	s    *Std
	pool *sql.DB
	tx   *sql.Tx
}

// conn is what runs a statement: the transaction's prepared statement, or
// the transaction itself.
type conn interface {
	ExecContext(ctx context.Context, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, args ...any) *sql.Row
	QueryContext(ctx context.Context, args ...any) (*sql.Rows, error)
}

type direct struct {
	tx    *sql.Tx
	query string
}

func (d direct) ExecContext(ctx context.Context, args ...any) (sql.Result, error) {
	return d.tx.ExecContext(ctx, d.query, args...)
}

func (d direct) QueryRowContext(ctx context.Context, args ...any) *sql.Row {
	return d.tx.QueryRowContext(ctx, d.query, args...)
}

func (d direct) QueryContext(ctx context.Context, args ...any) (*sql.Rows, error) {
	return d.tx.QueryContext(ctx, d.query, args...)
}

func (t *stdTx) txStmt(ctx context.Context, query string) (conn, error) {
	if !t.s.prepared {
		return direct{t.tx, query}, nil
	}
	st := t.s.cached(t.pool, query)
	if st == nil {
		return direct{t.tx, query}, nil
	}
	// Reuses the statement prepared on the transaction's connection
	// (or prepares it there, on the connection the transaction holds).
	return t.tx.StmtContext(ctx, st), nil
}

func (t *stdTx) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	st, err := t.txStmt(ctx, query)
	if err != nil {
		return 0, err
	}
	res, err := st.ExecContext(ctx, args...)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", abbrev(query), t.s.classify(err))
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("%s: rows affected: %w", abbrev(query), t.s.classify(err))
	}
	return n, nil
}

func (t *stdTx) QueryRow(ctx context.Context, query string, args ...any) driver.Row {
	st, err := t.txStmt(ctx, query)
	if err != nil {
		return errRow{err}
	}
	return &stdRow{r: st.QueryRowContext(ctx, args...), s: t.s, query: query}
}

func (t *stdTx) Query(ctx context.Context, query string, args ...any) (driver.Rows, error) {
	st, err := t.txStmt(ctx, query)
	if err != nil {
		return nil, err
	}
	rows, err := st.QueryContext(ctx, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", abbrev(query), t.s.classify(err))
	}
	return &stdRows{Rows: rows, s: t.s, query: query}, nil
}

type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }

type stdRow struct {
	r     *sql.Row
	s     *Std
	query string
}

func (r *stdRow) Scan(dest ...any) error {
	err := r.r.Scan(dest...)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("%s: %w", abbrev(r.query), driver.ErrNoRows)
	}
	return fmt.Errorf("%s: %w", abbrev(r.query), r.s.classify(err))
}

type stdRows struct {
	*sql.Rows
	s     *Std
	query string
}

func (r *stdRows) Scan(dest ...any) error {
	if err := r.Rows.Scan(dest...); err != nil {
		return fmt.Errorf("%s: %w", abbrev(r.query), r.s.classify(err))
	}
	return nil
}

func (r *stdRows) Err() error {
	if err := r.Rows.Err(); err != nil {
		return fmt.Errorf("%s: %w", abbrev(r.query), r.s.classify(err))
	}
	return nil
}

func (r *stdRows) Close() { _ = r.Rows.Close() }

// abbrev shortens a statement for an error message.
func abbrev(q string) string {
	q = strings.Join(strings.Fields(q), " ")
	if len(q) > 80 {
		return q[:77] + "..."
	}
	return q
}
