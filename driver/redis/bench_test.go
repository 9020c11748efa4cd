package redis

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dbrig/dbrig/driver"
)

// benchClients is the number of concurrent clients of the benchmarks; the
// same as redis-benchmark -c 50 (SetParallelism multiplies GOMAXPROCS).
const benchClients = 50

// ycsbRecord is YCSB's default record: 10 fields of 100 bytes.
func ycsbRecord() driver.Record {
	r := make(driver.Record, 10)
	for i := range 10 {
		r["field"+strconv.Itoa(i)] = bytes.Repeat([]byte{'a' + byte(i)}, 100)
	}
	return r
}

func benchDB(b *testing.B, table string) *DB {
	addr, props := server(b)
	db := open(b, props("redis.addr", addr, "redis.poolsize", strconv.Itoa(benchClients), "table", table))
	b.Cleanup(func() {
		if err := db.Reset(context.Background()); err != nil {
			b.Errorf("Reset: %v", err)
		}
		db.Close()
	})
	return db
}

// runtimeProcs is what SetParallelism multiplies.
func runtimeProcs() int { return runtime.GOMAXPROCS(0) }

// BenchmarkOps runs each operation from benchClients goroutines against
// 10 000 preloaded YCSB records; compare with
// redis-benchmark -p 16379 -c 50 -n 200000 -d 100 -t get,set,hset.
func BenchmarkOps(b *testing.B) {
	const records = 10_000
	table := fmt.Sprintf("bench_%d", time.Now().UnixNano())
	db := benchDB(b, table)
	ctx := context.Background()
	keys := make([]string, records)
	recs := make([]driver.Record, records)
	for i := range keys {
		keys[i] = fmt.Sprintf("user%08d", i)
		recs[i] = ycsbRecord()
	}
	for i := 0; i < records; i += 1000 {
		if err := db.InsertBatch(ctx, table, keys[i:i+1000], recs[i:i+1000]); err != nil {
			b.Fatal(err)
		}
	}
	var inserted atomic.Int64
	value := bytes.Repeat([]byte("u"), 100)
	for _, bc := range []struct {
		name string
		op   func(r *rand.Rand) error
	}{
		{"RawGET", func(r *rand.Rand) error { // go-redis alone: the floor
			return db.c.Get(ctx, "bench-raw").Err()
		}},
		{"ReadAll", func(r *rand.Rand) error {
			_, err := db.Read(ctx, table, keys[r.IntN(records)], nil)
			return err
		}},
		{"ReadOne", func(r *rand.Rand) error {
			_, err := db.Read(ctx, table, keys[r.IntN(records)], []string{"field3"})
			return err
		}},
		{"UpdateOne", func(r *rand.Rand) error {
			return db.Update(ctx, table, keys[r.IntN(records)], driver.Record{"field3": value})
		}},
		{"Insert", func(r *rand.Rand) error {
			k := fmt.Sprintf("new%012d", inserted.Add(1))
			return db.Insert(ctx, table, k, recs[0])
		}},
		{"Scan10", func(r *rand.Rand) error {
			_, err := db.Scan(ctx, table, keys[r.IntN(records)], 10, nil)
			return err
		}},
	} {
		if bc.name == "RawGET" {
			if err := db.c.Set(ctx, "bench-raw", value, 0).Err(); err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { db.c.Del(context.Background(), "bench-raw") })
		}
		b.Run(bc.name, func(b *testing.B) {
			b.SetParallelism(benchClients / runtimeProcs())
			var seed atomic.Uint64
			b.RunParallel(func(pb *testing.PB) {
				r := rand.New(rand.NewPCG(seed.Add(1), 0))
				for pb.Next() {
					if err := bc.op(r); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}

// BenchmarkLoad inserts YCSB records from 8 clients, one record per b.N,
// with InsertBatch of the given size (1 = Insert); run it with e.g.
// -benchtime=200000x to load 200 k records per size.
func BenchmarkLoad(b *testing.B) {
	const clients = 8
	for _, size := range []int{1, 100, 1000} {
		b.Run("batch="+strconv.Itoa(size), func(b *testing.B) {
			table := fmt.Sprintf("load_%d", time.Now().UnixNano())
			db := benchDB(b, table)
			ctx := context.Background()
			rec := ycsbRecord()
			var next atomic.Int64
			b.SetParallelism(max(1, clients/runtimeProcs()))
			start := time.Now()
			b.RunParallel(func(pb *testing.PB) {
				keys := make([]string, 0, size)
				recs := make([]driver.Record, 0, size)
				flush := func() bool {
					var err error
					if size == 1 {
						err = db.Insert(ctx, table, keys[0], recs[0])
					} else {
						err = db.InsertBatch(ctx, table, keys, recs)
					}
					keys, recs = keys[:0], recs[:0]
					if err != nil {
						b.Error(err)
						return false
					}
					return true
				}
				for pb.Next() {
					keys = append(keys, fmt.Sprintf("user%012d", next.Add(1)))
					recs = append(recs, rec)
					if len(keys) == size && !flush() {
						return
					}
				}
				if len(keys) > 0 {
					flush()
				}
			})
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "records/s")
		})
	}
}
