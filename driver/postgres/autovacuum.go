package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// pg.autovacuum=off turns the benchmark table's autovacuum off through its
// storage parameter (the table's owner may; the server's autovacuum
// setting needs a superuser and a reload, which a managed service rarely
// allows). Why: the autovacuum launcher runs on its own clock (a table at
// most once per autovacuum_naptime, 1 min by default), so in short
// experiments it lands in some and not others; a rating's settle step
// vacuums between experiments instead. Measured with ratings of 100,000
// records, 2 s experiments and p95<10ms (docs/measurements/postgres-rating.md, "Two ratings that
// agree"): with the server's autovacuum on, one pair answered 30,400 and
// 25,920 ops/s (17 % apart); with it off, all four reset strategies'
// pairs agreed within 5.3 % on that host. It does not remove every swing:
// on a slower host two of four pairs still disagreed, with the table's or
// the server's autovacuum off.
//
// pg.autovacuum=on (the default) puts the table back to the server's
// setting if an earlier run turned it off. The parameter is changed only
// when it differs: ALTER TABLE takes a lock that waits for a running vacuum.
func (db *DB) setAutovacuum(ctx context.Context, table string) error {
	ctx, cancel := db.opCtx(ctx)
	defer cancel()
	var off bool
	err := db.pool.QueryRow(ctx, `SELECT coalesce('autovacuum_enabled=false' = ANY(c.reloptions), false)
		FROM pg_class c WHERE c.oid = to_regclass($1)`, pgx.Identifier{table}.Sanitize()).Scan(&off)
	if err != nil {
		return fmt.Errorf("postgres: autovacuum setting of %s: %w", table, classify(err))
	}
	if off == !db.autovacuum {
		return nil
	}
	stmt := "ALTER TABLE " + pgx.Identifier{table}.Sanitize() + " SET (autovacuum_enabled = false)"
	if db.autovacuum {
		stmt = "ALTER TABLE " + pgx.Identifier{table}.Sanitize() + " RESET (autovacuum_enabled)"
	}
	if _, err := db.pool.Exec(ctx, stmt); err != nil {
		return fmt.Errorf("postgres: pg.autovacuum: %w", classify(err))
	}
	return nil
}
