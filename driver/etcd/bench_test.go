package etcd

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/dbrig/dbrig/driver/internal/benchkit"
)

// Benchmarks against the cluster of scripts/test-servers, e.g.
//
//	eval "$(scripts/test-servers up etcd)"
//	go test -run '^$' -bench . -benchtime 20000x ./driver/etcd/
//
// Records are YCSB-sized: 10 fields of 100 bytes.

const benchKeys = 1000

// BenchmarkDriver measures the dbrig driver's operations.
func BenchmarkDriver(b *testing.B) {
	eps := strings.Join(endpointList(b), ",")
	db := openT(b, eps)
	benchkit.Ops(b, db, "t", benchKeys, true)
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
		if _, err := cli.Put(ctx, prefix+benchkit.Key(i), val); err != nil {
			b.Fatal(err)
		}
	}
	for _, clients := range []int{1, 16} {
		b.Run(fmt.Sprintf("get/clients=%d", clients), func(b *testing.B) {
			benchkit.Parallel(b, clients, func(i int) error { _, err := cli.Get(ctx, prefix+benchkit.Key(i%benchKeys)); return err })
		})
		b.Run(fmt.Sprintf("put/clients=%d", clients), func(b *testing.B) {
			benchkit.Parallel(b, clients, func(i int) error { _, err := cli.Put(ctx, prefix+benchkit.Key(i%benchKeys), val); return err })
		})
	}
}

// BenchmarkLoad loads b.N fresh records with 16 clients, one record per
// Insert or etcd.batchsize records per InsertBatch (-benchtime 200000x loads
// 200 k records).
func BenchmarkLoad(b *testing.B) {
	eps := strings.Join(endpointList(b), ",")
	for _, tc := range []struct {
		mode  string
		batch int // records per InsertBatch; 1: Insert
	}{{"single", 1}, {"batch", 1000}} {
		b.Run(tc.mode, func(b *testing.B) {
			db := openT(b, eps)
			benchkit.Load(b, db, "t", 16, tc.batch)
		})
	}
}
