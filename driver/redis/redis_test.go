package redis

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/driver/drivertest"
	"github.com/dbrig/dbrig/errclass"
	"github.com/dbrig/dbrig/internal/testenv"
	"github.com/dbrig/dbrig/spec"
)

func open(t testing.TB, p *spec.Props) *DB {
	t.Helper()
	return drivertest.Open(t, Open, driver.Config{Props: p}).(*DB)
}

// server returns the shared test server and the properties that reach it:
// its address and its password (scripts/test-servers gives it one of
// awkward characters) first, then the pairs given.
func server(t testing.TB) (addr string, props func(kv ...string) *spec.Props) {
	t.Helper()
	addr = testenv.Need(t, "DBRIG_REDIS_ADDR")
	pw := os.Getenv("DBRIG_REDIS_PASSWORD")
	return addr, func(kv ...string) *spec.Props {
		return drivertest.Props(append([]string{"redis.password", pw}, kv...)...)
	}
}

// dropTable removes what a test wrote, through a connection of its own.
func dropTable(t testing.TB, addr, table string) {
	t.Helper()
	_, props := server(t)
	t.Cleanup(func() {
		db := open(t, props("redis.addr", addr, "table", table))
		defer db.Close()
		if err := db.Reset(context.Background()); err != nil {
			t.Errorf("Reset %s: %v", table, err)
		}
	})
}

func TestConformance(t *testing.T) {
	for _, client := range []string{ClientGoRedis, ClientRueidis} {
		t.Run(client, func(t *testing.T) {
			addr, props := server(t)
			px := drivertest.NewProxies(t, addr)
			drivertest.Run(t, drivertest.Harness{
				Open: func(t *testing.T, table string) driver.DB {
					dropTable(t, addr, table)
					return open(t, props("redis.addr", px.Addrs()[0], "redis.timeout", "1s", "table", table, "redis.client", client))
				},
				Outage:  px,
				Timeout: time.Second,
			})
		})
	}
}

func TestReset(t *testing.T) {
	for _, client := range []string{ClientGoRedis, ClientRueidis} {
		t.Run(client, func(t *testing.T) { testReset(t, client) })
	}
}

func testReset(t *testing.T, client string) {
	addr, props := server(t)
	table := fmt.Sprintf("reset_%s_%d", client, time.Now().UnixNano())
	db := open(t, props("redis.addr", addr, "table", table, "redis.client", client))
	defer db.Close()
	ctx := t.Context()
	const n = 2500 // more than one Reset chunk
	keys := make([]string, n)
	recs := make([]driver.Record, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("user%05d", i)
		recs[i] = driver.Record{"field0": []byte("v")}
	}
	if err := db.InsertBatch(ctx, table, keys, recs); err != nil {
		t.Fatal(err)
	}
	// A record of another table survives.
	if err := db.Insert(ctx, table+"x", "keep", driver.Record{"field0": []byte("v")}); err != nil {
		t.Fatal(err)
	}
	dropTable(t, addr, table+"x")
	if got := countKeys(t, db.c, table+":*") + countKeys(t, db.c, table+"#*"); got != n+1 {
		t.Fatalf("before Reset: %d keys, want %d records + 1 index", got, n)
	}
	if err := db.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	if got := countKeys(t, db.c, table+":*") + countKeys(t, db.c, table+"#*"); got != 0 {
		t.Fatalf("after Reset: %d keys of table %s remain", got, table)
	}
	if _, err := db.Read(ctx, table+"x", "keep", nil); err != nil {
		t.Fatalf("a record of another table: %v", err)
	}
}

func countKeys(t testing.TB, c *goredis.Client, pattern string) int {
	t.Helper()
	n := 0
	it := c.Scan(t.Context(), 0, pattern, 1000).Iterator()
	for it.Next(t.Context()) {
		n++
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestOpenBadProps(t *testing.T) {
	for _, tc := range []struct {
		name string
		kv   []string
		want string
	}{
		{"addr without port", []string{"redis.addr", "localhost"}, `test.properties:1: property redis.addr="localhost": expected host:port`},
		{"negative db", []string{"redis.db", "-1"}, `test.properties:1: property redis.db="-1": expected an integer >= 0`},
		{"bad timeout", []string{"redis.timeout", "soon"}, `property redis.timeout="soon": expected a duration`},
		{"zero timeout", []string{"redis.timeout", "0"}, `property redis.timeout="0": expected a duration > 0`},
		{"bad poolsize", []string{"redis.poolsize", "many"}, `property redis.poolsize="many": expected an integer`},
		{"unknown client", []string{"redis.client", "jedis"}, `property redis.client="jedis": expected one of go-redis, rueidis`},
		{"read_addr without port", []string{"redis.read_addr", "replica"}, `property redis.read_addr="replica": expected host:port (a replica that serves the reads)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Open(t.Context(), driver.Config{Props: drivertest.Props(tc.kv...)})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Open: %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestOpenNoServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens here now
	start := time.Now()
	_, err = Open(t.Context(), driver.Config{Props: drivertest.Props("redis.addr", addr, "redis.timeout", "1s")})
	if c := errclass.Of(err); c != errclass.Unavailable {
		t.Fatalf("Open without a server: %v (class %q), want class unavailable", err, c)
	}
	if !strings.Contains(err.Error(), addr) {
		t.Fatalf("error %q does not name the address %s", err, addr)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Fatalf("Open without a server took %v with redis.timeout=1s", took)
	}
}

// The shared server requires a password of awkward characters: a DB opened
// with it works, and neither its target nor any error it returns (a wrong
// password, no server, an outage, bad properties) shows it.
func TestTargetHidesPassword(t *testing.T) {
	for _, client := range []string{ClientGoRedis, ClientRueidis} {
		t.Run(client, func(t *testing.T) { testTargetHidesPassword(t, client) })
	}
}

func testTargetHidesPassword(t *testing.T, client string) {
	addr, props := server(t)
	pw := testenv.Need(t, "DBRIG_REDIS_PASSWORD")
	px := drivertest.NewProxies(t, addr)
	table := fmt.Sprintf("pw_%d", time.Now().UnixNano())
	dropTable(t, addr, table)
	db := open(t, props("redis.addr", px.Addrs()[0], "redis.db", "0", "redis.timeout", "500ms", "table", table, "redis.client", client))
	defer db.Close()
	if got, want := db.Target(), "redis://"+px.Addrs()[0]+"/0"; got != want {
		t.Errorf("Target = %q, want %q", got, want)
	}
	ctx := t.Context()
	if err := db.Insert(ctx, table, "k", driver.Record{"field0": []byte("v")}); err != nil {
		t.Fatalf("Insert with the password: %v", err)
	}
	var texts []string
	note := func(what string, err error) {
		if err == nil {
			t.Errorf("%s: no error", what)
			return
		}
		texts = append(texts, what+": "+err.Error())
	}

	// Without the password, or with a wrong one, the server refuses.
	_, err := Open(ctx, driver.Config{Props: drivertest.Props("redis.addr", addr, "redis.client", client)})
	note("no password", err)
	wrong := "wrong" + pw
	_, err = Open(ctx, driver.Config{Props: drivertest.Props("redis.addr", addr, "redis.password", wrong, "redis.client", client)})
	note("wrong password", err)
	if got := testenv.Leak(fmt.Sprint(err), wrong); got != "" {
		t.Errorf("the wrong password's error shows %q: %v", got, err)
	}
	// No server, and bad properties beside the password.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gone := ln.Addr().String()
	ln.Close()
	_, err = Open(ctx, driver.Config{Props: props("redis.addr", gone, "redis.timeout", "500ms", "redis.client", client)})
	note("no server", err)
	_, err = Open(ctx, driver.Config{Props: props("redis.addr", addr, "redis.db", "-1")})
	note("bad redis.db", err)
	// Every operation during an outage.
	if err := px.Down(); err != nil {
		t.Fatal(err)
	}
	_, err = db.Read(ctx, table, "k", nil)
	note("Read", err)
	_, err = db.Scan(ctx, table, "k", 2, nil)
	note("Scan", err)
	note("Update", db.Update(ctx, table, "k", driver.Record{"field0": []byte("w")}))
	note("Insert", db.Insert(ctx, table, "k2", driver.Record{"field0": []byte("w")}))
	note("InsertBatch", db.InsertBatch(ctx, table, []string{"k3"}, []driver.Record{{"field0": []byte("w")}}))
	note("Delete", db.Delete(ctx, table, "k"))
	_, err = db.ServerVersion(ctx)
	note("ServerVersion", err)
	if err := px.Up(); err != nil {
		t.Fatal(err)
	}

	all := db.Target() + "\n" + strings.Join(texts, "\n")
	if got := testenv.Leak(all, pw); got != "" {
		t.Errorf("the password shows (%q) in:\n%s", got, all)
	}
}

// redisErr is an error as the server sends it.
type redisErr string

func (e redisErr) Error() string { return string(e) }
func (redisErr) RedisError()     {}

func TestClassOf(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want errclass.Class
	}{
		{context.DeadlineExceeded, errclass.Timeout},
		{fmt.Errorf("x: %w", context.DeadlineExceeded), errclass.Timeout},
		{goredis.ErrPoolTimeout, errclass.Timeout},
		{&net.OpError{Op: "read", Net: "tcp", Err: timeoutErr{}}, errclass.Timeout},
		{&net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}, errclass.Unavailable},
		{&net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}, errclass.Unavailable},
		{io.EOF, errclass.Unavailable},
		{goredis.ErrClosed, errclass.Unavailable},
		{redisErr("LOADING Redis is loading the dataset in memory"), errclass.Unavailable},
		{redisErr("ERR max number of clients reached"), errclass.Unavailable},
		{goredis.TxFailedErr, errclass.Conflict},
		{redisErr("WRONGTYPE Operation against a key holding the wrong kind of value"), errclass.Other},
		{errors.New("something else"), errclass.Other},
	} {
		t.Run(tc.err.Error(), func(t *testing.T) {
			err := classify(tc.err)
			if got := errclass.Of(err); got != tc.want {
				t.Fatalf("class of %v = %q, want %q", tc.err, got, tc.want)
			}
			if !errors.Is(err, tc.err) {
				t.Fatalf("classify(%v) does not wrap it", tc.err)
			}
		})
	}
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

// An empty, non-nil field list reads all fields, as nil does (HMGET with no
// field would be a server error).
func TestReadEmptyFieldList(t *testing.T) {
	for _, client := range []string{ClientGoRedis, ClientRueidis} {
		t.Run(client, func(t *testing.T) { testReadEmptyFieldList(t, client) })
	}
}

func testReadEmptyFieldList(t *testing.T, client string) {
	addr, props := server(t)
	table := fmt.Sprintf("empty_%s_%d", client, time.Now().UnixNano())
	dropTable(t, addr, table)
	db := open(t, props("redis.addr", addr, "table", table, "redis.client", client))
	defer db.Close()
	rec := driver.Record{"field0": []byte("a"), "field1": []byte("b")}
	if err := db.Insert(t.Context(), table, "k", rec); err != nil {
		t.Fatal(err)
	}
	got, err := db.Read(t.Context(), table, "k", []string{})
	if err != nil || len(got) != 2 || string(got["field1"]) != "b" {
		t.Fatalf("Read with []string{} = %q, %v; want both fields", got, err)
	}
	recs, err := db.Scan(t.Context(), table, "", 5, []string{})
	if err != nil || len(recs) != 1 || len(recs[0]) != 2 {
		t.Fatalf("Scan with []string{} = %q, %v; want one record of two fields", recs, err)
	}
}

// The update modes have their documented semantics on the real server:
// both overwrite the given fields of an existing record and leave the
// others; on a missing key checked is not_found and creates nothing, hset
// creates a hash of the updated fields only, outside the scan index.
func TestUpdateModes(t *testing.T) {
	addr, props := server(t)
	for _, tc := range []struct{ mode, client string }{
		{"", ""}, {UpdateChecked, ClientGoRedis}, {UpdateHSet, ClientGoRedis}, {UpdateChecked, ClientRueidis}, {UpdateHSet, ClientRueidis},
	} {
		mode := tc.mode
		t.Run("mode="+mode+"/client="+tc.client, func(t *testing.T) {
			table := fmt.Sprintf("upd_%s_%s_%d", mode, tc.client, time.Now().UnixNano())
			dropTable(t, addr, table)
			kv := []string{"redis.addr", addr, "table", table}
			if mode != "" {
				kv = append(kv, "redis.update", mode)
			}
			if tc.client != "" {
				kv = append(kv, "redis.client", tc.client)
			}
			db := open(t, props(kv...))
			defer db.Close()
			ctx := t.Context()
			if err := db.Insert(ctx, table, "k1", driver.Record{"f0": []byte("a"), "f1": []byte("b")}); err != nil {
				t.Fatal(err)
			}
			if err := db.Update(ctx, table, "k1", driver.Record{"f1": []byte("B")}); err != nil {
				t.Fatalf("update of an existing record: %v", err)
			}
			got, err := db.Read(ctx, table, "k1", nil)
			if err != nil || string(got["f0"]) != "a" || string(got["f1"]) != "B" || len(got) != 2 {
				t.Errorf("after update: %v, %v; want f0=a f1=B", got, err)
			}

			err = db.Update(ctx, table, "missing", driver.Record{"f1": []byte("x")})
			exists, xerr := db.c.Exists(ctx, hashKey(table, "missing")).Result()
			if xerr != nil {
				t.Fatal(xerr)
			}
			if mode == UpdateHSet {
				if err != nil || exists != 1 {
					t.Errorf("hset on a missing key: err %v, key exists %d; want no error and a new hash", err, exists)
				}
				got, err := db.Read(ctx, table, "missing", nil)
				if err != nil || len(got) != 1 || string(got["f1"]) != "x" {
					t.Errorf("the hash hset created: %v, %v; want only f1=x", got, err)
				}
				recs, err := db.Scan(ctx, table, "", 10, nil)
				if err != nil || len(recs) != 1 {
					t.Errorf("scan after hset created a key: %d records, %v; want only the inserted one (the index is not touched)", len(recs), err)
				}
				return
			}
			if !errors.Is(err, errclass.ErrNotFound) || exists != 0 {
				t.Errorf("checked update of a missing key: err %v, key exists %d; want not_found and nothing created", err, exists)
			}
		})
	}
	_, err := Open(t.Context(), driver.Config{Props: props("redis.addr", addr, "redis.update", "upsert")})
	var pe *spec.PropError
	if !errors.As(err, &pe) || pe.Key != "redis.update" {
		t.Errorf("redis.update=upsert: %v, want a PropError for redis.update", err)
	}
}
