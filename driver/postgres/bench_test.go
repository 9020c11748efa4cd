package postgres

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

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
