package redis

import (
	"context"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/redis/rueidis"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/errclass"
)

// Clients (property redis.client).
const (
	ClientGoRedis = "go-redis"
	ClientRueidis = "rueidis"
)

// redis.client=rueidis: every operation of driver.DB (read, scan, update,
// insert, delete, batch insert, reset, version) goes through rueidis, whose
// automatic pipelining writes the commands of concurrent clients to one
// connection together (fewer system calls per operation: less client CPU
// per operation than go-redis at 16 clients; not shown at 1 client, so
// go-redis stays the default: docs/architecture.md, Redis client). The data layout,
// each update mode's semantics and the MULTI/EXEC atomicity of insert and
// delete are those of the go-redis code (a MULTI … EXEC sent by one DoMulti
// is written to one connection as a unit, so no other client's command
// lands inside it). Snapshots and key restores, rare and off the measured
// path, stay on the go-redis connection the driver keeps for them.

// rueUpdateScript is updateScript for rueidis (EVALSHA, EVAL on NOSCRIPT).
var rueUpdateScript = rueidis.NewLuaScript(updateScriptSrc)

// openRueidis connects to addr, or through Sentinel to the primary master
// when sents is not nil (rueidis asks the sentinels and follows a
// failover, as go-redis's failover client does).
func openRueidis(addr string, sents []string, master, password string, db int, timeout time.Duration) (rueidis.Client, error) {
	o := rueidis.ClientOption{
		InitAddress:       []string{addr},
		Password:          password,
		SelectDB:          db,
		DisableCache:      true, // no client-side caching: every read reaches the server
		ForceSingleClient: true, // a standalone server (no cluster probing)
		ConnWriteTimeout:  timeout,
		Dialer:            net.Dialer{Timeout: timeout},
	}
	if sents != nil {
		o.InitAddress = sents
		o.ForceSingleClient = false // rueidis picks its sentinel client by Sentinel.MasterSet
		o.Sentinel = rueidis.SentinelOption{MasterSet: master, Dialer: net.Dialer{Timeout: timeout}}
	}
	return rueidis.NewClient(o)
}

func (d *DB) rueRead(ctx context.Context, hk, key string, fields []string) (driver.Record, error) {
	c := d.rueR
	if len(fields) == 0 {
		m, err := c.Do(ctx, c.B().Hgetall().Key(hk).Build()).AsStrMap()
		if err != nil {
			return nil, fmt.Errorf("redis read %q: %w", key, classifyRue(err))
		}
		if len(m) == 0 {
			return nil, fmt.Errorf("redis read %q: %w", key, errclass.ErrNotFound)
		}
		return fromMap(m), nil
	}
	vals, err := c.Do(ctx, c.B().Hmget().Key(hk).Field(fields...).Build()).ToArray()
	if err != nil {
		return nil, fmt.Errorf("redis read %q: %w", key, classifyRue(err))
	}
	r, err := rueFields(fields, vals)
	if err != nil {
		return nil, fmt.Errorf("redis read %q: %w", key, classifyRue(err))
	}
	if len(r) == 0 {
		// HMGET cannot tell a missing key from missing fields; ask (rare).
		n, err := c.Do(ctx, c.B().Exists().Key(hk).Build()).AsInt64()
		if err != nil {
			return nil, fmt.Errorf("redis read %q: %w", key, classifyRue(err))
		}
		if n == 0 {
			return nil, fmt.Errorf("redis read %q: %w", key, errclass.ErrNotFound)
		}
	}
	return r, nil
}

// rueFields pairs HMGET results with their fields, leaving out missing ones.
func rueFields(fields []string, vals []rueidis.RedisMessage) (driver.Record, error) {
	r := make(driver.Record, len(fields))
	for i := range vals {
		if i < len(fields) && !vals[i].IsNil() {
			s, err := vals[i].ToString()
			if err != nil {
				return nil, err
			}
			r[fields[i]] = []byte(s)
		}
	}
	return r, nil
}

func (d *DB) rueScan(ctx context.Context, table, start, startKey string, n int, fields []string) ([]driver.Record, error) {
	c := d.rueR
	keys, err := c.Do(ctx, c.B().Zrange().Key(indexKey(table)).Min(start).Max("+").Bylex().Limit(0, int64(n)).Build()).AsStrSlice()
	if err != nil {
		return nil, fmt.Errorf("redis scan from %q: %w", startKey, classifyRue(err))
	}
	if len(keys) == 0 {
		return nil, nil
	}
	cmds := make(rueidis.Commands, len(keys))
	for i, k := range keys {
		if len(fields) == 0 {
			cmds[i] = c.B().Hgetall().Key(hashKey(table, k)).Build()
		} else {
			cmds[i] = c.B().Hmget().Key(hashKey(table, k)).Field(fields...).Build()
		}
	}
	recs := make([]driver.Record, 0, len(keys))
	for _, res := range c.DoMulti(ctx, cmds...) {
		// A key deleted between ZRANGE and HMGET is left out, as if the
		// scan had run a moment later.
		var r driver.Record
		if len(fields) == 0 {
			m, err := res.AsStrMap()
			if err != nil {
				return nil, fmt.Errorf("redis scan from %q: %w", startKey, classifyRue(err))
			}
			r = fromMap(m)
		} else {
			vals, err := res.ToArray()
			if err == nil {
				r, err = rueFields(fields, vals)
			}
			if err != nil {
				return nil, fmt.Errorf("redis scan from %q: %w", startKey, classifyRue(err))
			}
		}
		if len(r) > 0 {
			recs = append(recs, r)
		}
	}
	return recs, nil
}

// rueHSet is HSET key with the record's fields.
func rueHSet(c rueidis.Client, hk string, values driver.Record) rueidis.Completed {
	cmd := c.B().Hset().Key(hk).FieldValue()
	for f, v := range values {
		cmd = cmd.FieldValue(f, rueidis.BinaryString(v))
	}
	return cmd.Build()
}

func (d *DB) rueUpdate(ctx context.Context, hk, key string, values driver.Record) error {
	c := d.rue
	if d.hset {
		if len(values) == 0 {
			return nil
		}
		if err := c.Do(ctx, rueHSet(c, hk, values)).Error(); err != nil {
			return fmt.Errorf("redis update %q: %w", key, classifyRue(err))
		}
		return nil
	}
	args := make([]string, 0, 2*len(values))
	for f, v := range values {
		args = append(args, f, rueidis.BinaryString(v))
	}
	n, err := rueUpdateScript.Exec(ctx, c, []string{hk}, args).AsInt64()
	if err != nil {
		return fmt.Errorf("redis update %q: %w", key, classifyRue(err))
	}
	if n == 0 {
		return fmt.Errorf("redis update %q: %w", key, errclass.ErrNotFound)
	}
	return nil
}

// rueTx runs cmds in one MULTI/EXEC and returns the replies of EXEC.
func rueTx(ctx context.Context, c rueidis.Client, cmds ...rueidis.Completed) ([]rueidis.RedisMessage, error) {
	all := make(rueidis.Commands, 0, len(cmds)+2)
	all = append(all, c.B().Multi().Build())
	all = append(all, cmds...)
	all = append(all, c.B().Exec().Build())
	res := c.DoMulti(ctx, all...)
	for _, r := range res[:len(res)-1] { // OK and QUEUED, or why a command was refused
		if err := r.Error(); err != nil {
			return nil, err
		}
	}
	return res[len(res)-1].ToArray()
}

func (d *DB) rueInsert(ctx context.Context, table, key string, values driver.Record) error {
	c := d.rue
	var cmds rueidis.Commands
	if len(values) > 0 {
		cmds = append(cmds, rueHSet(c, hashKey(table, key), values))
	}
	cmds = append(cmds, c.B().Zadd().Key(indexKey(table)).ScoreMember().ScoreMember(0, key).Build())
	if _, err := rueTx(ctx, c, cmds...); err != nil {
		return fmt.Errorf("redis insert %q: %w", key, classifyRue(err))
	}
	return nil
}

func (d *DB) rueDelete(ctx context.Context, table, key string) error {
	c := d.rue
	replies, err := rueTx(ctx, c,
		c.B().Del().Key(hashKey(table, key)).Build(),
		c.B().Zrem().Key(indexKey(table)).Member(key).Build())
	var n int64
	if err == nil && len(replies) > 0 {
		n, err = replies[0].AsInt64()
	}
	if err != nil {
		return fmt.Errorf("redis delete %q: %w", key, classifyRue(err))
	}
	if n == 0 {
		return fmt.Errorf("redis delete %q: %w", key, errclass.ErrNotFound)
	}
	return nil
}

func (d *DB) rueInsertBatch(ctx context.Context, table string, keys []string, values []driver.Record) error {
	c := d.rue
	cmds := make(rueidis.Commands, 0, len(keys)+1)
	zadd := c.B().Zadd().Key(indexKey(table)).ScoreMember()
	for i, k := range keys {
		if len(values[i]) > 0 {
			cmds = append(cmds, rueHSet(c, hashKey(table, k), values[i]))
		}
		zadd = zadd.ScoreMember(0, k)
	}
	cmds = append(cmds, zadd.Build())
	for _, r := range c.DoMulti(ctx, cmds...) {
		if err := r.Error(); err != nil {
			return fmt.Errorf("redis insert batch of %d from %q: %w", len(keys), keys[0], classifyRue(err))
		}
	}
	return nil
}

// rueResetChunk deletes the first chunk keys of the index and their
// records; it returns how many it found.
func (d *DB) rueResetChunk(ctx context.Context, chunk int64) (int, error) {
	c := d.rue
	ix := indexKey(d.table)
	keys, err := c.Do(ctx, c.B().Zrange().Key(ix).Min("0").Max(fmt.Sprint(chunk-1)).Build()).AsStrSlice()
	if err != nil || len(keys) == 0 {
		return 0, err
	}
	hks := make([]string, len(keys))
	for i, k := range keys {
		hks[i] = hashKey(d.table, k)
	}
	_, err = rueTx(ctx, c, c.B().Del().Key(hks...).Build(), c.B().Zrem().Key(ix).Member(keys...).Build())
	return len(keys), err
}

func (d *DB) rueServerVersion(ctx context.Context) (string, error) {
	info, err := d.rue.Do(ctx, d.rue.B().Info().Section("server").Build()).ToString()
	if err != nil {
		return "", fmt.Errorf("redis version: %w", classifyRue(err))
	}
	return versionOf(info)
}

// classifyRue is classify for rueidis' errors: its server errors carry the
// same prefixes; its closed client is unavailable.
func classifyRue(err error) error {
	if err == rueidis.ErrClosing {
		return errclass.Wrap(errclass.Unavailable, err)
	}
	if re, ok := rueidis.IsRedisErr(err); ok {
		for _, prefix := range []string{"LOADING", "MASTERDOWN", "CLUSTERDOWN", "BUSY", "max number of clients"} {
			if strings.HasPrefix(strings.TrimPrefix(re.Error(), "ERR "), prefix) {
				return errclass.Wrap(errclass.Unavailable, err)
			}
		}
	}
	return classify(err)
}
