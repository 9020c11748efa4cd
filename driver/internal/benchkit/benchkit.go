// Package benchkit holds the Go benchmark loops the drivers share, so their
// figures compare: YCSB-shaped records (fieldcount 10, 100-byte values),
// point reads by many goroutines, and bulk load with and without batching.
package benchkit

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/dbrig/dbrig/driver"
)

// Fields and ValueLen shape the records (YCSB's defaults).
const (
	Fields   = 10
	ValueLen = 100
)

// Key is the i-th key, as YCSB's ordered inserts name them.
func Key(i int) string { return fmt.Sprintf("user%010d", i) }

// Record is a full record with deterministic contents.
func Record(i int) driver.Record {
	r := make(driver.Record, Fields)
	for f := range Fields {
		v := make([]byte, ValueLen)
		for j := range v {
			v[j] = byte('a' + (i+f+j)%26)
		}
		r[fmt.Sprintf("field%d", f)] = v
	}
	return r
}

// Records returns the keys and records 0..n-1, built up front so a
// benchmark measures the driver, not the generator.
func Records(n int) ([]string, []driver.Record) {
	keys := make([]string, n)
	recs := make([]driver.Record, n)
	for i := range keys {
		keys[i], recs[i] = Key(i), Record(i)
	}
	return keys, recs
}

// Fill inserts records 0..n-1 in batches of batch.
func Fill(ctx context.Context, db driver.BatchInserter, table string, n, batch int) error {
	keys := make([]string, 0, batch)
	vals := make([]driver.Record, 0, batch)
	for i := 0; i < n; i++ {
		keys, vals = append(keys, Key(i)), append(vals, Record(i))
		if len(keys) == batch || i == n-1 {
			if err := db.InsertBatch(ctx, table, keys, vals); err != nil {
				return err
			}
			keys, vals = keys[:0], vals[:0]
		}
	}
	return nil
}

// Parallel runs b.N calls of op, numbered 0..b.N-1, spread over clients
// goroutines; the first error fails b and stops that goroutine. It reports
// ops/s and cpu-µs/op (see ParallelEach).
func Parallel(b *testing.B, clients int, op func(i int) error) {
	ParallelEach(b, clients, func(int) (func(int) error, func()) { return op, nil })
}

// ParallelEach is Parallel with one operation per client: mk(c) builds
// client c's op and its cleanup (run when b ends; nil for none). Besides
// ops/s it reports cpu-µs/op, the whole process's user+system CPU
// (getrusage) per operation: steadier than ops/s on a noisy machine, and
// the figure to compare with a peer's client.
func ParallelEach(b *testing.B, clients int, mk func(c int) (op func(i int) error, done func())) {
	ops := make([]func(int) error, clients)
	for c := range ops {
		op, done := mk(c)
		ops[c] = op
		if done != nil {
			b.Cleanup(done)
		}
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	before := cpuTime(b)
	b.ResetTimer()
	for _, op := range ops {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= b.N {
					return
				}
				if err := op(i); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
	b.ReportMetric(float64(cpuTime(b)-before)/1e3/float64(b.N), "cpu-µs/op")
}

func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// DB is a driver with bulk load.
type DB interface {
	driver.DB
	driver.BatchInserter
}

// Ops loads n records into table, then measures Read, Update of one field,
// Insert (overwriting) and, with scans, Scan of 100 records, each by 1 and
// by 16 clients, as sub-benchmarks op/clients=N. Operation i uses key i mod
// n, so concurrent updates hit different keys: no conflicts by construction
// (drivers that detect them would fail the benchmark). It returns the keys.
func Ops(b *testing.B, db DB, table string, n int, scans bool) []string {
	ctx := context.Background()
	keys, recs := Records(n)
	if err := db.InsertBatch(ctx, table, keys, recs); err != nil {
		b.Fatal(err)
	}
	upd := driver.Record{"field3": bytes.Repeat([]byte("u"), ValueLen)}
	for _, clients := range []int{1, 16} {
		b.Run(fmt.Sprintf("read/clients=%d", clients), func(b *testing.B) {
			Parallel(b, clients, func(i int) error { _, err := db.Read(ctx, table, keys[i%n], nil); return err })
		})
		b.Run(fmt.Sprintf("update/clients=%d", clients), func(b *testing.B) {
			Parallel(b, clients, func(i int) error { return db.Update(ctx, table, keys[i%n], upd) })
		})
		b.Run(fmt.Sprintf("insert/clients=%d", clients), func(b *testing.B) {
			Parallel(b, clients, func(i int) error { return db.Insert(ctx, table, keys[i%n], recs[i%n]) })
		})
		if scans {
			b.Run(fmt.Sprintf("scan100/clients=%d", clients), func(b *testing.B) {
				Parallel(b, clients, func(i int) error { _, err := db.Scan(ctx, table, keys[i%n], 100, nil); return err })
			})
		}
	}
	return keys
}

// PointReads loads n records into table and runs Reads of all fields and of
// one field, by 1 and by 16 clients, as sub-benchmarks.
func PointReads(b *testing.B, db DB, table string, n int) {
	if err := Fill(context.Background(), db, table, n, 1000); err != nil {
		b.Fatal(err)
	}
	for _, clients := range []int{1, 16} {
		b.Run(fmt.Sprintf("all-fields/clients=%d", clients), func(b *testing.B) {
			Reads(b, db, table, n, clients, nil)
		})
		b.Run(fmt.Sprintf("one-field/clients=%d", clients), func(b *testing.B) {
			Reads(b, db, table, n, clients, []string{"field0"})
		})
	}
}

// Reads measures point reads of random keys among n loaded records by
// clients goroutines; fields nil reads the whole record. It reports ops/s.
func Reads(b *testing.B, db driver.DB, table string, n, clients int, fields []string) {
	ctx := context.Background()
	var next atomic.Int64
	var failed atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(c), 42))
			for next.Add(1) <= int64(b.N) {
				if _, err := db.Read(ctx, table, Key(rng.IntN(n)), fields); err != nil {
					if failed.Add(1) == 1 {
						b.Error(err)
					}
				}
			}
		}()
	}
	wg.Wait()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "ops/s")
}

// Load measures loading b.N records: batch 1 inserts one record per
// Insert call from clients goroutines; batch > 1 uses InsertBatch
// from clients goroutines, each with its own key range. It reports records/s.
func Load(b *testing.B, db driver.DB, table string, clients, batch int) {
	ctx := context.Background()
	recs := make([]driver.Record, 1000) // built up front: measure the driver, not the generator
	for i := range recs {
		recs[i] = Record(i)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			keys := make([]string, 0, batch)
			vals := make([]driver.Record, 0, batch)
			for {
				first := int(next.Add(int64(batch))) - batch
				if first >= b.N {
					return
				}
				last := min(first+batch, b.N)
				if batch == 1 {
					if err := db.Insert(ctx, table, Key(first), recs[first%len(recs)]); err != nil {
						b.Error(err)
						return
					}
					continue
				}
				keys, vals = keys[:0], vals[:0]
				for i := first; i < last; i++ {
					keys, vals = append(keys, Key(i)), append(vals, recs[i%len(recs)])
				}
				if err := db.(driver.BatchInserter).InsertBatch(ctx, table, keys, vals); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "records/s")
}
