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

// Settle vacuums and analyzes table, then asks for a checkpoint when the
// role may (superuser or pg_checkpoint; else the server's own schedule
// stands). After a load or a restore every row is new: the first
// experiment's reads would set the hint bits and dirty the pages, and
// autovacuum (its threshold is crossed by the load) would start inside a
// step; VACUUM does both now and sets the visibility map. Each experiment
// then starts from the same state.
func (db *DB) Settle(ctx context.Context, table string) error {
	if _, err := db.table(ctx, table); err != nil {
		return err
	}
	// Without pg.timeout: a vacuum of a large table takes long.
	if _, err := db.pool.Exec(ctx, "VACUUM (ANALYZE) "+pgx.Identifier{table}.Sanitize()); err != nil {
		return fmt.Errorf("postgres settle: vacuum %s: %w", table, classify(err))
	}
	if _, err := db.pool.Exec(ctx, "CHECKPOINT"); err != nil && !insufficientPrivilege(err) {
		return fmt.Errorf("postgres settle: checkpoint: %w", classify(err))
	}
	return nil
}

func insufficientPrivilege(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "42501"
}
