// Package redis is the dbrig driver for Redis, through go-redis
// (github.com/redis/go-redis/v9, the default) or rueidis
// (github.com/redis/rueidis): property redis.client.
//
// Layout: each record is a hash "TABLE:KEY" (one hash field per record
// field: HSET, HMGET, HGETALL). Scans use a sorted set "TABLE#index" that
// holds every key of the table with score 0, so ZRANGE … BYLEX returns keys
// in bytewise order: Scan is ZRANGE TABLE#index [START + BYLEX LIMIT 0 n,
// then one pipelined HMGET/HGETALL per key. Insert and Delete change the
// hash and the index in one MULTI/EXEC. InsertBatch pipelines all HSETs and
// one ZADD in a single round trip. Update has two modes (redis.update):
//
//   - checked (default), YCSB's update of an existing record: a small Lua
//     script (EVALSHA) checks EXISTS and then HSETs, atomically, in one round
//     trip; updating a missing key is an error (errclass.ErrNotFound) and
//     never creates a record.
//   - hset: a plain HSET, one round trip without a script, as YCSB's own
//     Java Redis binding (HMSET) and go-ycsb do: on a missing key it creates
//     a hash holding only the updated fields, which is not in the scan index
//     and is not reported as not found. Cheaper for the server (no script
//     call); use it when every updated key exists (YCSB workloads A, B and
//     F update loaded keys only) or to compare with YCSB's binding.
//
// Both clients send the same commands, so layout and semantics do not
// depend on redis.client; rueidis pipelines the commands of concurrent
// clients on shared connections (rueidis.go), go-redis gives each its own.
//
// Properties:
//
//	redis.addr      host:port of the server (default 127.0.0.1:6379)
//	redis.read_addr host:port of a replica that serves Read and Scan (writes
//	                still go to redis.addr or the Sentinel primary); its
//	                reads may be stale: asynchronous replication
//	redis.password  password (AUTH); never printed or stored
//	redis.db        database number (default 0)
//	redis.timeout   bound of one operation, retries included (default 2s)
//	redis.poolsize  go-redis' connections (default: threadcount, at least 10 per CPU)
//	redis.update    checked (default) or hset: see above
//	redis.sentinels Sentinel addresses host:port,…: the driver asks them for
//	                the primary and follows a failover (redis.addr is then
//	                not used); see sentinel.go
//	redis.master    the name Sentinel monitors the primary under (default mymaster)
//	redis.client    go-redis (default) or rueidis (automatic pipelining: less
//	                client CPU with many clients, see rueidis.go); snapshots
//	                use a go-redis connection either way
//	table           the table Reset drops (YCSB's property, default usertable)
//
// Example:
//
//	dbrig run -P workloads/workloada --driver redis -p redis.addr=127.0.0.1:16379
package redis

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"github.com/redis/rueidis"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/errclass"
	"github.com/dbrig/dbrig/spec"
)

// DB is a Redis connection pool; safe for concurrent use.
type DB struct {
	c       *goredis.Client // writes, snapshots (with either client)
	rc      *goredis.Client // reads: c, or the one to redis.read_addr
	target  string          // without the password
	db      int
	timeout time.Duration
	table   string         // for Reset
	hset    bool           // redis.update=hset: Update is a plain HSET (upsert)
	rue     rueidis.Client // redis.client=rueidis: every driver.DB operation (rueidis.go); else nil
	rueR    rueidis.Client // rueidis' reads: rue, or the one to redis.read_addr
}

// Update modes (property redis.update).
const (
	UpdateChecked = "checked"
	UpdateHSet    = "hset"
)

// updateScript writes the fields only if the record exists: one round trip,
// atomic, and no upsert.
var updateScript = goredis.NewScript(updateScriptSrc)

const updateScriptSrc = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if #ARGV > 0 then redis.call('HSET', KEYS[1], unpack(ARGV)) end
return 1`

// Open connects to the server named by the redis.* properties and checks it
// answers.
func Open(ctx context.Context, cfg driver.Config) (driver.DB, error) {
	p := cfg.Props
	if p == nil {
		p = spec.NewProps()
	}
	addr := p.String("redis.addr", "127.0.0.1:6379")
	if _, port, err := net.SplitHostPort(addr); err != nil || port == "" {
		return nil, p.Errorf("redis.addr", "host:port")
	}
	readAddr := strings.TrimSpace(p.String("redis.read_addr", ""))
	if readAddr != "" {
		if _, port, err := net.SplitHostPort(readAddr); err != nil || port == "" {
			return nil, p.Errorf("redis.read_addr", "host:port (a replica that serves the reads)")
		}
	}
	password := p.String("redis.password", "")
	dbn, err := p.IntMin("redis.db", 0, 0)
	if err != nil {
		return nil, err
	}
	timeout, err := p.Duration("redis.timeout", 2*time.Second)
	if err != nil {
		return nil, err
	}
	if timeout <= 0 {
		return nil, p.Errorf("redis.timeout", "a duration > 0")
	}
	threads, err := p.IntMin("threadcount", 1, 1)
	if err != nil {
		return nil, err
	}
	// Enough connections for every client, so no client waits for one (that
	// wait would be measured as the server's latency).
	pool, err := p.IntMin("redis.poolsize", max(threads, 10*int64(runtime.GOMAXPROCS(0))), 1)
	if err != nil {
		return nil, err
	}
	mode, err := p.Choice("redis.update", UpdateChecked, UpdateHSet)
	if err != nil {
		return nil, err
	}
	sents, master, err := sentinels(p)
	if err != nil {
		return nil, err
	}
	lib, err := p.Choice("redis.client", ClientGoRedis, ClientRueidis)
	if err != nil {
		return nil, err
	}
	o := &goredis.Options{
		Addr:     addr,
		Password: password,
		DB:       int(dbn),
		PoolSize: int(pool),
		// Every operation runs under a context with the timeout (see op), so
		// the context bounds retries too; the socket timeouts are a backstop.
		ContextTimeoutEnabled: true,
		DialTimeout:           timeout,
		ReadTimeout:           timeout,
		WriteTimeout:          timeout,
		PoolTimeout:           timeout,
		DisableIdentity:       true, // no CLIENT SETINFO round trip on every new connection
	}
	var c *goredis.Client
	target := "redis://" + addr + "/" + strconv.Itoa(int(dbn))
	if sents != nil {
		c = failoverClient(o, sents, master)
		addr = "the primary " + master + " of Sentinel " + strings.Join(sents, ",")
		target = "redis-sentinel://" + strings.Join(sents, ",") + "/" + master + "/" + strconv.Itoa(int(dbn))
	} else {
		c = goredis.NewClient(o)
	}
	if readAddr != "" {
		target += " reads redis://" + readAddr + "/" + strconv.Itoa(int(dbn))
	}
	d := &DB{c: c, rc: c, target: target, db: int(dbn), timeout: timeout, table: p.String("table", "usertable"), hset: mode == UpdateHSet}
	ctx, cancel := d.op(ctx)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		c.Close()
		return nil, fmt.Errorf("redis: connect to %s: %w", addr, classify(err))
	}
	if err := d.openReads(ctx, lib, o, readAddr, addr, sents, master); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

// openReads opens what Open has not: the rueidis client(s) with
// redis.client=rueidis, and the go-redis pool to redis.read_addr with
// go-redis; reads use the writes' client when there is no read_addr.
func (d *DB) openReads(ctx context.Context, lib string, o *goredis.Options, readAddr, addr string, sents []string, master string) error {
	var err error
	if lib == ClientRueidis {
		if d.rue, err = openRueidis(o.Addr, sents, master, o.Password, o.DB, d.timeout); err != nil {
			return fmt.Errorf("redis: connect to %s (rueidis): %w", addr, classifyRue(err))
		}
		d.rueR = d.rue
		if readAddr != "" {
			if d.rueR, err = openRueidis(readAddr, nil, "", o.Password, o.DB, d.timeout); err != nil {
				d.rueR = nil
				return fmt.Errorf("redis: connect to the reads' %s (rueidis): %w", readAddr, classifyRue(err))
			}
		}
		return nil
	}
	if readAddr == "" {
		return nil
	}
	ro := *o
	ro.Addr = readAddr
	d.rc = goredis.NewClient(&ro)
	if err := d.rc.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("redis: connect to the reads' %s: %w", readAddr, classify(err))
	}
	return nil
}

// op bounds one operation by the driver's timeout.
func (d *DB) op(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, d.timeout)
}

func hashKey(table, key string) string { return table + ":" + key }
func indexKey(table string) string     { return table + "#index" }

// Read returns the named fields of one record (all when fields is empty).
func (d *DB) Read(ctx context.Context, table, key string, fields []string) (driver.Record, error) {
	ctx, cancel := d.op(ctx)
	defer cancel()
	hk := hashKey(table, key)
	if d.rue != nil {
		return d.rueRead(ctx, hk, key, fields)
	}
	if len(fields) == 0 { // nil means all; HMGET with no field would be an error

		m, err := d.rc.HGetAll(ctx, hk).Result()
		if err != nil {
			return nil, fmt.Errorf("redis read %q: %w", key, classify(err))
		}
		if len(m) == 0 {
			return nil, fmt.Errorf("redis read %q: %w", key, errclass.ErrNotFound)
		}
		return fromMap(m), nil
	}
	vals, err := d.rc.HMGet(ctx, hk, fields...).Result()
	if err != nil {
		return nil, fmt.Errorf("redis read %q: %w", key, classify(err))
	}
	rec, found := fromSlice(fields, vals)
	if !found {
		// HMGET cannot tell a missing key from missing fields; ask (rare).
		n, err := d.rc.Exists(ctx, hk).Result()
		if err != nil {
			return nil, fmt.Errorf("redis read %q: %w", key, classify(err))
		}
		if n == 0 {
			return nil, fmt.Errorf("redis read %q: %w", key, errclass.ErrNotFound)
		}
	}
	return rec, nil
}

func fromMap(m map[string]string) driver.Record {
	r := make(driver.Record, len(m))
	for f, v := range m {
		r[f] = []byte(v)
	}
	return r
}

// fromSlice pairs HMGET results with their fields, leaving out missing ones;
// found is false when none exists.
func fromSlice(fields []string, vals []any) (r driver.Record, found bool) {
	r = make(driver.Record, len(fields))
	for i, v := range vals {
		if s, ok := v.(string); ok {
			r[fields[i]] = []byte(s)
			found = true
		}
	}
	return r, found
}

// Scan returns up to n records from startKey on, in bytewise key order.
func (d *DB) Scan(ctx context.Context, table, startKey string, n int, fields []string) ([]driver.Record, error) {
	if n <= 0 {
		return nil, nil
	}
	ctx, cancel := d.op(ctx)
	defer cancel()
	start := "[" + startKey
	if startKey == "" {
		start = "-"
	}
	if d.rue != nil {
		return d.rueScan(ctx, table, start, startKey, n, fields)
	}
	keys, err := d.rc.ZRangeArgs(ctx, goredis.ZRangeArgs{
		Key: indexKey(table), Start: start, Stop: "+", ByLex: true, Count: int64(n),
	}).Result()
	if err != nil {
		return nil, fmt.Errorf("redis scan from %q: %w", startKey, classify(err))
	}
	if len(keys) == 0 {
		return nil, nil
	}
	pipe := d.rc.Pipeline()
	cmds := make([]goredis.Cmder, len(keys))
	for i, k := range keys {
		if len(fields) == 0 {
			cmds[i] = pipe.HGetAll(ctx, hashKey(table, k))
		} else {
			cmds[i] = pipe.HMGet(ctx, hashKey(table, k), fields...)
		}
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return nil, fmt.Errorf("redis scan from %q: %w", startKey, classify(err))
	}
	recs := make([]driver.Record, 0, len(keys))
	for _, cmd := range cmds {
		// A key deleted between ZRANGE and HMGET is left out, as if the
		// scan had run a moment later.
		switch c := cmd.(type) {
		case *goredis.MapStringStringCmd:
			if m := c.Val(); len(m) > 0 {
				recs = append(recs, fromMap(m))
			}
		case *goredis.SliceCmd:
			if r, found := fromSlice(fields, c.Val()); found {
				recs = append(recs, r)
			}
		}
	}
	return recs, nil
}

// Update overwrites the given fields of an existing record (redis.update
// checked), or writes them whether the record exists or not (hset).
func (d *DB) Update(ctx context.Context, table, key string, values driver.Record) error {
	ctx, cancel := d.op(ctx)
	defer cancel()
	if d.rue != nil {
		return d.rueUpdate(ctx, hashKey(table, key), key, values)
	}
	if d.hset {
		if len(values) == 0 {
			return nil
		}
		if err := d.c.HSet(ctx, hashKey(table, key), flatten(values)...).Err(); err != nil {
			return fmt.Errorf("redis update %q: %w", key, classify(err))
		}
		return nil
	}
	n, err := updateScript.Run(ctx, d.c, []string{hashKey(table, key)}, flatten(values)...).Int()
	if err != nil {
		return fmt.Errorf("redis update %q: %w", key, classify(err))
	}
	if n == 0 {
		return fmt.Errorf("redis update %q: %w", key, errclass.ErrNotFound)
	}
	return nil
}

// Insert writes a record and adds its key to the table's index, atomically.
func (d *DB) Insert(ctx context.Context, table, key string, values driver.Record) error {
	ctx, cancel := d.op(ctx)
	defer cancel()
	if d.rue != nil {
		return d.rueInsert(ctx, table, key, values)
	}
	hk := hashKey(table, key)
	_, err := d.c.TxPipelined(ctx, func(p goredis.Pipeliner) error {
		if len(values) > 0 {
			p.HSet(ctx, hk, flatten(values)...)
		}
		p.ZAdd(ctx, indexKey(table), goredis.Z{Member: key})
		return nil
	})
	if err != nil {
		return fmt.Errorf("redis insert %q: %w", key, classify(err))
	}
	return nil
}

func flatten(values driver.Record) []any {
	args := make([]any, 0, 2*len(values))
	for f, v := range values {
		args = append(args, f, v)
	}
	return args
}

// Delete removes a record and its index entry.
func (d *DB) Delete(ctx context.Context, table, key string) error {
	ctx, cancel := d.op(ctx)
	defer cancel()
	if d.rue != nil {
		return d.rueDelete(ctx, table, key)
	}
	var del *goredis.IntCmd
	_, err := d.c.TxPipelined(ctx, func(p goredis.Pipeliner) error {
		del = p.Del(ctx, hashKey(table, key))
		p.ZRem(ctx, indexKey(table), key)
		return nil
	})
	if err != nil {
		return fmt.Errorf("redis delete %q: %w", key, classify(err))
	}
	if del.Val() == 0 {
		return fmt.Errorf("redis delete %q: %w", key, errclass.ErrNotFound)
	}
	return nil
}

// InsertBatch writes all records and their index entries in one pipelined
// round trip (not atomic: a failure may leave part of the batch written,
// which a repeated load overwrites).
func (d *DB) InsertBatch(ctx context.Context, table string, keys []string, values []driver.Record) error {
	if len(keys) != len(values) {
		return fmt.Errorf("redis insert batch: %d keys but %d records", len(keys), len(values))
	}
	if len(keys) == 0 {
		return nil
	}
	ctx, cancel := d.op(ctx)
	defer cancel()
	if d.rue != nil {
		return d.rueInsertBatch(ctx, table, keys, values)
	}
	members := make([]goredis.Z, len(keys))
	_, err := d.c.Pipelined(ctx, func(p goredis.Pipeliner) error {
		for i, k := range keys {
			if len(values[i]) > 0 {
				p.HSet(ctx, hashKey(table, k), flatten(values[i])...)
			}
			members[i] = goredis.Z{Member: k}
		}
		p.ZAdd(ctx, indexKey(table), members...)
		return nil
	})
	if err != nil {
		return fmt.Errorf("redis insert batch of %d from %q: %w", len(keys), keys[0], classify(err))
	}
	return nil
}

// ServerVersion reports redis_version from INFO server.
func (d *DB) ServerVersion(ctx context.Context) (string, error) {
	ctx, cancel := d.op(ctx)
	defer cancel()
	if d.rue != nil {
		return d.rueServerVersion(ctx)
	}
	info, err := d.c.Info(ctx, "server").Result()
	if err != nil {
		return "", fmt.Errorf("redis version: %w", classify(err))
	}
	return versionOf(info)
}

// versionOf finds redis_version in the reply of INFO server.
func versionOf(info string) (string, error) {
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "redis_version:"); ok {
			return v, nil
		}
	}
	return "", errors.New("redis version: no redis_version in INFO server")
}

// Target is the server without the password.
func (d *DB) Target() string { return d.target }

// Reset drops the records of the configured table (property "table"), in
// chunks of the index so no single command blocks the server for long.
func (d *DB) Reset(ctx context.Context) error {
	const chunk = 1000
	ix := indexKey(d.table)
	for {
		cctx, cancel := d.op(ctx)
		if d.rue != nil {
			n, err := d.rueResetChunk(cctx, chunk)
			cancel()
			if err != nil {
				return fmt.Errorf("redis reset %s: %w", d.table, classifyRue(err))
			}
			if n < chunk {
				return nil
			}
			continue
		}
		keys, err := d.c.ZRange(cctx, ix, 0, chunk-1).Result()
		if err == nil && len(keys) > 0 {
			hks := make([]string, len(keys))
			for i, k := range keys {
				hks[i] = hashKey(d.table, k)
			}
			_, err = d.c.TxPipelined(cctx, func(p goredis.Pipeliner) error {
				p.Del(cctx, hks...)
				p.ZRem(cctx, ix, toAny(keys)...)
				return nil
			})
		}
		cancel()
		if err != nil {
			return fmt.Errorf("redis reset %s: %w", d.table, classify(err))
		}
		if len(keys) < chunk {
			return nil
		}
	}
}

func toAny(ss []string) []any {
	a := make([]any, len(ss))
	for i, s := range ss {
		a[i] = s
	}
	return a
}

// Close closes the pools (and rueidis' connections).
func (d *DB) Close() error {
	if d.rueR != nil && d.rueR != d.rue {
		d.rueR.Close()
	}
	if d.rue != nil {
		d.rue.Close()
	}
	if d.rc != d.c {
		d.rc.Close()
	}
	return d.c.Close()
}

// classify attaches an errclass.Class to an error of go-redis.
func classify(err error) error {
	return errclass.Wrap(classOf(err), err)
}

func classOf(err error) errclass.Class {
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, goredis.ErrPoolTimeout),
		errors.As(err, &ne) && ne.Timeout():
		return errclass.Timeout
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.EPIPE), errors.Is(err, net.ErrClosed),
		errors.Is(err, goredis.ErrClosed), errors.As(err, new(*net.OpError)):
		return errclass.Unavailable
	case errors.Is(err, goredis.TxFailedErr):
		return errclass.Conflict
	}
	for _, prefix := range []string{"LOADING", "MASTERDOWN", "CLUSTERDOWN", "BUSY", "max number of clients"} {
		if goredis.HasErrorPrefix(err, prefix) {
			return errclass.Unavailable
		}
	}
	if goredis.HasErrorPrefix(err, "TRYAGAIN") {
		return errclass.Conflict
	}
	return errclass.Other
}
