// Package etcd benchmarks an etcd cluster through its official v3 Go client
// (go.etcd.io/etcd/client/v3).
//
// Layout: one key per record, "<prefix><table>/<key>", whose value holds all
// fields in the compact length-prefixed encoding of driver/internal/fieldcodec.
// Scan is a range read from "<prefix><table>/<startKey>" to the end of the
// table's prefix with a limit, so it returns records in key order.
//
// Update is a read-modify-write guarded by the record's mod revision: a
// linearizable Get, the fields merged in, then a Txn that puts the merged
// value only if the mod revision is unchanged. Cost: two round trips, a
// ReadIndex quorum check and one Raft commit (a plain Put would cost one
// round trip and the commit, but could lose a concurrent update); a
// concurrent writer of the same key makes the Txn fail, which is reported as
// a conflict (errclass.Conflict), not retried, so a run counts it.
// Insert is a plain Put (it overwrites, as YCSB's inserts do). InsertBatch
// puts up to etcd.batchsize records per Txn (etcd's --max-txn-ops is 128 by
// default) and keeps each Txn under 1 MiB (--max-request-bytes is 1.5 MiB).
//
// The client balances requests round-robin over all endpoints, so every
// member serves some of them; reads are linearizable unless
// etcd.consistency=serializable.
//
// Properties:
//
//	etcd.endpoints     comma-separated host:port list (default 127.0.0.1:2379)
//	etcd.prefix        key prefix of all benchmark data, never empty (default "dbrig/");
//	                   Reset deletes everything under it
//	etcd.timeout       per-operation timeout (default 5s)
//	etcd.dialtimeout   connection timeout, also for Open's check (default 5s)
//	etcd.batchsize     records per Txn in InsertBatch, 1..10000 (default 128)
//	etcd.consistency   linearizable (default) or serializable reads and scans
//	etcd.username, etcd.password   credentials when auth is enabled
//
// Example:
//
//	dbrig run -P workloads/workloada --driver etcd \
//	    -p etcd.endpoints=127.0.0.1:12379,127.0.0.1:22379,127.0.0.1:32379
package etcd

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/internal/drvkit"
	"github.com/dbrig/dbrig/driver/internal/fieldcodec"
	"github.com/dbrig/dbrig/errclass"
)

// maxTxnBytes keeps a batch Txn below etcd's default 1.5 MiB request limit,
// with room for keys and framing.
const maxTxnBytes = 1 << 20

// DB is an etcd cluster seen through one client. Safe for concurrent use.
type DB struct {
	cli         *clientv3.Client
	endpoints   []string
	prefix      string
	timeout     time.Duration
	batchSize   int
	readOpts    []clientv3.OpOption // consistency of Read
	scanOpts    []clientv3.OpOption // consistency of Scan (range and limit added per call)
	dialTimeout time.Duration

	beforeCommit func() // test hook: runs between Update's read and its Txn
}

var (
	_ driver.DB            = (*DB)(nil)
	_ driver.BatchInserter = (*DB)(nil)
	_ driver.Resetter      = (*DB)(nil)
	_ driver.Versioner     = (*DB)(nil)
	_ driver.Describer     = (*DB)(nil)
)

// Open reads the etcd.* properties, connects, and checks that at least one
// member answers (so a wrong address fails here, not in the first operation).
func Open(ctx context.Context, cfg driver.Config) (driver.DB, error) {
	return open(ctx, cfg)
}

func open(ctx context.Context, cfg driver.Config) (*DB, error) {
	p := cfg.Props
	eps, err := drvkit.Endpoints(p, "etcd.endpoints", "127.0.0.1:2379")
	if err != nil {
		return nil, err
	}
	db := &DB{endpoints: eps, prefix: p.String("etcd.prefix", "dbrig/")}
	if db.prefix == "" {
		return nil, p.Errorf("etcd.prefix", "a non-empty key prefix (Reset deletes everything under it)")
	}
	if db.timeout, err = drvkit.Positive(p, "etcd.timeout", 5*time.Second); err != nil {
		return nil, err
	}
	if db.dialTimeout, err = drvkit.Positive(p, "etcd.dialtimeout", 5*time.Second); err != nil {
		return nil, err
	}
	bs, err := p.IntMin("etcd.batchsize", 128, 1)
	if err != nil {
		return nil, err
	}
	if bs > 10000 {
		return nil, p.Errorf("etcd.batchsize", "an integer from 1 to 10000")
	}
	db.batchSize = int(bs)
	consistency, err := p.Choice("etcd.consistency", "linearizable", "serializable")
	if err != nil {
		return nil, err
	}
	if consistency == "serializable" {
		db.readOpts = []clientv3.OpOption{clientv3.WithSerializable()}
		db.scanOpts = []clientv3.OpOption{clientv3.WithSerializable()}
	}
	user, pass := p.String("etcd.username", ""), p.String("etcd.password", "")

	cli, err := clientv3.New(clientv3.Config{
		Endpoints:   eps,
		DialTimeout: db.dialTimeout,
		// Keepalive finds half-dead connections; its timeout stays well
		// above injected latencies, which must surface as timeouts.
		DialKeepAliveTime:    10 * time.Second,
		DialKeepAliveTimeout: 10 * time.Second,
		Username:             user,
		Password:             pass,
		// The client's retry warnings would flood a run's output during
		// faults; errors reach the run through return values instead.
		Logger: zap.NewNop(),
		// gRPC's default reconnect backoff grows to 120 s; a benchmark
		// wants to see a recovered server within about a second.
		DialOptions: []grpc.DialOption{grpc.WithConnectParams(grpc.ConnectParams{
			Backoff:           backoff.Config{BaseDelay: 100 * time.Millisecond, Multiplier: 1.6, Jitter: 0.2, MaxDelay: time.Second},
			MinConnectTimeout: db.dialTimeout,
		})},
	})
	if err != nil {
		return nil, fmt.Errorf("etcd: connecting to %s: %w", strings.Join(eps, ","), err)
	}
	db.cli = cli
	cctx, cancel := context.WithTimeout(ctx, db.dialTimeout)
	defer cancel()
	if _, err := db.ServerVersion(cctx); err != nil {
		cli.Close()
		return nil, err
	}
	return db, nil
}

func (db *DB) key(table, key string) string { return db.prefix + table + "/" + key }

func (db *DB) op(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, db.timeout)
}

// Read returns the named fields of one record.
func (db *DB) Read(ctx context.Context, table, key string, fields []string) (driver.Record, error) {
	ctx, cancel := db.op(ctx)
	defer cancel()
	resp, err := db.cli.Get(ctx, db.key(table, key), db.readOpts...)
	if err != nil {
		return nil, db.classify(fmt.Errorf("etcd read %s/%s: %w", table, key, err))
	}
	if len(resp.Kvs) == 0 {
		return nil, fmt.Errorf("etcd read %s/%s: %w", table, key, errclass.ErrNotFound)
	}
	rec, err := fieldcodec.Decode(resp.Kvs[0].Value, fields)
	if err != nil {
		return nil, fmt.Errorf("etcd read %s/%s: %w", table, key, err)
	}
	return rec, nil
}

// Scan returns up to n records of table in key order from startKey on.
func (db *DB) Scan(ctx context.Context, table, startKey string, n int, fields []string) ([]driver.Record, error) {
	if n <= 0 {
		return nil, nil
	}
	ctx, cancel := db.op(ctx)
	defer cancel()
	end := clientv3.GetPrefixRangeEnd(db.prefix + table + "/")
	opts := append([]clientv3.OpOption{clientv3.WithRange(end), clientv3.WithLimit(int64(n))}, db.scanOpts...)
	resp, err := db.cli.Get(ctx, db.key(table, startKey), opts...)
	if err != nil {
		return nil, db.classify(fmt.Errorf("etcd scan %s from %s: %w", table, startKey, err))
	}
	recs := make([]driver.Record, 0, len(resp.Kvs))
	for _, kv := range resp.Kvs {
		rec, err := fieldcodec.Decode(kv.Value, fields)
		if err != nil {
			return nil, fmt.Errorf("etcd scan %s: key %s: %w", table, kv.Key, err)
		}
		recs = append(recs, rec)
	}
	return recs, nil
}

// Update merges values into an existing record; see the package comment for
// its cost and conflict behaviour.
func (db *DB) Update(ctx context.Context, table, key string, values driver.Record) error {
	ctx, cancel := db.op(ctx)
	defer cancel()
	k := db.key(table, key)
	// Linearizable: a serializable read from a lagging member could miss
	// the caller's own just-acknowledged insert.
	resp, err := db.cli.Get(ctx, k)
	if err != nil {
		return db.classify(fmt.Errorf("etcd update %s/%s: read: %w", table, key, err))
	}
	if len(resp.Kvs) == 0 {
		return fmt.Errorf("etcd update %s/%s: %w", table, key, errclass.ErrNotFound)
	}
	merged, err := fieldcodec.Merge(resp.Kvs[0].Value, values)
	if err != nil {
		return fmt.Errorf("etcd update %s/%s: %w", table, key, err)
	}
	if db.beforeCommit != nil {
		db.beforeCommit()
	}
	txn, err := db.cli.Txn(ctx).
		If(clientv3.Compare(clientv3.ModRevision(k), "=", resp.Kvs[0].ModRevision)).
		Then(clientv3.OpPut(k, string(merged))).
		Commit()
	if err != nil {
		return db.classify(fmt.Errorf("etcd update %s/%s: %w", table, key, err))
	}
	if !txn.Succeeded {
		return errclass.Wrap(errclass.Conflict, fmt.Errorf("etcd update %s/%s: %w", table, key, errclass.ErrConflict))
	}
	return nil
}

// Insert writes a record (overwriting one with the same key).
func (db *DB) Insert(ctx context.Context, table, key string, values driver.Record) error {
	ctx, cancel := db.op(ctx)
	defer cancel()
	if _, err := db.cli.Put(ctx, db.key(table, key), string(fieldcodec.Encode(values))); err != nil {
		return db.classify(fmt.Errorf("etcd insert %s/%s: %w", table, key, err))
	}
	return nil
}

// InsertBatch writes records in Txns of up to etcd.batchsize puts. Each Txn
// is atomic; when one fails, the ones before it stay written.
func (db *DB) InsertBatch(ctx context.Context, table string, keys []string, values []driver.Record) error {
	if len(keys) != len(values) {
		return fmt.Errorf("etcd insert batch %s: %d keys but %d records", table, len(keys), len(values))
	}
	ops := make([]clientv3.Op, 0, min(len(keys), db.batchSize))
	size, first := 0, 0
	flush := func(upTo int) error {
		if len(ops) == 0 {
			return nil
		}
		cctx, cancel := db.op(ctx)
		defer cancel()
		_, err := db.cli.Txn(cctx).Then(ops...).Commit()
		if err != nil {
			return db.classify(fmt.Errorf("etcd insert batch %s (keys %s..%s): %w", table, keys[first], keys[upTo-1], err))
		}
		ops, size, first = ops[:0], 0, upTo
		return nil
	}
	for i, key := range keys {
		k := db.key(table, key)
		v := fieldcodec.Encode(values[i])
		if len(ops) == db.batchSize || (len(ops) > 0 && size+len(k)+len(v) > maxTxnBytes) {
			if err := flush(i); err != nil {
				return err
			}
		}
		ops = append(ops, clientv3.OpPut(k, string(v)))
		size += len(k) + len(v)
	}
	return flush(len(keys))
}

// Delete removes one record.
func (db *DB) Delete(ctx context.Context, table, key string) error {
	ctx, cancel := db.op(ctx)
	defer cancel()
	resp, err := db.cli.Delete(ctx, db.key(table, key))
	if err != nil {
		return db.classify(fmt.Errorf("etcd delete %s/%s: %w", table, key, err))
	}
	if resp.Deleted == 0 {
		return fmt.Errorf("etcd delete %s/%s: %w", table, key, errclass.ErrNotFound)
	}
	return nil
}

// Reset deletes every key under etcd.prefix, in one request.
func (db *DB) Reset(ctx context.Context) error {
	// A large keyspace takes longer than one operation's timeout.
	ctx, cancel := context.WithTimeout(ctx, max(db.timeout, time.Minute))
	defer cancel()
	if _, err := db.cli.Delete(ctx, db.prefix, clientv3.WithPrefix()); err != nil {
		return db.classify(fmt.Errorf("etcd reset (delete prefix %q): %w", db.prefix, err))
	}
	return nil
}

// ServerVersion asks the members for their status, in endpoint order, and
// returns the first answer's version (e.g. "3.4.23").
func (db *DB) ServerVersion(ctx context.Context) (string, error) {
	var errs []error
	for _, ep := range db.endpoints {
		cctx, cancel := db.op(ctx)
		st, err := db.cli.Status(cctx, ep)
		cancel()
		if err == nil {
			return st.Version, nil
		}
		errs = append(errs, fmt.Errorf("%s: %w", ep, err))
	}
	return "", db.classify(fmt.Errorf("etcd status: no endpoint answered: %w", errors.Join(errs...)))
}

// Member is one member of the cluster as the cluster reports it.
type Member struct {
	ID         uint64
	Name       string
	ClientURLs []string
	Leader     bool
}

// Members lists the cluster's members and marks the leader, so a run's
// context (and tests) can show how many nodes served it.
func (db *DB) Members(ctx context.Context) ([]Member, error) {
	ctx, cancel := db.op(ctx)
	defer cancel()
	resp, err := db.cli.MemberList(ctx)
	if err != nil {
		return nil, db.classify(fmt.Errorf("etcd member list: %w", err))
	}
	var leader uint64
	for _, ep := range db.endpoints {
		if st, err := db.cli.Status(ctx, ep); err == nil {
			leader = st.Leader
			break
		}
	}
	ms := make([]Member, 0, len(resp.Members))
	for _, m := range resp.Members {
		ms = append(ms, Member{ID: m.ID, Name: m.Name, ClientURLs: m.ClientURLs, Leader: m.ID == leader})
	}
	return ms, nil
}

// Target names the endpoints (credentials are never part of it).
func (db *DB) Target() string { return "etcd://" + strings.Join(db.endpoints, ",") }

// Close closes the client.
func (db *DB) Close() error { return db.cli.Close() }
