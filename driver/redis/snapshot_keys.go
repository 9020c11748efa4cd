package redis

import (
	"context"
	"fmt"

	goredis "github.com/redis/go-redis/v9"

	"github.com/dbrig/dbrig/driver"
)

var _ driver.KeyRestorer = (*DB)(nil)

// RestoreKeys puts back only keys from image name: a key in the image gets
// its hash (COPY … REPLACE) and its index entry back, another is deleted
// with its index entry. Pipelines of snapshotChunk keys.
func (d *DB) RestoreKeys(ctx context.Context, table, name string, keys []string) error {
	pre, err := snapshotPrefix(table, name)
	if err != nil {
		return err
	}
	for len(keys) > 0 {
		n := min(len(keys), snapshotChunk)
		part := keys[:n]
		keys = keys[n:]
		cctx, cancel := context.WithTimeout(ctx, snapshotOpTimeout)
		exists := make([]*goredis.IntCmd, n)
		_, err := d.c.Pipelined(cctx, func(p goredis.Pipeliner) error {
			for i, k := range part {
				exists[i] = p.Exists(cctx, pre+hashKey(table, k))
			}
			return nil
		})
		if err == nil {
			_, err = d.c.Pipelined(cctx, func(p goredis.Pipeliner) error {
				for i, k := range part {
					hk := hashKey(table, k)
					if exists[i].Val() > 0 {
						p.Copy(cctx, pre+hk, hk, d.db, true)
						p.ZAdd(cctx, indexKey(table), goredis.Z{Member: k})
					} else {
						p.Del(cctx, hk)
						p.ZRem(cctx, indexKey(table), k)
					}
				}
				return nil
			})
		}
		cancel()
		if err != nil {
			return fmt.Errorf("redis restore keys of %s: %w", name, classify(err))
		}
	}
	return nil
}
