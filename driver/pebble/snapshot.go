package pebble

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/cockroachdb/pebble"

	"github.com/dbrig/dbrig/driver"
)

var _ driver.Snapshotter = (*DB)(nil)

// snapshotDir is where image name of the data directory is kept: beside
// it, so it survives the DB and is on the same file system (hard links).
func (d *DB) snapshotDir(name string) (string, error) {
	if name == "" || strings.ContainsAny(name, `/\`) || name == "." || name == ".." {
		return "", fmt.Errorf("pebble: snapshot name %q: expected a plain name", name)
	}
	return filepath.Clean(d.dir) + ".snapshot-" + name, nil
}

// Snapshot takes a Pebble checkpoint of the whole database (every table:
// a Pebble directory is one key space) beside the data directory.
func (d *DB) Snapshot(ctx context.Context, table, name string) error {
	dst, err := d.snapshotDir(name)
	if err != nil {
		return err
	}
	if err := d.begin(ctx, table); err != nil {
		return err
	}
	defer d.end()
	if err := os.RemoveAll(dst); err != nil {
		return fmt.Errorf("pebble: snapshot %s: %w", name, err)
	}
	if err := d.db.Checkpoint(dst, pebble.WithFlushedWAL()); err != nil {
		return fmt.Errorf("pebble: checkpoint %s: %w", dst, err)
	}
	return nil
}

// Restore closes the database, replaces the data directory with a copy of
// the checkpoint (table files hard-linked: they are immutable) and opens it
// again. No operation may run meanwhile.
func (d *DB) Restore(ctx context.Context, table, name string) error {
	src, err := d.snapshotDir(name)
	if err != nil {
		return err
	}
	if _, err := os.Stat(src); err != nil {
		return fmt.Errorf("pebble: restore snapshot %s: %w", name, err)
	}
	d.live.Lock()
	defer d.live.Unlock()
	if d.closed {
		return errClosed
	}
	if err := d.db.Close(); err != nil {
		return fmt.Errorf("pebble: restore %s: close: %w", name, err)
	}
	d.closed = true // until it is open again
	if err := os.RemoveAll(d.dir); err != nil {
		return fmt.Errorf("pebble: restore %s: %w", name, err)
	}
	if err := copyTree(src, d.dir); err != nil {
		return fmt.Errorf("pebble: restore %s: %w", name, err)
	}
	pdb, err := pebble.Open(d.dir, &pebble.Options{Logger: quietLogger{}})
	if err != nil {
		return fmt.Errorf("pebble: restore %s: open: %w", name, err)
	}
	d.db, d.closed = pdb, false
	return nil
}

// DropSnapshot removes the checkpoint.
func (d *DB) DropSnapshot(ctx context.Context, table, name string) error {
	dir, err := d.snapshotDir(name)
	if err != nil {
		return err
	}
	return os.RemoveAll(dir)
}

// copyTree copies directory src to dst: .sst files as hard links (Pebble
// never changes one), everything else (MANIFEST, WAL, OPTIONS) as copies.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, e os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		if e.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		if strings.HasSuffix(path, ".sst") && os.Link(path, to) == nil {
			return nil
		}
		return copyFile(path, to)
	})
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
