package sqlite

import (
	"testing"

	"github.com/dbrig/dbrig/driver/internal/benchkit"
)

// Point reads by 1 and 16 clients over 100k records:
//
//	go test -run '^$' -bench Reads ./driver/sqlite/
func BenchmarkReads(b *testing.B) {
	db := open(b, b.TempDir(), "sqlite.poolsize=16")
	benchkit.PointReads(b, db, "usertable", 100_000)
}

// Bulk load with and without batching; -benchtime sets the record count:
//
//	go test -run '^$' -bench Load -benchtime 200000x ./driver/sqlite/
func BenchmarkLoad(b *testing.B) {
	for _, tc := range []struct {
		name           string
		batch, clients int
	}{
		{"insert-each/clients=1", 1, 1},
		{"insert-each/clients=8", 1, 8},
		{"batch1000/clients=1", 1000, 1},
	} {
		b.Run(tc.name, func(b *testing.B) {
			db := open(b, b.TempDir()) // a fresh file per run
			benchkit.Load(b, db, "usertable", tc.clients, tc.batch)
		})
	}
}
