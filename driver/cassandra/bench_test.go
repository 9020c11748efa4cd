package cassandra

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/internal/testenv"
)

// BenchmarkWorkloadA is YCSB's workload A on 1,000 keys: half reads of every
// field, half updates of one, from 2, 4 and 16 goroutines (with
// GOMAXPROCS=2; the parallelism is per P).
func BenchmarkWorkloadA(b *testing.B) {
	hosts := testenv.Need(b, "DBRIG_HOSTS")
	table := fmt.Sprintf("bench_%d", time.Now().UnixNano()%1e9)
	db := openT(b, hosts, table)
	ctx := context.Background()
	val := make([]byte, 100)
	rec := driver.Record{}
	for _, f := range db.fields {
		rec[f] = val
	}
	const keys = 1000
	for i := range keys {
		if err := db.Insert(ctx, table, "user"+strconv.Itoa(i), rec); err != nil {
			b.Fatal(err)
		}
	}
	for _, par := range []int{1, 2, 8} {
		b.Run("par"+strconv.Itoa(par), func(b *testing.B) {
			b.ReportAllocs()
			b.SetParallelism(par)
			workloadA(b, db, table, val, keys)
		})
	}
}

func workloadA(b *testing.B, db *DB, table string, val []byte, keys int) {
	ctx := context.Background()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			i++
			key := "user" + strconv.Itoa(i*7919%keys)
			var err error
			if i%2 == 0 {
				_, err = db.Read(ctx, table, key, nil)
			} else {
				err = db.Update(ctx, table, key, driver.Record{"field3": val})
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	})
}
