package mysql

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/dbrig/dbrig/driver/internal/benchkit"
)

// Point reads by 1 and 16 clients over 100k records:
//
//	go test -run '^$' -bench Reads ./driver/mysql/
func BenchmarkReads(b *testing.B) {
	db := open(b, "mysql.dsn="+testDSN(b), "mysql.poolsize=16")
	benchkit.PointReads(b, db, "usertable", 100_000)
}

var loadSeq atomic.Int64

// Bulk load with and without batching; -benchtime sets the record count:
//
//	go test -run '^$' -bench Load -benchtime 200000x ./driver/mysql/
func BenchmarkLoad(b *testing.B) {
	dsn := testDSN(b)
	for _, tc := range []struct {
		name           string
		batch, clients int
	}{
		{"insert-each/clients=1", 1, 1},
		{"insert-each/clients=8", 1, 8},
		{"batch1000/clients=1", 1000, 1},
		{"batch1000/clients=4", 1000, 4},
	} {
		b.Run(tc.name, func(b *testing.B) {
			db := open(b, "mysql.dsn="+dsn, "mysql.poolsize=8")
			table := fmt.Sprintf("load%d", loadSeq.Add(1))
			b.Cleanup(func() { db.pool.Exec("DROP TABLE IF EXISTS " + table) })
			benchkit.Load(b, db, table, tc.clients, tc.batch)
		})
	}
}
