package etcd

import (
	"context"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/dbrig/dbrig/driver"
)

var (
	_ driver.Snapshotter = (*DB)(nil)
	_ driver.KeyRestorer = (*DB)(nil)
)

// An image of a table is a server-side copy of its keys under
// "dbrig-snapshot/<name>/<etcd.prefix><table>/", outside etcd.prefix so a
// Reset (a reload) does not delete it. Copies go in Txns of up to
// etcd.batchsize puts (and maxTxnBytes), pages of snapshotPage keys.
// (etcd's own `snapshot save`/`restore` works on a whole stopped member's
// data directory; a rating's data is one prefix of a running cluster.)

const snapshotPage = 1000

func (db *DB) snapPrefix(table, name string) string {
	return "dbrig-snapshot/" + name + "/" + db.prefix + table + "/"
}

// copyPrefix copies every key under from to the same key under to.
func (db *DB) copyPrefix(ctx context.Context, what, from, to string) error {
	end := clientv3.GetPrefixRangeEnd(from)
	start := from
	for {
		cctx, cancel := db.op(ctx)
		resp, err := db.cli.Get(cctx, start, clientv3.WithRange(end), clientv3.WithLimit(snapshotPage),
			clientv3.WithSort(clientv3.SortByKey, clientv3.SortAscend))
		cancel()
		if err != nil {
			return db.classify(fmt.Errorf("etcd %s (read %s): %w", what, from, err))
		}
		var ops []clientv3.Op
		size := 0
		for _, kv := range resp.Kvs {
			k := to + string(kv.Key[len(from):])
			if len(ops) == db.batchSize || (len(ops) > 0 && size+len(k)+len(kv.Value) > maxTxnBytes) {
				if err := db.commit(ctx, what, ops); err != nil {
					return err
				}
				ops, size = ops[:0], 0
			}
			ops = append(ops, clientv3.OpPut(k, string(kv.Value)))
			size += len(k) + len(kv.Value)
		}
		if err := db.commit(ctx, what, ops); err != nil {
			return err
		}
		if !resp.More || len(resp.Kvs) == 0 {
			return nil
		}
		start = string(resp.Kvs[len(resp.Kvs)-1].Key) + "\x00"
	}
}

func (db *DB) commit(ctx context.Context, what string, ops []clientv3.Op) error {
	if len(ops) == 0 {
		return nil
	}
	cctx, cancel := db.op(ctx)
	defer cancel()
	if _, err := db.cli.Txn(cctx).Then(ops...).Commit(); err != nil {
		return db.classify(fmt.Errorf("etcd %s: %w", what, err))
	}
	return nil
}

func (db *DB) deletePrefix(ctx context.Context, what, prefix string) error {
	cctx, cancel := db.op(ctx)
	defer cancel()
	if _, err := db.cli.Delete(cctx, prefix, clientv3.WithPrefix()); err != nil {
		return db.classify(fmt.Errorf("etcd %s (delete %s): %w", what, prefix, err))
	}
	return nil
}

// Snapshot copies table's keys to image name, replacing an earlier one.
func (db *DB) Snapshot(ctx context.Context, table, name string) error {
	snap := db.snapPrefix(table, name)
	if err := db.deletePrefix(ctx, "snapshot "+name, snap); err != nil {
		return err
	}
	return db.copyPrefix(ctx, "snapshot "+name, db.prefix+table+"/", snap)
}

// Restore deletes table's keys and copies the image back.
func (db *DB) Restore(ctx context.Context, table, name string) error {
	if err := db.deletePrefix(ctx, "restore "+name, db.prefix+table+"/"); err != nil {
		return err
	}
	return db.copyPrefix(ctx, "restore "+name, db.snapPrefix(table, name), db.prefix+table+"/")
}

// RestoreKeys puts back only keys: the image's value, or no key.
func (db *DB) RestoreKeys(ctx context.Context, table, name string, keys []string) error {
	snap := db.snapPrefix(table, name)
	what := "restore keys of " + name
	for len(keys) > 0 {
		n := min(len(keys), db.batchSize)
		part := keys[:n]
		keys = keys[n:]
		gets := make([]clientv3.Op, n)
		for i, k := range part {
			gets[i] = clientv3.OpGet(snap + k)
		}
		cctx, cancel := db.op(ctx)
		resp, err := db.cli.Txn(cctx).Then(gets...).Commit()
		cancel()
		if err != nil {
			return db.classify(fmt.Errorf("etcd %s: %w", what, err))
		}
		var ops []clientv3.Op
		size := 0
		for i, r := range resp.Responses {
			k := db.key(table, part[i])
			op := clientv3.OpDelete(k)
			if kvs := r.GetResponseRange().Kvs; len(kvs) > 0 {
				op = clientv3.OpPut(k, string(kvs[0].Value))
				size += len(kvs[0].Value)
			}
			if len(ops) > 0 && size+len(k) > maxTxnBytes {
				if err := db.commit(ctx, what, ops); err != nil {
					return err
				}
				ops, size = ops[:0], 0
			}
			ops = append(ops, op)
			size += len(k)
		}
		if err := db.commit(ctx, what, ops); err != nil {
			return err
		}
	}
	return nil
}

// DropSnapshot deletes image name.
func (db *DB) DropSnapshot(ctx context.Context, table, name string) error {
	return db.deletePrefix(ctx, "drop snapshot "+name, db.snapPrefix(table, name))
}
