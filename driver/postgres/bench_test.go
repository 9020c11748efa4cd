package postgres

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/dbrig/dbrig/driver/internal/benchkit"
)

// Point reads, as pgbench -S does, by 1 and 16 clients over 100k records:
//
//	go test -run '^$' -bench Reads ./driver/postgres/
func BenchmarkReads(b *testing.B) {
	db := open(b, "pg.url="+schemaURL(b), "pg.poolsize=16")
	benchkit.PointReads(b, db, "usertable", 100_000)
}

var loadSeq atomic.Int64

// Bulk load with and without batching; -benchtime sets the record count:
//
//	go test -run '^$' -bench Load -benchtime 200000x ./driver/postgres/
func BenchmarkLoad(b *testing.B) {
	url := schemaURL(b)
	for _, tc := range []struct {
		name           string
		batch, clients int
		mode           string
	}{
		{"insert-each/clients=1", 1, 1, "copy"},
		{"insert-each/clients=8", 1, 8, "copy"},
		{"batch1000-insert/clients=1", 1000, 1, "insert"},
		{"batch1000-copy/clients=1", 1000, 1, "copy"},
		{"batch1000-copy/clients=4", 1000, 4, "copy"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			db := open(b, "pg.url="+url, "pg.batch="+tc.mode, "pg.poolsize=8")
			table := fmt.Sprintf("load%d", loadSeq.Add(1))
			b.Cleanup(func() { db.pool.Exec(context.Background(), "DROP TABLE IF EXISTS "+table) })
			benchkit.Load(b, db, table, tc.clients, tc.batch)
		})
	}
}

// The driver's client CPU per point read against the floor of the same
// library: goroutines that each own a pgx.Conn and scan a prepared SELECT of
// the whole record into byte slices (no pool, no record map, no timeout);
// pgconn (the protocol level: ExecStatement, raw row values); frontend
// (pgconn's message encoder and decoder alone); and wire, a hand-built
// Bind+Execute+Sync on the hijacked socket (wire_test.go): what is left there
// is Go's runtime and the kernel's.
// cpu-µs/op is the process's user+system CPU per read (getrusage), the
// figure that matters when client and server share the cores:
//
//	go test -run '^$' -bench ReadFloor -benchtime 20000x ./driver/postgres/
func BenchmarkReadFloor(b *testing.B) {
	const n = 10_000
	url := schemaURL(b)
	db := open(b, "pg.url="+url, "pg.poolsize=16")
	db0 := open(b, "pg.url="+url, "pg.poolsize=16", "pg.timeout=0")
	if err := benchkit.Fill(context.Background(), db, "usertable", n, 1000); err != nil {
		b.Fatal(err)
	}
	keys := make([]string, n)
	for i := range keys {
		keys[i] = benchkit.Key(i)
	}
	ctx := context.Background()
	for _, clients := range []int{1, 16} {
		b.Run(fmt.Sprintf("driver/clients=%d", clients), func(b *testing.B) {
			benchkit.ParallelEach(b, clients, func(int) (func(i int) error, func()) {
				return func(i int) error { _, err := db.Read(ctx, "usertable", keys[i%n], nil); return err }, func() {}
			})
		})
		b.Run(fmt.Sprintf("driver-runctx/clients=%d", clients), func(b *testing.B) {
			// Under a cancellable context, as a run's clients call the driver.
			run, cancel := context.WithCancel(ctx)
			defer cancel()
			benchkit.ParallelEach(b, clients, func(int) (func(i int) error, func()) {
				return func(i int) error { _, err := db.Read(run, "usertable", keys[i%n], nil); return err }, func() {}
			})
		})
		b.Run(fmt.Sprintf("driver-notimeout/clients=%d", clients), func(b *testing.B) {
			benchkit.ParallelEach(b, clients, func(int) (func(i int) error, func()) {
				return func(i int) error { _, err := db0.Read(ctx, "usertable", keys[i%n], nil); return err }, func() {}
			})
		})
		b.Run(fmt.Sprintf("pgx-conn-timeout/clients=%d", clients), func(b *testing.B) {
			sql := "SELECT field0, field1, field2, field3, field4, field5, field6, field7, field8, field9 FROM usertable WHERE ycsb_key = $1"
			benchkit.ParallelEach(b, clients, func(int) (func(i int) error, func()) {
				c, err := pgx.Connect(ctx, url)
				if err != nil {
					b.Fatal(err)
				}
				var vals [10][]byte
				dst := make([]any, len(vals))
				for j := range vals {
					dst[j] = &vals[j]
				}
				return func(i int) error {
					ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
					defer cancel()
					return c.QueryRow(ctx, sql, keys[i%n]).Scan(dst...)
				}, func() { c.Close(ctx) }
			})
		})
		b.Run(fmt.Sprintf("pgx-conn/clients=%d", clients), func(b *testing.B) {
			sql := "SELECT field0, field1, field2, field3, field4, field5, field6, field7, field8, field9 FROM usertable WHERE ycsb_key = $1"
			benchkit.ParallelEach(b, clients, func(int) (func(i int) error, func()) {
				c, err := pgx.Connect(ctx, url)
				if err != nil {
					b.Fatal(err)
				}
				var vals [10][]byte
				dst := make([]any, len(vals))
				for j := range vals {
					dst[j] = &vals[j]
				}
				return func(i int) error { return c.QueryRow(ctx, sql, keys[i%n]).Scan(dst...) }, func() { c.Close(ctx) }
			})
		})
		b.Run(fmt.Sprintf("pgconn/clients=%d", clients), func(b *testing.B) {
			benchkit.ParallelEach(b, clients, func(int) (func(i int) error, func()) {
				c, err := pgconn.Connect(ctx, url)
				if err != nil {
					b.Fatal(err)
				}
				sd, err := c.Prepare(ctx, "floor", floorSQL, nil)
				if err != nil {
					b.Fatal(err)
				}
				params := make([][]byte, 1)
				formats := []int16{pgx.BinaryFormatCode}
				return func(i int) error {
					params[0] = []byte(keys[i%n])
					rr := c.ExecStatement(ctx, sd, params, nil, formats)
					vals := 0
					for rr.NextRow() {
						vals += len(rr.Values())
					}
					if _, err := rr.Close(); err != nil {
						return err
					}
					if vals != benchkit.Fields {
						return fmt.Errorf("key %s: %d values", keys[i%n], vals)
					}
					return nil
				}, func() { c.Close(ctx) }
			})
		})
		b.Run(fmt.Sprintf("frontend/clients=%d", clients), func(b *testing.B) {
			benchkit.ParallelEach(b, clients, func(int) (func(i int) error, func()) {
				c, err := pgconn.Connect(ctx, url)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := c.Prepare(ctx, "floor", floorSQL, nil); err != nil {
					b.Fatal(err)
				}
				f := c.Frontend()
				bind := &pgproto3.Bind{PreparedStatement: "floor", Parameters: make([][]byte, 1), ResultFormatCodes: []int16{pgx.BinaryFormatCode}}
				return func(i int) error {
					bind.Parameters[0] = []byte(keys[i%n])
					f.SendBind(bind)
					f.SendExecute(&pgproto3.Execute{})
					f.SendSync(&pgproto3.Sync{})
					if err := f.Flush(); err != nil {
						return err
					}
					vals := 0
					for {
						m, err := f.Receive()
						if err != nil {
							return err
						}
						switch m := m.(type) {
						case *pgproto3.DataRow:
							vals += len(m.Values)
						case *pgproto3.ErrorResponse:
							return fmt.Errorf("key %s: %s", keys[i%n], m.Message)
						case *pgproto3.ReadyForQuery:
							if vals != benchkit.Fields {
								return fmt.Errorf("key %s: %d values", keys[i%n], vals)
							}
							return nil
						}
					}
				}, func() { c.Close(ctx) }
			})
		})
		b.Run(fmt.Sprintf("wire/clients=%d", clients), func(b *testing.B) {
			benchkit.ParallelEach(b, clients, func(int) (func(i int) error, func()) {
				w, err := dialWire(ctx, url)
				if err != nil {
					b.Fatal(err)
				}
				return func(i int) error { return w.read(keys[i%n]) }, func() { w.close() }
			})
		})
	}
}

// floorSQL is the whole-record read of the floors below the driver.
const floorSQL = "SELECT field0, field1, field2, field3, field4, field5, field6, field7, field8, field9 FROM usertable WHERE ycsb_key = $1"
