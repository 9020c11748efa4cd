package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/dbrig/dbrig/driver"
)

var _ driver.Conditioner = (*DB)(nil)

// Condition measures what PostgreSQL's capacity for table follows besides
// its rows: the heap's and the indexes' size (bloat: more pages to read and
// cache for the same rows), the live and dead tuples and the dead share
// (versions every scan steps over until a vacuum) and the changes since
// the last analyze (the planner's statistics). The tuple counts are the
// statistics system's (pg_stat_user_tables): exact right after a vacuum
// (Settle), estimates that lag the backends' writes otherwise.
func (db *DB) Condition(ctx context.Context, table string) (driver.Condition, error) {
	if _, err := db.table(ctx, table); err != nil {
		return nil, err
	}
	ctx, cancel := db.opCtx(ctx)
	defer cancel()
	var heap, index float64
	var live, dead, mods *float64
	err := db.pool.QueryRow(ctx, `SELECT pg_table_size(c.oid), pg_indexes_size(c.oid),
			s.n_live_tup, s.n_dead_tup, s.n_mod_since_analyze
		FROM pg_class c LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid
		WHERE c.oid = $1::regclass`, pgx.Identifier{table}.Sanitize()).Scan(&heap, &index, &live, &dead, &mods)
	if err != nil {
		return nil, fmt.Errorf("postgres: condition of %s: %w", table, classify(err))
	}
	c := driver.Condition{
		{Name: "table_bytes", Value: heap, Unit: "bytes"},
		{Name: "index_bytes", Value: index, Unit: "bytes"},
	}
	if live != nil && dead != nil {
		share := 0.0
		if *live+*dead > 0 {
			share = *dead / (*live + *dead)
		}
		c = append(c, driver.Figure{Name: "live_rows", Value: *live, Unit: "rows"},
			driver.Figure{Name: "dead_rows", Value: *dead, Unit: "rows"},
			driver.Figure{Name: "dead_share", Value: share, Unit: driver.UnitShare})
	}
	if mods != nil {
		c = append(c, driver.Figure{Name: "modified_since_analyze", Value: *mods, Unit: "rows"})
	}
	return c, nil
}
