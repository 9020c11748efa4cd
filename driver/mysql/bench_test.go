package mysql

import (
	"context"
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

// The driver's client CPU per point read against the floor of the same
// library, 16 clients: database/sql with a prepared statement, under a
// context that cannot be cancelled (go-sql-driver then skips its watcher)
// and under a cancellable one (the runner's: each query hands the context
// to the connection's watcher goroutine and back, two goroutine wake-ups).
//
//	go test -run '^$' -bench ReadFloor -benchtime 20000x ./driver/mysql/
func BenchmarkReadFloor(b *testing.B) {
	const n = 10_000
	dsn := testDSN(b)
	db := open(b, "mysql.dsn="+dsn, "mysql.poolsize=16")
	if err := benchkit.Fill(context.Background(), db, "usertable", n, 1000); err != nil {
		b.Fatal(err)
	}
	keys := make([]string, n)
	for i := range keys {
		keys[i] = benchkit.Key(i)
	}
	cancellable, cancel := context.WithCancel(context.Background())
	defer cancel()
	st, err := db.pool.Prepare("SELECT field0, field1, field2, field3, field4, field5, field6, field7, field8, field9 FROM usertable WHERE ycsb_key = ?")
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	raw := func(ctx context.Context) func(i int) error {
		return func(i int) error {
			var vals [10][]byte
			return st.QueryRowContext(ctx, keys[i%n]).Scan(&vals[0], &vals[1], &vals[2], &vals[3], &vals[4], &vals[5], &vals[6], &vals[7], &vals[8], &vals[9])
		}
	}
	for _, tc := range []struct {
		name string
		op   func(i int) error
	}{
		{"driver", func(i int) error { _, err := db.Read(cancellable, "usertable", keys[i%n], nil); return err }},
		{"driver-uncancellable-ctx", func(i int) error { _, err := db.Read(context.Background(), "usertable", keys[i%n], nil); return err }},
		{"sql-stmt-cancellable-ctx", raw(cancellable)},
		{"sql-stmt", raw(context.Background())},
	} {
		b.Run(tc.name+"/clients=16", func(b *testing.B) { benchkit.Parallel(b, 16, tc.op) })
	}
}
