package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/sqltable"
)

var (
	_ driver.Snapshotter = (*DB)(nil)
	_ driver.KeyRestorer = (*DB)(nil)
)

// snapshotPath is image name's file, beside the database file.
func (db *DB) snapshotPath(name string) (string, error) {
	if name == "" || strings.ContainsAny(name, `/\?#'`) {
		return "", fmt.Errorf("sqlite: snapshot name %q: expected a plain name", name)
	}
	return db.path + ".snapshot-" + name, nil
}

// admin opens a connection of its own (the driver's pools are read-only
// or busy with the workload's writes) with the driver's busy timeout.
func (db *DB) admin(ctx context.Context) (*sql.Conn, func(), error) {
	q := url.Values{"_pragma": []string{"busy_timeout(10000)"}}
	h, err := sql.Open("sqlite", "file:"+db.path+"?"+q.Encode())
	if err != nil {
		return nil, nil, err
	}
	c, err := h.Conn(ctx)
	if err != nil {
		h.Close()
		return nil, nil, err
	}
	return c, func() { c.Close(); h.Close() }, nil
}

func quoteIdent(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }

func quoteString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// Snapshot copies the database file with VACUUM INTO, SQLite's own
// consistent copy of a live database.
func (db *DB) Snapshot(ctx context.Context, table, name string) error {
	dst, err := db.snapshotPath(name)
	if err != nil {
		return err
	}
	if err := os.Remove(dst); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("sqlite: snapshot %s: %w", name, err)
	}
	c, done, err := db.admin(ctx)
	if err != nil {
		return fmt.Errorf("sqlite: snapshot %s: %w", name, err)
	}
	defer done()
	if _, err := c.ExecContext(ctx, "VACUUM INTO "+quoteString(dst)); err != nil {
		return fmt.Errorf("sqlite: snapshot %s: %w", name, err)
	}
	return nil
}

// Restore puts table back from the copy: the copy is attached and the
// table's rows replaced by the copy's in one transaction.
func (db *DB) Restore(ctx context.Context, table, name string) error {
	t := quoteIdent(table)
	return db.fromSnapshot(ctx, table, name, func(c *sql.Conn) error {
		if _, err := c.ExecContext(ctx, "DELETE FROM main."+t); err != nil {
			return err
		}
		_, err := c.ExecContext(ctx, "INSERT INTO main."+t+" SELECT * FROM dbrig_snapshot."+t)
		return err
	})
}

// RestoreKeys puts back only the records keys from the copy, in one
// transaction: delete them, insert the copy's rows of them (a key the copy
// does not hold, one an experiment inserted, is just deleted).
func (db *DB) RestoreKeys(ctx context.Context, table, name string, keys []string) error {
	t, k := quoteIdent(table), quoteIdent(sqltable.KeyColumn)
	return db.fromSnapshot(ctx, table, name, func(c *sql.Conn) error {
		del, err := c.PrepareContext(ctx, "DELETE FROM main."+t+" WHERE "+k+" = ?")
		if err != nil {
			return err
		}
		defer del.Close()
		ins, err := c.PrepareContext(ctx, "INSERT INTO main."+t+" SELECT * FROM dbrig_snapshot."+t+" WHERE "+k+" = ?")
		if err != nil {
			return err
		}
		defer ins.Close()
		for _, key := range keys {
			if _, err := del.ExecContext(ctx, key); err != nil {
				return err
			}
			if _, err := ins.ExecContext(ctx, key); err != nil {
				return err
			}
		}
		return nil
	})
}

// fromSnapshot attaches the copy of name read-only and runs restore in one
// immediate transaction.
func (db *DB) fromSnapshot(ctx context.Context, table, name string, restore func(*sql.Conn) error) error {
	src, err := db.snapshotPath(name)
	if err != nil {
		return err
	}
	if _, err := os.Stat(src); err != nil {
		return fmt.Errorf("sqlite: restore snapshot %s: %w", name, err)
	}
	c, done, err := db.admin(ctx)
	if err != nil {
		return fmt.Errorf("sqlite: restore %s: %w", name, err)
	}
	defer done()
	if _, err := c.ExecContext(ctx, "ATTACH DATABASE "+quoteString("file:"+src+"?mode=ro")+" AS dbrig_snapshot"); err != nil {
		return fmt.Errorf("sqlite: restore %s: attach: %w", name, err)
	}
	defer c.ExecContext(context.WithoutCancel(ctx), "DETACH DATABASE dbrig_snapshot")
	if _, err := c.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		return fmt.Errorf("sqlite: restore %s of %s: %w", name, table, err)
	}
	if err := restore(c); err != nil {
		c.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
		return fmt.Errorf("sqlite: restore %s of %s: %w", name, table, err)
	}
	if _, err := c.ExecContext(ctx, "COMMIT"); err != nil {
		c.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
		return fmt.Errorf("sqlite: restore %s of %s: %w", name, table, err)
	}
	return nil
}

// DropSnapshot removes the copy.
func (db *DB) DropSnapshot(ctx context.Context, table, name string) error {
	p, err := db.snapshotPath(name)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("sqlite: drop snapshot %s: %w", name, err)
	}
	return nil
}
