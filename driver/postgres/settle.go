package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/dbrig/dbrig/driver"
)

var _ driver.Settler = (*DB)(nil)

// settleBloat is how much larger than its live rows need a table may stay
// after a vacuum before Settle rewrites it.
const settleBloat = 0.10

// Settle vacuums and analyzes table, rewrites it compactly (VACUUM FULL)
// when the vacuum leaves it more than settleBloat larger than its live rows
// need (else rebuilds its indexes, as the rewrite would), then asks for a
// checkpoint when the role may (superuser or pg_checkpoint; else the
// server's own schedule stands).
//
// Why the index rebuild: without it the primary key's index after a load
// (keys inserted in hash order, pages split half full) was 1.1 MB for
// 20,000 records and 0.8 MB after a rewrite, so the settled stores of one
// rating differed by 23 % in index size depending on whether the bloat
// bound was crossed (Condition, issue 32). A rebuild costs a sort of the
// keys: well under a second per million.
//
// After a load or a restore every row is new: the first experiment's reads
// would set the hint bits and dirty the pages, and autovacuum (its
// threshold is crossed by the load) would start inside a step. A plain
// VACUUM fixes that but leaves the table as large as the experiments before
// made it (dead versions' space is reused, not returned): measured here
// (100,000 records, p95<10ms, two ratings with keep) 19,440 and 14,400
// ops/s with a plain VACUUM every time. The rewrite gives every experiment
// the same table, but costs about 5 s per GB whatever changed (1 M records
// of 1 KB: VACUUM FULL 5.5 s, a VACUUM of the loaded table 0.8 s), so it
// runs only when the table has grown by more than the bound.
func (db *DB) Settle(ctx context.Context, table string) error {
	if _, err := db.table(ctx, table); err != nil {
		return err
	}
	name := pgx.Identifier{table}.Sanitize()
	// Without pg.timeout: a vacuum of a large table takes long.
	if _, err := db.pool.Exec(ctx, "VACUUM (ANALYZE) "+name); err != nil {
		return fmt.Errorf("postgres settle: vacuum %s: %w", table, classify(err))
	}
	bloat, err := db.bloat(ctx, table)
	if err != nil {
		return fmt.Errorf("postgres settle: %w", err)
	}
	if bloat > settleBloat {
		if _, err := db.pool.Exec(ctx, "VACUUM (FULL, ANALYZE) "+name); err != nil {
			return fmt.Errorf("postgres settle: vacuum full %s: %w", table, classify(err))
		}
	} else if _, err := db.pool.Exec(ctx, "REINDEX TABLE "+name); err != nil {
		// The indexes as a rewrite leaves them: a load's (keys in hash
		// order) and an experiment's page splits leave them larger.
		return fmt.Errorf("postgres settle: reindex %s: %w", table, classify(err))
	}
	if _, err := db.pool.Exec(ctx, "CHECKPOINT"); err != nil && !insufficientPrivilege(err) {
		return fmt.Errorf("postgres settle: checkpoint: %w", classify(err))
	}
	return nil
}

// bloat estimates, after a VACUUM (which counts pages and live rows), how
// much larger the table's heap is than its live rows need: pages ÷ (rows ÷
// rows per full page) − 1. The row size is measured on up to 10,000 live
// rows with the same header and line-pointer overhead as on disk; on a
// freshly loaded YCSB table of 1 M 1 KB rows this gives exactly its
// 142,858 pages (7 rows per page).
func (db *DB) bloat(ctx context.Context, table string) (float64, error) {
	var pages, rows float64
	if err := db.pool.QueryRow(ctx, "SELECT relpages, reltuples FROM pg_class WHERE oid = $1::regclass", pgx.Identifier{table}.Sanitize()).Scan(&pages, &rows); err != nil {
		return 0, fmt.Errorf("size of %s: %w", table, classify(err))
	}
	if rows <= 0 || pages <= 1 {
		return 0, nil
	}
	var size *float64
	q := "SELECT avg(pg_column_size(t.*)) FROM (SELECT * FROM " + pgx.Identifier{table}.Sanitize() + " LIMIT 10000) t"
	if err := db.pool.QueryRow(ctx, q).Scan(&size); err != nil {
		return 0, fmt.Errorf("row size of %s: %w", table, classify(err))
	}
	if size == nil {
		return 0, nil
	}
	const page, pageHeader, linePointer = 8192, 24, 4
	tuple := float64((int64(*size)+7)&^7) + linePointer // MAXALIGN, as on disk
	perPage := float64(int64((page - pageHeader) / tuple))
	if perPage < 1 { // rows larger than a page live in TOAST: no estimate
		return 0, nil
	}
	need := rows / perPage
	return pages/need - 1, nil
}

func insufficientPrivilege(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "42501"
}
