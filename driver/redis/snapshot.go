package redis

import (
	"context"
	"fmt"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/dbrig/dbrig/driver"
)

var _ driver.Snapshotter = (*DB)(nil)

// snapshotChunk is how many keys one pipeline copies or deletes.
const snapshotChunk = 1000

// snapshotOpTimeout bounds one pipeline of a snapshot or restore.
const snapshotOpTimeout = time.Minute

// snapshotPrefix is where image name of table lives: server-side copies
// (COPY, Redis 6.2+) of its hashes and its index under a prefix of their
// own in the same database. The workload never sees them (it finds records
// through the index) and Reset does not remove them.
func snapshotPrefix(table, name string) (string, error) {
	for _, r := range name {
		if !(r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return "", fmt.Errorf("redis: snapshot name %q: expected letters, digits, - and _", name)
		}
	}
	if name == "" {
		return "", fmt.Errorf("redis: snapshot name is empty")
	}
	return "dbrig-snapshot:" + name + ":" + table + ":", nil
}

// Snapshot copies every record of table (found through its index) and the
// index itself, on the server.
func (d *DB) Snapshot(ctx context.Context, table, name string) error {
	pre, err := snapshotPrefix(table, name)
	if err != nil {
		return err
	}
	if err := d.dropPrefix(ctx, pre); err != nil {
		return fmt.Errorf("redis snapshot %s: %w", name, err)
	}
	if err := d.copyTable(ctx, indexKey(table), pre+indexKey(table), func(k string) (string, string) {
		hk := hashKey(table, k)
		return hk, pre + hk
	}); err != nil {
		return fmt.Errorf("redis snapshot %s of %s: %w", name, table, err)
	}
	return nil
}

// Restore removes table's records and index, then copies the image back.
func (d *DB) Restore(ctx context.Context, table, name string) error {
	pre, err := snapshotPrefix(table, name)
	if err != nil {
		return err
	}
	n, err := d.c.Exists(ctx, pre+indexKey(table)).Result()
	if err != nil {
		return fmt.Errorf("redis restore %s: %w", name, classify(err))
	}
	if n == 0 {
		return fmt.Errorf("redis restore %s of %s: no such snapshot", name, table)
	}
	if err := d.clearTable(ctx, table); err != nil {
		return fmt.Errorf("redis restore %s of %s: %w", name, table, err)
	}
	if err := d.copyTable(ctx, pre+indexKey(table), indexKey(table), func(k string) (string, string) {
		hk := hashKey(table, k)
		return pre + hk, hk
	}); err != nil {
		return fmt.Errorf("redis restore %s of %s: %w", name, table, err)
	}
	return nil
}

// DropSnapshot deletes the image's keys.
func (d *DB) DropSnapshot(ctx context.Context, table, name string) error {
	pre, err := snapshotPrefix(table, name)
	if err != nil {
		return err
	}
	if err := d.dropPrefix(ctx, pre); err != nil {
		return fmt.Errorf("redis drop snapshot %s: %w", name, err)
	}
	return nil
}

// copyTable copies index fromIx to toIx and, for every key in it, the
// record pair keys gives (source, destination), replacing what is there.
func (d *DB) copyTable(ctx context.Context, fromIx, toIx string, keys func(string) (string, string)) error {
	if err := d.c.Copy(ctx, fromIx, toIx, d.db, true).Err(); err != nil {
		return classify(err)
	}
	for start := int64(0); ; start += snapshotChunk {
		cctx, cancel := context.WithTimeout(ctx, snapshotOpTimeout)
		ks, err := d.c.ZRange(cctx, fromIx, start, start+snapshotChunk-1).Result()
		if err == nil && len(ks) > 0 {
			_, err = d.c.Pipelined(cctx, func(p goredis.Pipeliner) error {
				for _, k := range ks {
					src, dst := keys(k)
					p.Copy(cctx, src, dst, d.db, true)
				}
				return nil
			})
		}
		cancel()
		if err != nil {
			return classify(err)
		}
		if len(ks) < snapshotChunk {
			return nil
		}
	}
}

// clearTable deletes every record of table and its index.
func (d *DB) clearTable(ctx context.Context, table string) error {
	ix := indexKey(table)
	for start := int64(0); ; start += snapshotChunk {
		cctx, cancel := context.WithTimeout(ctx, snapshotOpTimeout)
		ks, err := d.c.ZRange(cctx, ix, start, start+snapshotChunk-1).Result()
		if err == nil && len(ks) > 0 {
			hks := make([]string, len(ks))
			for i, k := range ks {
				hks[i] = hashKey(table, k)
			}
			err = d.c.Unlink(cctx, hks...).Err()
		}
		cancel()
		if err != nil {
			return classify(err)
		}
		if len(ks) < snapshotChunk {
			break
		}
	}
	return classify(d.c.Del(ctx, ix).Err())
}

// dropPrefix deletes every key that starts with pre.
func (d *DB) dropPrefix(ctx context.Context, pre string) error {
	iter := d.c.Scan(ctx, 0, globEscape(pre)+"*", snapshotChunk).Iterator()
	var batch []string
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		err := d.c.Unlink(ctx, batch...).Err()
		batch = batch[:0]
		return err
	}
	for iter.Next(ctx) {
		batch = append(batch, iter.Val())
		if len(batch) >= snapshotChunk {
			if err := flush(); err != nil {
				return classify(err)
			}
		}
	}
	if err := iter.Err(); err != nil {
		return classify(err)
	}
	return classify(flush())
}

// globEscape quotes the glob characters of a SCAN MATCH pattern.
func globEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`, `[`, `\[`, `]`, `\]`).Replace(s)
}
