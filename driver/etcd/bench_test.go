package etcd

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/dbrig/dbrig/driver"
)

// Benchmarks against the cluster of scripts/servers/etcd.sh, e.g.
//
//	eval "$(scripts/servers/etcd.sh env)"
//	go test -run '^$' -bench . -benchtime 20000x ./driver/etcd/
//
// Records are YCSB-sized: 10 fields of 100 bytes.

const benchKeys = 1000

func benchRecord(i int) driver.Record {
	r := make(driver.Record, 10)
	for f := range 10 {
		r["field"+strconv.Itoa(f)] = []byte(strings.Repeat(strconv.Itoa((i+f)%10), 100))
	}
	return r
}

func benchKey(i int) string { return fmt.Sprintf("user%010d", i) }

// parallel runs b.N calls of op spread over clients goroutines.
func parallel(b *testing.B, clients int, op func(i int) error) {
	var next atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	for range clients {
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
}

// BenchmarkDriver measures the dbrig driver's operations.
func BenchmarkDriver(b *testing.B) {
	eps := strings.Join(endpointList(b), ",")
	db := openT(b, eps)
	ctx := context.Background()
	keys := make([]string, benchKeys)
	recs := make([]driver.Record, benchKeys)
	for i := range keys {
		keys[i], recs[i] = benchKey(i), benchRecord(i)
	}
	if err := db.InsertBatch(ctx, "t", keys, recs); err != nil {
		b.Fatal(err)
	}
	upd := driver.Record{"field3": []byte(strings.Repeat("u", 100))}
	for _, clients := range []int{1, 16} {
		b.Run(fmt.Sprintf("read/clients=%d", clients), func(b *testing.B) {
			parallel(b, clients, func(i int) error { _, err := db.Read(ctx, "t", keys[i%benchKeys], nil); return err })
		})
		b.Run(fmt.Sprintf("update/clients=%d", clients), func(b *testing.B) {
			// Each client updates its own keys: no conflicts by construction.
			parallel(b, clients, func(i int) error { return db.Update(ctx, "t", keys[i%benchKeys], upd) })
		})
		b.Run(fmt.Sprintf("insert/clients=%d", clients), func(b *testing.B) {
			parallel(b, clients, func(i int) error { return db.Insert(ctx, "t", keys[i%benchKeys], recs[i%benchKeys]) })
		})
		b.Run(fmt.Sprintf("scan100/clients=%d", clients), func(b *testing.B) {
			parallel(b, clients, func(i int) error { _, err := db.Scan(ctx, "t", keys[i%benchKeys], 100, nil); return err })
		})
	}
}

// BenchmarkNative is the plain etcd client loop to compare with: Get and
// Put of a 1 KB value, no encoding, no per-operation timeout.
func BenchmarkNative(b *testing.B) {
	cli, err := clientv3.New(clientv3.Config{Endpoints: endpointList(b), DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		b.Fatal(err)
	}
	defer cli.Close()
	prefix := fmt.Sprintf("dbrig-test/native-%d/", time.Now().UnixNano())
	defer cli.Delete(context.Background(), prefix, clientv3.WithPrefix())
	ctx := context.Background()
	val := strings.Repeat("v", 1000)
	for i := range benchKeys {
		if _, err := cli.Put(ctx, prefix+benchKey(i), val); err != nil {
			b.Fatal(err)
		}
	}
	for _, clients := range []int{1, 16} {
		b.Run(fmt.Sprintf("get/clients=%d", clients), func(b *testing.B) {
			parallel(b, clients, func(i int) error { _, err := cli.Get(ctx, prefix+benchKey(i%benchKeys)); return err })
		})
		b.Run(fmt.Sprintf("put/clients=%d", clients), func(b *testing.B) {
			parallel(b, clients, func(i int) error { _, err := cli.Put(ctx, prefix+benchKey(i%benchKeys), val); return err })
		})
	}
}

// BenchmarkLoad loads b.N fresh records with 16 clients, one record per
// Insert or etcd.batchsize records per InsertBatch (-benchtime 200000x loads
// 200 k records).
func BenchmarkLoad(b *testing.B) {
	eps := strings.Join(endpointList(b), ",")
	const clients, chunk = 16, 1000
	for _, mode := range []string{"single", "batch"} {
		b.Run(mode, func(b *testing.B) {
			db := openT(b, eps)
			ctx := context.Background()
			chunks := (b.N + chunk - 1) / chunk
			recs := make([]driver.Record, chunk)
			for i := range recs {
				recs[i] = benchRecord(i)
			}
			var next atomic.Int64
			var wg sync.WaitGroup
			b.ResetTimer()
			for range clients {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for {
						c := int(next.Add(1) - 1)
						if c >= chunks {
							return
						}
						lo, hi := c*chunk, min((c+1)*chunk, b.N)
						keys := make([]string, hi-lo)
						for i := range keys {
							keys[i] = benchKey(lo + i)
						}
						var err error
						if mode == "batch" {
							err = db.InsertBatch(ctx, "t", keys, recs[:len(keys)])
						} else {
							for i, k := range keys {
								if err = db.Insert(ctx, "t", k, recs[i]); err != nil {
									break
								}
							}
						}
						if err != nil {
							b.Error(err)
							return
						}
					}
				}()
			}
			wg.Wait()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
		})
	}
}
