package hazelcast

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	hz "github.com/hazelcast/hazelcast-go-client"
	"github.com/hazelcast/hazelcast-go-client/logger"

	"github.com/dbrig/dbrig/driver/internal/benchkit"
)

// Benchmarks against the cluster of scripts/test-servers, e.g.
//
//	eval "$(scripts/test-servers up hazelcast)"
//	go test -run '^$' -bench . -benchtime 20000x ./driver/hazelcast/
//
// Records are YCSB-sized: 10 fields of 100 bytes. The driver runs with its
// defaults (smart routing).

const benchKeys = 1000

// BenchmarkDriver measures the dbrig driver's operations.
func BenchmarkDriver(b *testing.B) {
	db := openT(b, strings.Join(addrList(b), ","), "hazelcast.scan", "index")
	b.Cleanup(func() { db.Close() })
	keys := benchkit.Ops(b, db, "t", benchKeys, false)
	// Scan with hazelcast.scan=index fetches every key after startKey: with
	// 1000 records that is 500 keys per scan on average.
	b.Run("scan100/clients=16", func(b *testing.B) {
		benchkit.Parallel(b, 16, func(i int) error {
			_, err := db.Scan(context.Background(), "t", keys[i%benchKeys], 100, nil)
			return err
		})
	})
}

// BenchmarkNative is the plain Go client loop to compare with: Get and Set
// of a 1 KB byte array on an IMap, smart routing, no encoding.
func BenchmarkNative(b *testing.B) {
	cfg := hz.NewConfig()
	cfg.Cluster.Name = "dbrig"
	cfg.Cluster.Network.SetAddresses(addrList(b)...)
	cfg.Logger.Level = logger.ErrorLevel
	ctx := context.Background()
	cli, err := hz.StartNewClientWithConfig(ctx, cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer cli.Shutdown(ctx)
	m, err := cli.GetMap(ctx, fmt.Sprintf("dbrig-test.native.%d", time.Now().UnixNano()))
	if err != nil {
		b.Fatal(err)
	}
	defer m.Destroy(ctx)
	val := []byte(strings.Repeat("v", 1000))
	for i := range benchKeys {
		if err := m.Set(ctx, benchkit.Key(i), val); err != nil {
			b.Fatal(err)
		}
	}
	for _, clients := range []int{1, 16} {
		b.Run(fmt.Sprintf("get/clients=%d", clients), func(b *testing.B) {
			benchkit.Parallel(b, clients, func(i int) error { _, err := m.Get(ctx, benchkit.Key(i%benchKeys)); return err })
		})
		b.Run(fmt.Sprintf("set/clients=%d", clients), func(b *testing.B) {
			benchkit.Parallel(b, clients, func(i int) error { return m.Set(ctx, benchkit.Key(i%benchKeys), val) })
		})
	}
}

// BenchmarkLoad loads b.N fresh records with 16 clients, one Set per record
// or PutAll of hazelcast.batchsize records (-benchtime 200000x loads 200 k).
func BenchmarkLoad(b *testing.B) {
	addrs := strings.Join(addrList(b), ",")
	for _, tc := range []struct {
		mode  string
		batch int // records per InsertBatch; 1: Insert
	}{{"single", 1}, {"batch", 1000}} {
		b.Run(tc.mode, func(b *testing.B) {
			db := openT(b, addrs)
			b.Cleanup(func() { db.Close() })
			benchkit.Load(b, db, "t", 16, tc.batch)
		})
	}
}
