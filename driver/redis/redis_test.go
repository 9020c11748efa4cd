package redis

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
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

// dropTable removes what a test wrote, through a connection of its own.
func dropTable(t testing.TB, addr, table string) {
	t.Helper()
	t.Cleanup(func() {
		db := open(t, drivertest.Props("redis.addr", addr, "table", table))
		defer db.Close()
		if err := db.Reset(context.Background()); err != nil {
			t.Errorf("Reset %s: %v", table, err)
		}
	})
}

func TestConformance(t *testing.T) {
	addr := testenv.Need(t, "DBRIG_REDIS_ADDR")
	px := drivertest.NewProxies(t, addr)
	drivertest.Run(t, drivertest.Harness{
		Open: func(t *testing.T, table string) driver.DB {
			dropTable(t, addr, table)
			return open(t, drivertest.Props("redis.addr", px.Addrs()[0], "redis.timeout", "1s", "table", table))
		},
		Outage:  px,
		Timeout: time.Second,
	})
}

func TestReset(t *testing.T) {
	addr := testenv.Need(t, "DBRIG_REDIS_ADDR")
	table := fmt.Sprintf("reset_%d", time.Now().UnixNano())
	db := open(t, drivertest.Props("redis.addr", addr, "table", table))
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

func TestTargetHidesPassword(t *testing.T) {
	d := &DB{addr: "127.0.0.1:16379", db: 3}
	if got, want := d.Target(), "redis://127.0.0.1:16379/3"; got != want {
		t.Fatalf("Target = %q, want %q", got, want)
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
	addr := testenv.Need(t, "DBRIG_REDIS_ADDR")
	table := fmt.Sprintf("empty_%d", time.Now().UnixNano())
	dropTable(t, addr, table)
	db := open(t, drivertest.Props("redis.addr", addr, "table", table))
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
