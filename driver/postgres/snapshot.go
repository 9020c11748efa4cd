package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/sqltable"
)

var _ driver.Snapshotter = (*DB)(nil)

// snapshotTable names image name of table: an unlogged copy in the same
// database and schema. (CREATE DATABASE … TEMPLATE would copy the whole
// database faster, but needs the CREATEDB privilege and no other session on
// the source database, which a shared server rarely allows.)
func snapshotTable(table, name string) (string, error) {
	for _, r := range name {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9') {
			return "", fmt.Errorf("postgres: snapshot name %q: expected lower-case letters, digits and _", name)
		}
	}
	s := "dbrig_snap_" + name + "_" + table
	if len(s) > 63 { // PostgreSQL would cut the name itself, silently
		return "", fmt.Errorf("postgres: snapshot %q of table %q: the copy's name %q is longer than 63 bytes", name, table, s)
	}
	return s, nil
}

// Snapshot copies table into an unlogged table on the server.
func (db *DB) Snapshot(ctx context.Context, table, name string) error {
	snap, err := snapshotTable(table, name)
	if err != nil {
		return err
	}
	if _, err := db.table(ctx, table); err != nil {
		return err
	}
	src, dst := pgx.Identifier{table}.Sanitize(), pgx.Identifier{snap}.Sanitize()
	return db.inTx(ctx, "snapshot "+name,
		"DROP TABLE IF EXISTS "+dst,
		"CREATE UNLOGGED TABLE "+dst+" AS TABLE "+src)
}

// Restore replaces table's rows with the copy's, in one transaction.
func (db *DB) Restore(ctx context.Context, table, name string) error {
	snap, err := snapshotTable(table, name)
	if err != nil {
		return err
	}
	if _, err := db.table(ctx, table); err != nil {
		return err
	}
	src, dst := pgx.Identifier{snap}.Sanitize(), pgx.Identifier{table}.Sanitize()
	if err := db.inTx(ctx, "restore "+name, "TRUNCATE "+dst, "INSERT INTO "+dst+" SELECT * FROM "+src); err != nil {
		return err
	}
	// Fresh statistics, as after a load, so plans do not change between
	// experiments.
	if _, err := db.pool.Exec(ctx, "ANALYZE "+dst); err != nil {
		return fmt.Errorf("postgres restore %s: %w", name, classify(err))
	}
	return nil
}

// DropSnapshot drops the copy.
func (db *DB) DropSnapshot(ctx context.Context, table, name string) error {
	snap, err := snapshotTable(table, name)
	if err != nil {
		return err
	}
	return db.inTx(ctx, "drop snapshot "+name, "DROP TABLE IF EXISTS "+pgx.Identifier{snap}.Sanitize())
}

// inTx runs statements in one transaction, without the per-operation
// timeout (a copy of a large table takes long).
func (db *DB) inTx(ctx context.Context, what string, stmts ...string) error {
	tx, err := db.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("postgres %s: %w", what, classify(err))
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	for _, s := range stmts {
		if _, err := tx.Exec(ctx, s); err != nil {
			return fmt.Errorf("postgres %s: %w", what, classify(err))
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("postgres %s: %w", what, classify(err))
	}
	return nil
}

var _ driver.KeyRestorer = (*DB)(nil)

// RestoreKeys puts back only the records keys from the copy, in one
// transaction: delete them, insert the copy's rows of them.
func (db *DB) RestoreKeys(ctx context.Context, table, name string, keys []string) error {
	snap, err := snapshotTable(table, name)
	if err != nil {
		return err
	}
	if _, err := db.table(ctx, table); err != nil {
		return err
	}
	src, dst := pgx.Identifier{snap}.Sanitize(), pgx.Identifier{table}.Sanitize()
	tx, err := db.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("postgres restore keys of %s: %w", name, classify(err))
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	const chunk = 10000
	for len(keys) > 0 {
		n := min(chunk, len(keys))
		part := keys[:n]
		keys = keys[n:]
		if _, err := tx.Exec(ctx, "DELETE FROM "+dst+" WHERE "+sqltable.KeyColumn+" = ANY($1)", part); err != nil {
			return fmt.Errorf("postgres restore keys of %s: %w", name, classify(err))
		}
		if _, err := tx.Exec(ctx, "INSERT INTO "+dst+" SELECT * FROM "+src+" WHERE "+sqltable.KeyColumn+" = ANY($1)", part); err != nil {
			return fmt.Errorf("postgres restore keys of %s: %w", name, classify(err))
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("postgres restore keys of %s: %w", name, classify(err))
	}
	return nil
}
