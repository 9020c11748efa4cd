package pebble

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/cockroachdb/pebble"

	"github.com/dbrig/dbrig/driver"
)

var _ driver.KeyRestorer = (*DB)(nil)

// RestoreKeys opens the checkpoint read-only beside the database and writes
// back only keys, in one batch: each key's value in the image, or its
// deletion when the image has none.
func (d *DB) RestoreKeys(ctx context.Context, table, name string, keys []string) error {
	src, err := d.snapshotDir(name)
	if err != nil {
		return err
	}
	if _, err := os.Stat(src); err != nil {
		return fmt.Errorf("pebble: restore keys of snapshot %s: %w", name, err)
	}
	snap, err := pebble.Open(src, &pebble.Options{ReadOnly: true, Logger: quietLogger{}})
	if err != nil {
		return fmt.Errorf("pebble: restore keys of %s: open: %w", name, err)
	}
	defer snap.Close()
	if err := d.begin(ctx, table); err != nil {
		return err
	}
	defer d.end()
	b := d.db.NewBatch()
	defer b.Close()
	for _, key := range keys {
		k := dbKey(table, key)
		v, closer, err := snap.Get(k)
		switch {
		case errors.Is(err, pebble.ErrNotFound):
			err = b.Delete(k, nil)
		case err != nil:
			return fmt.Errorf("pebble: restore keys of %s: %w", name, err)
		default:
			err = b.Set(k, v, nil)
			closer.Close()
		}
		if err != nil {
			return fmt.Errorf("pebble: restore keys of %s: %w", name, err)
		}
	}
	if err := b.Commit(d.wo); err != nil {
		return fmt.Errorf("pebble: restore keys of %s: %w", name, err)
	}
	return nil
}
